import { join } from 'node:path';
import { API_KEY_STORAGE_KEY } from '../../http/explorers';
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

/**
 * Opens Swagger UI and GraphiQL of the server at `baseUrl` in headless Chromium, as a person would:
 * on Swagger UI types `apiKey` into the key field, uses it, and runs GET /api/organizations with
 * "Try it out"; then opens GraphiQL (same browser, so the kept key is there) and runs its saved query.
 * Screenshots go to `screenshotDir`. It answers what it saw; the caller judges.
 */
export async function checkExplorers(chromium: string, baseUrl: string, apiKey: string, screenshotDir: string): Promise<ExplorerCheckResult> {
  const browser = await Browser.launch(chromium);
  const screenshots: string[] = [];
  const pages: Page[] = [];
  try {
    const page = await browser.newPage();
    pages.push(page);
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
    throw new Error(`${(error as Error).message}${status ? `; key field status: ${status}` : ''}${exceptions.length ? `; page errors: ${exceptions.join('; ')}` : ''}${shown ? `; screenshot ${shown}` : ''}`);
  } finally {
    await browser.close();
  }
}

/** What is wrong with what the pages showed; empty when both explorers worked. */
export function problemsOf(result: ExplorerCheckResult, apiKey: string): string[] {
  const problems: string[] = [];
  const { swagger, graphiql } = result;
  if (result.dialogs.length) problems.push(`the pages opened dialogs: ${result.dialogs.join('; ')}`);
  if (result.exceptions.length) problems.push(`the pages threw: ${result.exceptions.join('; ')}`);
  if (swagger.storedKey !== apiKey) problems.push(`Swagger UI kept ${JSON.stringify(swagger.storedKey)} as the key, not the one typed`);
  if (!swagger.authorized) problems.push("Swagger UI's Authorize does not hold the key");
  if (swagger.executedStatus !== '200') problems.push(`GET /api/organizations from Swagger UI answered ${swagger.executedStatus}: ${swagger.executedBody.slice(0, 300)}`);
  if (!graphiql.query.includes('query OrganizationProjectsTasks')) problems.push('GraphiQL did not open with the saved query');
  const organizations = graphiql.result?.data?.organizations?.content;
  if (!Array.isArray(organizations) || organizations.length === 0) problems.push(`GraphiQL's saved query showed no organization: ${JSON.stringify(graphiql.result).slice(0, 300)}`);
  return problems;
}
