import { join } from 'node:path';
import { Kind, parse, type FieldNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { API_KEY_STORAGE_KEY, GRAPHIQL_KEY_HINT, QUERY_BUILDER_TITLE } from '../../src/http/explorers';
import { Browser, type Page } from './chromium';

export interface ExplorerCheckResult {
  swagger: {
    /** The status line before a key was given. */
    statusWithoutKey: string;
    /** The status line once the key was used. */
    statusWithKey: string;
    /** What the page kept in local storage. */
    storedKey: string | null;
    /** Whether Swagger's Authorize holds the key for the x-api-key scheme. */
    authorized: boolean;
    /** The answer to "Try it out" → Execute of GET /api/organizations. */
    executedStatus: string;
    executedBody: string;
  };
  /** GraphiQL opened before any key was given, then given one in its Headers tab. */
  graphiqlWithoutKey: {
    /** The hint its footer showed. */
    hint: string;
    /** What its Docs pane showed: `hint: …`, `error: …` or `schema: …`. */
    docsWithoutKey: string;
    /** What the query builder showed: `hint: …`, `error: …` or `fields: …`. */
    builderWithoutKey: string;
    /** The answers to POST /graphql before the key was typed (none expected: no schema fetched without one). */
    requestsWithoutKey: string[];
    /** What the Docs pane showed once the key was typed into the Headers tab. */
    docsWithKey: string;
    /** Whether the footer hint was gone by then. */
    hintGone: boolean;
  };
  graphiql: {
    /** The query the editor opened with. */
    query: string;
    /** The result pane after running it, parsed. */
    result: any;
  };
  /** The query builder, in a new tab emptied first: fields ticked along QUERY_BUILDER_PATHS, then run. */
  queryBuilder: {
    /** The fields it listed before anything was ticked (the root fields), in its order. */
    rootFields: string[];
    /** The fields of the schema's query type, asked of /graphql by introspection. */
    schemaRootFields: string[];
    /** What the editor held once the fields were ticked. */
    query: string;
    /** The result pane after running it, parsed. */
    result: any;
  };
  /** Dialogs either page opened (each dismissed): there should be none. */
  dialogs: string[];
  /** Uncaught script errors of either page. */
  exceptions: string[];
  screenshots: string[];
}

const OPERATION = '#operations-organizations-listOrganizations';

/** The fields the query builder check ticks, each a path from a root field: a nested query of two levels. */
export const QUERY_BUILDER_PATHS: readonly (readonly string[])[] = [
  ['organizations', 'content', 'name'],
  ['organizations', 'content', 'projects', 'content', 'name'],
];

/** GraphiQL's query editor (one, whatever tab is shown). */
const QUERY_EDITOR = '.graphiql-query-editor .CodeMirror';
const QUERY_TEXT = `document.querySelector(${JSON.stringify(QUERY_EDITOR)})?.CodeMirror?.getValue()`;
/** The result pane's text once it holds an answer; '' before. */
const RESULT_TEXT = `(() => { const v = document.querySelector('.result-window .CodeMirror')?.CodeMirror?.getValue(); return v && v.trim().startsWith('{') ? v : ''; })()`;
const SHOW_DOCS = 'button[aria-label="Show Documentation Explorer"]';
const SHOW_QUERY_BUILDER = `button[aria-label=${JSON.stringify(`Show ${QUERY_BUILDER_TITLE}`)}]`;

/** GraphiQL's editor of the secondary tab shown (Headers, as the page opens it). */
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';

/** `hint: …` when the page shows the no-key hint in place of the message of `error` (CSS), else `error: <its message>`. */
const ERROR_OR_HINT = `((error) => {
  const after = getComputedStyle(error, '::after').content;
  return after && after !== 'none' && getComputedStyle(error).fontSize === '0px' ? 'hint: ' + JSON.parse(after) : 'error: ' + error.textContent;
})`;

/** What GraphiQL's Docs pane shows: `hint: …` (the no-key hint in place of its message), `error: …`, `schema: <section titles>`; '' while loading. */
const DOCS_STATE = `(() => {
  const docs = document.querySelector('.graphiql-doc-explorer');
  if (!docs) return '';
  const error = docs.querySelector('.graphiql-doc-explorer-error');
  if (error) return ${ERROR_OR_HINT}(error);
  const sections = [...docs.querySelectorAll('.graphiql-doc-explorer-section-title')].map((e) => e.innerText.trim());
  return sections.length ? 'schema: ' + sections.join(', ') : '';
})()`;

/** What the query builder shows: `hint: …`, `error: …` (its "No Schema Available"), `fields: <the fields it lists>`; '' while loading. */
const BUILDER_STATE = `(() => {
  const pane = document.querySelector('.docExplorerWrap');
  if (!pane) return '';
  const error = pane.querySelector('.error-container');
  if (error) return ${ERROR_OR_HINT}(error);
  const fields = [...pane.querySelectorAll('.graphiql-explorer-node > span[data-field-name]')].map((e) => e.dataset.fieldName);
  return fields.length ? 'fields: ' + fields.join(', ') : '';
})()`;

/**
 * Opens Swagger UI and GraphiQL of the server at `baseUrl` in headless Chromium, as a person would:
 * first GraphiQL with no key anywhere (a hint rather than a 401, in its footer, its Docs pane and its
 * query builder), then the key typed into its Headers tab (the schema loads); with the browser's storage
 * cleared, on Swagger UI types `apiKey` into the key field, uses it, and runs GET /api/organizations
 * with "Try it out"; then opens GraphiQL again (same browser, so the kept key is there), runs its saved
 * query, and in a new tab builds a nested query by ticking fields in the query builder and runs it.
 * Screenshots go to `screenshotDir`. It answers what it saw; the caller judges.
 */
export async function checkExplorers(chromium: string, baseUrl: string, apiKey: string, screenshotDir: string): Promise<ExplorerCheckResult> {
  const browser = await Browser.launch(chromium);
  const screenshots: string[] = [];
  const pages: Page[] = [];
  try {
    const page = await browser.newPage();
    pages.push(page);
    const graphiqlWithoutKey = await checkGraphiqlWithoutKey(page, baseUrl, apiKey, screenshotDir, screenshots);
    // The key typed into GraphiQL is kept: Swagger UI starts from none, as in a fresh browser.
    await page.evaluate('localStorage.clear()');

    await page.goto(`${baseUrl}/swagger-ui/`);
    const statusWithoutKey = await page.waitFor<string>('the key field to ask for a key', `document.getElementById('platform-key-status')?.textContent`);
    screenshots.push(await page.screenshot(join(screenshotDir, 'swagger-ui-no-key.png')));

    await page.type('#platform-key-input', apiKey);
    await page.click('#platform-key-use');
    await page.waitFor('the API description to load', `!!document.querySelector(${JSON.stringify(OPERATION)})`);
    const statusWithKey = await page.waitFor<string>('the key to be handed to Authorize', `document.querySelector('.platform-status.is-ok')?.textContent`);
    const storedKey = await page.evaluate<string | null>(`localStorage.getItem(${JSON.stringify(API_KEY_STORAGE_KEY)})`);
    const authorized = await page.evaluate<boolean>(`window.ui.authSelectors.authorized().getIn(['x-api-key', 'value']) === ${JSON.stringify(apiKey)}`);
    screenshots.push(await page.screenshot(join(screenshotDir, 'swagger-ui-key.png')));

    await page.click(`${OPERATION} .opblock-summary-control`);
    await page.waitFor('the operation to open', `!!document.querySelector(${JSON.stringify(`${OPERATION} .try-out__btn`)})`);
    await page.click(`${OPERATION} .try-out__btn`);
    await page.waitFor('the Execute button', `!!document.querySelector(${JSON.stringify(`${OPERATION} .execute`)})`);
    await page.click(`${OPERATION} .execute`);
    const executedStatus = await page.waitFor<string>(
      'the answer of Execute',
      `document.querySelector(${JSON.stringify(`${OPERATION} .live-responses-table .response .response-col_status`)})?.textContent?.trim()`,
    );
    const executedBody = await page.evaluate<string>(
      `document.querySelector(${JSON.stringify(`${OPERATION} .live-responses-table .response .response-col_description pre`)})?.textContent ?? ''`,
    );
    await page.evaluate(`document.querySelector(${JSON.stringify(`${OPERATION} .live-responses-table`)}).scrollIntoView({ block: 'start' })`);
    screenshots.push(await page.screenshot(join(screenshotDir, 'swagger-ui-executed.png')));

    await page.goto(`${baseUrl}/graphql`);
    const query = await page.waitFor<string>('the GraphiQL query editor', QUERY_TEXT);
    await page.waitFor('the GraphiQL run button', `!!document.querySelector('.graphiql-execute-button')`);
    await page.click('.graphiql-execute-button');
    const resultText = await page.waitFor<string>('the result of the saved query', RESULT_TEXT);
    screenshots.push(await page.screenshot(join(screenshotDir, 'graphiql.png')));
    const queryBuilder = await checkQueryBuilder(page, baseUrl, apiKey, screenshotDir, screenshots);

    return {
      swagger: { statusWithoutKey, statusWithKey, storedKey, authorized, executedStatus, executedBody },
      graphiqlWithoutKey,
      graphiql: { query, result: JSON.parse(resultText) },
      queryBuilder,
      dialogs: pages.flatMap((p) => p.dialogs),
      exceptions: pages.flatMap((p) => p.exceptions),
      screenshots,
    };
  } catch (error) {
    // What the page showed when it went wrong, beside the message.
    const shown = await pages[0]?.screenshot(join(screenshotDir, 'explorer-failure.png')).catch(() => undefined);
    const status = await pages[0]?.evaluate<string>(`document.getElementById('platform-key-status')?.textContent ?? ''`).catch(() => '');
    const exceptions = pages.flatMap((p) => p.exceptions);
    throw new Error(
      `${(error as Error).message}${status ? `; key field status: ${status}` : ''}${exceptions.length ? `; page errors: ${exceptions.join('; ')}` : ''}${shown ? `; screenshot ${shown}` : ''}`,
    );
  } finally {
    await browser.close();
  }
}

/** GraphiQL in a browser that holds no key: what it shows, then what it shows once the key is typed into its Headers tab. */
async function checkGraphiqlWithoutKey(
  page: Page,
  baseUrl: string,
  apiKey: string,
  screenshotDir: string,
  screenshots: string[],
): Promise<ExplorerCheckResult['graphiqlWithoutKey']> {
  await page.goto(`${baseUrl}/graphql`);
  const hint = await page.waitFor<string>('the no-key hint of GraphiQL', `document.querySelector('.platform-key-hint')?.textContent`);
  await page.click(SHOW_DOCS);
  const docsWithoutKey = await page.waitFor<string>('the Docs pane without a key', DOCS_STATE);
  await page.click(SHOW_QUERY_BUILDER);
  const builderWithoutKey = await page.waitFor<string>('the query builder without a key', BUILDER_STATE);
  // Time for a schema request, had one been sent.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const requestsWithoutKey = page.responses
    .filter((r) => r.method === 'POST' && new URL(r.url).pathname === '/graphql')
    .map((r) => `POST /graphql ${r.status}`);
  screenshots.push(await page.screenshot(join(screenshotDir, 'graphiql-no-key.png')));
  // Back to the Docs pane, whose loading tells when the typed key took effect.
  await page.click(SHOW_DOCS);

  await page.typeInEditor(HEADERS_EDITOR, JSON.stringify({ 'x-api-key': apiKey }, null, 2));
  const docsWithKey = await page.waitFor<string>(
    'the schema to load once the key is typed',
    `(() => { const s = ${DOCS_STATE}; return s.startsWith('schema: ') || s.startsWith('error: ') ? s : ''; })()`,
  );
  const hintGone = await page.evaluate<boolean>(`!document.querySelector('.platform-key-hint')`);
  screenshots.push(await page.screenshot(join(screenshotDir, 'graphiql-key-typed.png')));
  return { hint, docsWithoutKey, builderWithoutKey, requestsWithoutKey, docsWithKey, hintGone };
}

/**
 * The query builder as an analyst uses it: a new tab (it opens with the saved query, so it is emptied
 * first), the builder opened from the sidebar, the fields of QUERY_BUILDER_PATHS ticked one level at a
 * time, and the query it wrote run with GraphiQL's run button.
 */
async function checkQueryBuilder(
  page: Page,
  baseUrl: string,
  apiKey: string,
  screenshotDir: string,
  screenshots: string[],
): Promise<ExplorerCheckResult['queryBuilder']> {
  const schemaRootFields = await queryFieldsOf(baseUrl, apiKey);
  await page.click('button[aria-label="Add tab"]');
  await page.typeInEditor(QUERY_EDITOR, '');
  await waitForQuery(page, 'the new tab to be emptied', (query) => query.trim() === '');
  await page.click(SHOW_QUERY_BUILDER);
  const listed = await page.waitFor<string>('the query builder to list the root fields', BUILDER_STATE);
  const rootFields = listed.startsWith('fields: ') ? listed.slice('fields: '.length).split(', ') : [];
  for (const path of QUERY_BUILDER_PATHS) await tick(page, path);
  const query = await page.evaluate<string>(QUERY_TEXT);
  // GraphiQL takes an edit in a moment after it (the tab is then named after the operation): a run
  // before that would send the operation name of the text the tab held before.
  const operation = firstOperation(query)?.name?.value ?? '';
  await page.waitFor(
    `the tab to be named ${operation}`,
    `document.querySelector('.graphiql-tab-active .graphiql-tab-button')?.textContent?.trim() === ${JSON.stringify(operation)}`,
  );
  await page.click('.graphiql-execute-button');
  const resultText = await page.waitFor<string>('the result of the query built', RESULT_TEXT);
  screenshots.push(await page.screenshot(join(screenshotDir, 'graphiql-query-builder.png')));
  return { rootFields, schemaRootFields, query, result: JSON.parse(resultText) };
}

/** Ticks the field at `path` in the query builder: each level not yet in the query is clicked, and the editor must follow. */
async function tick(page: Page, path: readonly string[]): Promise<void> {
  for (let depth = 1; depth <= path.length; depth++) {
    const prefix = path.slice(0, depth);
    // A level the query selects already (an earlier path's) is left alone: a click would untick it.
    if (selects((await page.evaluate<string>(QUERY_TEXT)) ?? '', prefix)) continue;
    await page.click(builderField(prefix));
    await waitForQuery(page, `the query builder to write ${prefix.join(' → ')} into the editor`, (query) => selects(query, prefix));
  }
}

/**
 * The clickable name of the field at `path` in the query builder. A ticked object field is a
 * `div.graphiql-explorer-<name>` holding its own line, then a div of its fields; any other field is its
 * line alone, `.graphiql-explorer-node.graphiql-explorer-<name>`.
 */
function builderField(path: readonly string[]): string {
  const wrapper = (name: string) => `div.graphiql-explorer-${name}:not(.graphiql-explorer-node)`;
  const line = (name: string) => `.graphiql-explorer-node.graphiql-explorer-${name}`;
  const last = path[path.length - 1];
  const parents = path
    .slice(0, -1)
    .map((name) => `${wrapper(name)} > div > `)
    .join('');
  return `.graphiql-explorer-root ${parents}:is(${line(last)}, ${wrapper(last)} > ${line(last)}) > span[data-field-name="${last}"]`;
}

/** Waits until the query editor holds a text `accept` takes, and answers it. */
async function waitForQuery(page: Page, what: string, accept: (query: string) => boolean, timeoutMs = 15_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const query = (await page.evaluate<string | undefined>(QUERY_TEXT)) ?? '';
    if (accept(query)) return query;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the editor holds ${JSON.stringify(query)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The first operation of `query`; undefined when it has none or does not parse. */
function firstOperation(query: string): OperationDefinitionNode | undefined {
  try {
    return parse(query).definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  } catch {
    return undefined;
  }
}

/** Whether the first operation of `query` selects the field at `path`; false for a text that does not parse. */
export function selects(query: string, path: readonly string[]): boolean {
  let selections: SelectionSetNode | undefined = firstOperation(query)?.selectionSet;
  for (const name of path) {
    const field = selections?.selections.find((selection): selection is FieldNode => selection.kind === Kind.FIELD && selection.name.value === name);
    if (!field) return false;
    selections = field.selectionSet;
  }
  return true;
}

/** The fields of the schema's query type, by introspection through /graphql with `apiKey`. */
async function queryFieldsOf(baseUrl: string, apiKey: string): Promise<string[]> {
  const answer = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ query: '{ __schema { queryType { fields { name } } } }' }),
  });
  const body = (await answer.json()) as { data?: { __schema: { queryType: { fields: { name: string }[] } } } };
  if (!body.data) throw new Error(`introspection of ${baseUrl}/graphql answered ${answer.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body.data.__schema.queryType.fields.map((field) => field.name);
}

/** What is wrong with what the pages showed; empty when both explorers worked. */
export function problemsOf(result: ExplorerCheckResult, apiKey: string): string[] {
  const problems: string[] = [];
  const { swagger, graphiql, graphiqlWithoutKey: noKey } = result;
  if (result.dialogs.length) problems.push(`the pages opened dialogs: ${result.dialogs.join('; ')}`);
  if (result.exceptions.length) problems.push(`the pages threw: ${result.exceptions.join('; ')}`);
  if (swagger.storedKey !== apiKey) problems.push(`Swagger UI kept ${JSON.stringify(swagger.storedKey)} as the key, not the one typed`);
  if (!swagger.authorized) problems.push("Swagger UI's Authorize does not hold the key");
  if (swagger.executedStatus !== '200')
    problems.push(`GET /api/organizations from Swagger UI answered ${swagger.executedStatus}: ${swagger.executedBody.slice(0, 300)}`);
  if (noKey.hint !== GRAPHIQL_KEY_HINT) problems.push(`GraphiQL without a key showed no hint in its footer: ${JSON.stringify(noKey.hint)}`);
  if (noKey.docsWithoutKey !== `hint: ${GRAPHIQL_KEY_HINT}`)
    problems.push(`GraphiQL's Docs pane without a key showed ${JSON.stringify(noKey.docsWithoutKey)}, not the hint`);
  if (noKey.builderWithoutKey !== `hint: ${GRAPHIQL_KEY_HINT}`)
    problems.push(`GraphiQL's query builder without a key showed ${JSON.stringify(noKey.builderWithoutKey)}, not the hint`);
  if (noKey.requestsWithoutKey.length) problems.push(`GraphiQL called /graphql before a key was given: ${noKey.requestsWithoutKey.join(', ')}`);
  if (!noKey.docsWithKey.startsWith('schema: '))
    problems.push(`GraphiQL's Docs pane did not load the schema once the key was typed: ${JSON.stringify(noKey.docsWithKey)}`);
  if (!noKey.hintGone) problems.push('GraphiQL kept its no-key hint once the key was typed');
  if (!graphiql.query.includes('query OrganizationProjectsTasks')) problems.push('GraphiQL did not open with the saved query');
  const organizations = graphiql.result?.data?.organizations?.content;
  if (!Array.isArray(organizations) || organizations.length === 0)
    problems.push(`GraphiQL's saved query showed no organization: ${JSON.stringify(graphiql.result).slice(0, 300)}`);
  problems.push(...queryBuilderProblems(result.queryBuilder));
  return problems;
}

/** What is wrong with the query builder's part: the root fields it listed, the query it wrote, the data that query showed. */
function queryBuilderProblems(builder: ExplorerCheckResult['queryBuilder']): string[] {
  const problems: string[] = [];
  const listed = [...builder.rootFields].sort().join(', ');
  const schema = [...builder.schemaRootFields].sort().join(', ');
  if (listed !== schema) problems.push(`the query builder listed the root fields ${listed || '(none)'}, not the schema's ${schema}`);
  for (const path of QUERY_BUILDER_PATHS)
    if (!selects(builder.query, path)) problems.push(`the query builder did not write ${path.join(' → ')} into the editor: ${JSON.stringify(builder.query)}`);
  const organizations = builder.result?.data?.organizations?.content;
  const named = (items: unknown): boolean => Array.isArray(items) && items.length > 0 && items.every((item) => typeof item?.name === 'string');
  if (!named(organizations) || !organizations.some((organization: any) => named(organization.projects?.content)))
    problems.push(`the query built showed no organization with named projects: ${JSON.stringify(builder.result).slice(0, 300)}`);
  return problems;
}
