import { join } from 'node:path';
import { API_KEY_STORAGE_KEY, GRAPHIQL_KEY_HINT } from '../../src/http/explorers';
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
  /** Dialogs either page opened (each dismissed): there should be none. */
  dialogs: string[];
  /** Uncaught script errors of either page. */
  exceptions: string[];
  screenshots: string[];
}

const OPERATION = '#operations-organizations-listOrganizations';

/** GraphiQL's editor of the secondary tab shown (Headers, as the page opens it). */
const HEADERS_EDITOR = '.graphiql-editor-tool .graphiql-editor:not(.hidden) .CodeMirror';

/** What GraphiQL's Docs pane shows: `hint: …` (the no-key hint in place of its message), `error: …`, `schema: <section titles>`; '' while loading. */
const DOCS_STATE = `(() => {
  const docs = document.querySelector('.graphiql-doc-explorer');
  if (!docs) return '';
  const error = docs.querySelector('.graphiql-doc-explorer-error');
  if (error) {
    const after = getComputedStyle(error, '::after').content;
    return after && after !== 'none' && getComputedStyle(error).fontSize === '0px' ? 'hint: ' + JSON.parse(after) : 'error: ' + error.textContent;
  }
  const sections = [...docs.querySelectorAll('.graphiql-doc-explorer-section-title')].map((e) => e.innerText.trim());
  return sections.length ? 'schema: ' + sections.join(', ') : '';
})()`;

/**
 * Opens Swagger UI and GraphiQL of the server at `baseUrl` in headless Chromium, as a person would:
 * first GraphiQL with no key anywhere (a hint rather than a 401, in its footer and its Docs pane), then
 * the key typed into its Headers tab (the schema loads); with the browser's storage cleared, on
 * Swagger UI types `apiKey` into the key field, uses it, and runs GET /api/organizations with "Try it
 * out"; then opens GraphiQL again (same browser, so the kept key is there) and runs its saved query.
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
    const editor = `document.querySelector('.graphiql-query-editor .CodeMirror')?.CodeMirror`;
    const query = await page.waitFor<string>('the GraphiQL query editor', `${editor}?.getValue()`);
    await page.waitFor('the GraphiQL run button', `!!document.querySelector('.graphiql-execute-button')`);
    await page.click('.graphiql-execute-button');
    const resultText = await page.waitFor<string>(
      'the result of the saved query',
      `(() => { const v = document.querySelector('.result-window .CodeMirror')?.CodeMirror?.getValue(); return v && v.trim().startsWith('{') ? v : ''; })()`,
    );
    screenshots.push(await page.screenshot(join(screenshotDir, 'graphiql.png')));

    return {
      swagger: { statusWithoutKey, statusWithKey, storedKey, authorized, executedStatus, executedBody },
      graphiqlWithoutKey,
      graphiql: { query, result: JSON.parse(resultText) },
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
  await page.click('button[aria-label="Show Documentation Explorer"]');
  const docsWithoutKey = await page.waitFor<string>('the Docs pane without a key', DOCS_STATE);
  // Time for a schema request, had one been sent.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const requestsWithoutKey = page.responses
    .filter((r) => r.method === 'POST' && new URL(r.url).pathname === '/graphql')
    .map((r) => `POST /graphql ${r.status}`);
  screenshots.push(await page.screenshot(join(screenshotDir, 'graphiql-no-key.png')));

  await page.typeInEditor(HEADERS_EDITOR, JSON.stringify({ 'x-api-key': apiKey }, null, 2));
  const docsWithKey = await page.waitFor<string>(
    'the schema to load once the key is typed',
    `(() => { const s = ${DOCS_STATE}; return s.startsWith('schema: ') || s.startsWith('error: ') ? s : ''; })()`,
  );
  const hintGone = await page.evaluate<boolean>(`!document.querySelector('.platform-key-hint')`);
  screenshots.push(await page.screenshot(join(screenshotDir, 'graphiql-key-typed.png')));
  return { hint, docsWithoutKey, requestsWithoutKey, docsWithKey, hintGone };
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
  if (noKey.requestsWithoutKey.length) problems.push(`GraphiQL called /graphql before a key was given: ${noKey.requestsWithoutKey.join(', ')}`);
  if (!noKey.docsWithKey.startsWith('schema: '))
    problems.push(`GraphiQL's Docs pane did not load the schema once the key was typed: ${JSON.stringify(noKey.docsWithKey)}`);
  if (!noKey.hintGone) problems.push('GraphiQL kept its no-key hint once the key was typed');
  if (!graphiql.query.includes('query OrganizationProjectsTasks')) problems.push('GraphiQL did not open with the saved query');
  const organizations = graphiql.result?.data?.organizations?.content;
  if (!Array.isArray(organizations) || organizations.length === 0)
    problems.push(`GraphiQL's saved query showed no organization: ${JSON.stringify(graphiql.result).slice(0, 300)}`);
  return problems;
}
