import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { findChromium } from './browser/chromium';
import { checkExplorers, problemsOf, QUERY_BUILDER_PATHS } from './browser/explorer-checks';

/**
 * `npm run check:explorers -- [base URL]` with API_KEY set: drives GraphiQL (first without a key, then
 * with it typed into its Headers tab, then its query builder) and Swagger UI of a running server in headless Chromium
 * (CHROMIUM_PATH, or chromium on PATH) as a person would, prints
 * what they showed and where the screenshots are (SCREENSHOT_DIR, default the temporary folder), and
 * exits 1 when either page did not work. The base URL defaults to http://localhost:$PORT (8080).
 */
async function main(): Promise<number> {
  const baseUrl = (process.argv[2] ?? `http://localhost:${process.env.PORT || 8080}`).replace(/\/+$/, '');
  const apiKey = process.env.API_KEY;
  if (!apiKey) {
    console.error('Set API_KEY to the key to type into the pages (the one npm run demo printed, for example).');
    return 2;
  }
  const chromium = findChromium();
  if (!chromium) {
    console.error('No Chromium found: install it (apt-get install chromium) or set CHROMIUM_PATH.');
    return 2;
  }
  const screenshotDir = process.env.SCREENSHOT_DIR || tmpdir();
  mkdirSync(screenshotDir, { recursive: true });
  const result = await checkExplorers(chromium, baseUrl, apiKey, screenshotDir);
  const organizations = (result.graphiql.result?.data?.organizations?.content ?? []) as { name: string; projects?: { totalElements: number } }[];
  const noKey = result.graphiqlWithoutKey;
  console.log(`GraphiQL (${baseUrl}/graphql) without a key`);
  console.log(`  footer:        ${noKey.hint}`);
  console.log(`  Docs pane:     ${noKey.docsWithoutKey}`);
  console.log(`  query builder: ${noKey.builderWithoutKey}`);
  console.log(`  calls to /graphql before a key: ${noKey.requestsWithoutKey.join(', ') || 'none'}`);
  console.log(`  Docs pane once the key is typed into Headers: ${noKey.docsWithKey.slice(0, 120)}`);
  console.log(`Swagger UI (${baseUrl}/swagger-ui/)`);
  console.log(`  without a key: ${result.swagger.statusWithoutKey}`);
  console.log(`  with the key:  ${result.swagger.statusWithKey}`);
  console.log(`  Try it out, GET /api/organizations: ${result.swagger.executedStatus}`);
  console.log(
    `GraphiQL (${baseUrl}/graphql), saved query: ${organizations.map((o) => `${o.name} (${o.projects?.totalElements ?? 0} projects)`).join(', ') || 'no organization'}`,
  );
  const builder = result.queryBuilder;
  console.log(`GraphiQL's query builder: ${builder.rootFields.length} root fields listed (the schema has ${builder.schemaRootFields.length})`);
  console.log(`  ticked ${QUERY_BUILDER_PATHS.map((path) => path.join(' → ')).join('; ')}; the editor then held:`);
  console.log(builder.query.replace(/^/gm, '    '));
  console.log(`  ran: ${JSON.stringify(builder.result).slice(0, 200)}`);
  console.log(`Screenshots: ${result.screenshots.join(', ')}`);
  const problems = problemsOf(result, apiKey);
  for (const problem of problems) console.error(`PROBLEM: ${problem}`);
  return problems.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
