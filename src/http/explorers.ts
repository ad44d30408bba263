import express, { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { dirname, join } from 'node:path';

/** Folder of an installed package, found through its package.json. */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

/** Where both pages keep the API key in the browser's local storage, so that a key typed in one serves the other. */
export const API_KEY_STORAGE_KEY = 'platformApiKey';

/** The GraphiQL page: GET /graphql from a browser (Accept preferring text/html, no `query` parameter). */
export const GRAPHIQL_PATH = '/graphql';
/** The Swagger UI page. */
export const SWAGGER_UI_PATH = '/swagger-ui/';

/**
 * The title of GraphiQL's query builder (the explorer plugin): its pane, and its sidebar button
 * ("Show Query builder"). Ticking fields there writes the query into the editor.
 */
export const QUERY_BUILDER_TITLE = 'Query builder';

/** What GraphiQL shows, in its footer, its Docs pane and its query builder, while it has no key to send. */
export const GRAPHIQL_KEY_HINT =
  'No API key yet: put {"x-api-key": "pk_…"} in the Headers tab below the query (or use the key field of /swagger-ui/). The schema and the Docs load once a key is there.';

/**
 * The query GraphiQL opens with: the organizations the caller sees, their projects and each project's
 * tasks. After `npm run demo` it shows the demo organization (docs/demo.md).
 */
export const EXAMPLE_QUERY = `# Organization → projects → tasks
# (npm run demo loads an organization to look at).
# API key: {"x-api-key": "pk_…"} in Headers below, or the field of /swagger-ui/.
# Run with ▶ or Ctrl-Enter.
query OrganizationProjectsTasks {
  organizations(pageSize: 5, sort: "name:asc") {
    totalElements
    content {
      name
      slug
      projects(sort: "name:asc") {
        totalElements
        content {
          name
          slug
          tasks(sort: "priority:desc", pageSize: 20) {
            totalElements
            content {
              title
              statusSlug
              priority
              locked
              assignee { email }
            }
          }
        }
      }
    }
  }
}
`;

/** A value as a JavaScript literal that is safe inside an HTML <script> element. */
function scriptLiteral(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** An HTML page of the explorers: `head` goes after its title, `body` is its body. */
function htmlPage(title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Platform API · ${title}</title>
${head}
</head>
<body>
${body}
</body>
</html>`;
}

const graphiqlPage = htmlPage(
  'GraphQL explorer',
  `  <link rel="stylesheet" href="/graphql/explorer/graphiql.min.css" />
  <link rel="stylesheet" href="/graphql/explorer/plugin-explorer.css" />
  <style>
    body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }
    .platform-key-hint { margin: 0; padding: 8px 4px 0; font-size: 14px; line-height: 1.4; color: hsla(var(--color-neutral), 0.8); }
    /* Without a key no schema is fetched: the Docs pane says how to give one rather than "No GraphQL schema available". */
    body.platform-no-key .graphiql-doc-explorer-error { font-size: 0; color: hsla(var(--color-neutral), 0.8);
      background-color: hsla(var(--color-neutral), var(--alpha-background-light)); border-color: hsla(var(--color-neutral), 0.15); }
    body.platform-no-key .graphiql-doc-explorer-error::after { content: ${scriptLiteral(GRAPHIQL_KEY_HINT)}; font-size: 14px; line-height: 1.4; }
    /* The query builder likewise, in place of its "No Schema Available". */
    body.platform-no-key .docExplorerWrap .error-container { font-size: 0; padding: 8px 0; white-space: normal; color: hsla(var(--color-neutral), 0.8); }
    body.platform-no-key .docExplorerWrap .error-container::after { content: ${scriptLiteral(GRAPHIQL_KEY_HINT)}; font-size: 14px; line-height: 1.4; }
  </style>`,
  `  <div id="graphiql">Loading…</div>
  <script src="/graphql/explorer/react.production.min.js"></script>
  <script src="/graphql/explorer/react-dom.production.min.js"></script>
  <script src="/graphql/explorer/graphiql.min.js"></script>
  <script src="/graphql/explorer/plugin-explorer.umd.js"></script>
  <script>
    const STORAGE = ${scriptLiteral(API_KEY_STORAGE_KEY)};
    const HINT = ${scriptLiteral(GRAPHIQL_KEY_HINT)};
    const CREDENTIAL_HEADERS = ['x-api-key', 'x-access-token', 'authorization'];
    const storedKey = () => (localStorage.getItem(STORAGE) || '').trim();
    // The credential headers hold; '' for none.
    const credentialOf = (headers) => {
      const found = Object.entries(headers || {}).find(([name, value]) => CREDENTIAL_HEADERS.includes(name.toLowerCase()) && typeof value === 'string' && value.trim());
      return found ? found[1].trim() : '';
    };
    // The credential a Headers text holds; '' for none, or for text that is not JSON (yet).
    const credentialIn = (text) => {
      try { const headers = JSON.parse(text || '{}'); return headers && typeof headers === 'object' ? credentialOf(headers) : ''; } catch { return ''; }
    };
    // Subscriptions: graphql-ws at the same path; the headers a request is sent with are its connection parameters.
    const subscriptionUrl = location.origin.replace(/^http/, 'ws') + '/graphql';
    const send = GraphiQL.createFetcher({ url: '/graphql', subscriptionUrl });
    // The key in the Headers tab is kept for both explorers; without one there, the kept key is sent.
    const fetcher = (params, options = {}) => {
      const headers = { ...(options.headers || {}) };
      const typed = typeof headers['x-api-key'] === 'string' ? headers['x-api-key'].trim() : '';
      if (typed) localStorage.setItem(STORAGE, typed);
      else if (storedKey() && !credentialOf(headers)) headers['x-api-key'] = storedKey();
      return send(params, { ...options, headers });
    };
    const defaultHeaders = JSON.stringify({ 'x-api-key': storedKey() }, null, 2);
    // Made once: GraphiQL tells its plugins apart by identity. The title names both its pane and its sidebar button.
    const QUERY_BUILDER = ${scriptLiteral(QUERY_BUILDER_TITLE)};
    const queryBuilder = { ...GraphiQLPluginExplorer.explorerPlugin({ title: QUERY_BUILDER }), title: QUERY_BUILDER };
    function Explorer() {
      // GraphiQL opens with the headers it kept (shouldPersistHeaders), else the default ones.
      const [typed, setTyped] = React.useState(() => credentialIn(localStorage.getItem('graphiql:headers') ?? defaultHeaders));
      const credential = typed || storedKey();
      // GraphiQL fetches the schema again whenever its fetcher changes: so once per credential, and
      // never without one (schema null), which would only show the 401 as "Error fetching schema".
      const keyed = React.useMemo(() => (params, options) => fetcher(params, options), [credential]);
      React.useEffect(() => { document.body.classList.toggle('platform-no-key', !credential); }, [credential]);
      // Read once typing pauses, not at every keystroke of a key.
      const pause = React.useRef(undefined);
      const onEditHeaders = (text) => {
        clearTimeout(pause.current);
        pause.current = setTimeout(() => setTyped(credentialIn(text)), 500);
      };
      return React.createElement(GraphiQL, { fetcher: keyed, schema: credential ? undefined : null, onEditHeaders, defaultHeaders, plugins: [queryBuilder],
        shouldPersistHeaders: true, defaultEditorToolsVisibility: 'headers', defaultQuery: ${scriptLiteral(EXAMPLE_QUERY)} },
        credential ? null : React.createElement(GraphiQL.Footer, null, React.createElement('p', { className: 'platform-key-hint', role: 'status' }, HINT)));
    }
    ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(Explorer));
  </script>`,
);

const swaggerPage = htmlPage(
  'REST reference',
  `  <link rel="stylesheet" href="/swagger-ui/swagger-ui.css" />
  <link rel="stylesheet" href="/swagger-ui/index.css" />
  <link rel="icon" type="image/png" href="/swagger-ui/favicon-32x32.png" sizes="32x32" />
  <style>
    .platform-bar { background: #1b1b1b; color: #fff; font-family: sans-serif; padding: 10px 20px; }
    .platform-bar form { display: flex; flex-wrap: wrap; align-items: center; gap: 8px; max-width: 1420px; margin: 0 auto; }
    .platform-bar .platform-title { font-weight: bold; margin-right: 16px; }
    .platform-bar label { font-size: 14px; }
    .platform-bar input { flex: 1 1 320px; min-width: 200px; padding: 6px 8px; border: 2px solid #62a03f; border-radius: 4px;
      font-family: monospace; font-size: 14px; line-height: 1.5; }
    .platform-bar button { padding: 6px 14px; border: 2px solid #62a03f; border-radius: 4px; background: #62a03f; color: #fff;
      font-weight: bold; cursor: pointer; }
    .platform-bar button.secondary { background: transparent; }
    .platform-status { max-width: 1420px; margin: 6px auto 0; font-size: 13px; min-height: 1em; color: #d0d0d0; }
    .platform-status.is-ok { color: #8fd16a; }
    .platform-status.is-error { color: #ff8a80; }
  </style>`,
  `  <header class="platform-bar">
    <form id="platform-key" autocomplete="off">
      <span class="platform-title">Platform API</span>
      <label for="platform-key-input">API key</label>
      <input id="platform-key-input" name="apiKey" type="text" spellcheck="false" placeholder="pk_… (sent as x-api-key; GraphiQL at /graphql uses the same key)" />
      <button type="submit" id="platform-key-use">Use key</button>
      <button type="button" id="platform-key-forget" class="secondary">Forget</button>
    </form>
    <p id="platform-key-status" class="platform-status" role="status" aria-live="polite"></p>
  </header>
  <div id="swagger-ui"></div>
  <script src="/swagger-ui/swagger-ui-bundle.js"></script>
  <script src="/swagger-ui/swagger-initializer.js"></script>`,
);

/**
 * The key field above Swagger UI: the key is kept in local storage (shared with GraphiQL), sent with
 * the request for the API description, and handed to Swagger's Authorize (`preauthorizeApiKey`) so
 * that "Try it out" sends it. No dialog ever blocks the page.
 */
const swaggerInitializer = `(function () {
  const STORAGE = ${scriptLiteral(API_KEY_STORAGE_KEY)};
  const SCHEME = 'x-api-key';
  const SPEC = '/v3/api-docs';
  const form = document.getElementById('platform-key');
  const input = document.getElementById('platform-key-input');
  const status = document.getElementById('platform-key-status');
  const storedKey = () => (localStorage.getItem(STORAGE) || '').trim();
  const say = (text, kind) => {
    status.textContent = text;
    status.className = 'platform-status' + (kind ? ' is-' + kind : '');
  };

  function start() {
    const key = storedKey();
    const host = document.createElement('div');
    document.getElementById('swagger-ui').replaceChildren(host);
    window.ui = undefined;
    if (!key) {
      say('Enter an API key to load the API description: the administrator key printed at the first start, or the demo key printed by npm run demo.');
      return;
    }
    say('Loading the API description…');
    const ui = SwaggerUIBundle({
      url: SPEC,
      domNode: host,
      presets: [SwaggerUIBundle.presets.apis],
      layout: 'BaseLayout',
      deepLinking: true,
      requestInterceptor: (request) => {
        if (request.loadSpec) request.headers[SCHEME] = key;
        return request;
      },
      responseInterceptor: (response) => {
        if (String(response.url).endsWith(SPEC) && !response.ok) {
          say('The API description could not be read with this key: HTTP ' + response.status + (response.status === 401 ? ' (the key is not valid)' : '') + '.', 'error');
        }
        return response;
      },
      onComplete: () => {
        ui.preauthorizeApiKey(SCHEME, key);
        if (ui.authSelectors.authorized().getIn([SCHEME, 'value']) === key) say('Key in use: "Try it out" sends it as x-api-key (see Authorize).', 'ok');
        else say('The API description names no ' + SCHEME + ' scheme: use Authorize to enter the key.', 'error');
      },
    });
    window.ui = ui;
  }

  input.value = storedKey();
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!key) {
      say('Type a key first.', 'error');
      input.focus();
      return;
    }
    localStorage.setItem(STORAGE, key);
    start();
  });
  document.getElementById('platform-key-forget').addEventListener('click', () => {
    localStorage.removeItem(STORAGE);
    input.value = '';
    start();
    input.focus();
  });
  start();
})();
`;

/** The paths of the explorers' routes, without regard to case as Express matches them. */
const EXPLORER_PATHS = /^\/(graphql|swagger-ui)(\/|$)/i;

/**
 * Browser pages that work without internet access, served from installed packages: GraphiQL, with
 * its query builder, when /graphql is opened in a browser, and Swagger UI at /swagger-ui/ with a field for the API key above
 * it. Neither needs credentials to load; the calls they make do, with the key both keep in the
 * browser's local storage (API_KEY_STORAGE_KEY).
 */
export function explorerRouter(): RequestHandler {
  const router = Router();
  const assets: Record<string, string> = {
    'graphiql.min.css': join(packageDir('graphiql'), 'graphiql.min.css'),
    'graphiql.min.js': join(packageDir('graphiql'), 'graphiql.min.js'),
    // The query builder: built against GraphiQL's own React and GraphQL (the GraphiQL global), so it follows graphiql.min.js.
    'plugin-explorer.css': join(packageDir('@graphiql/plugin-explorer'), 'dist', 'style.css'),
    'plugin-explorer.umd.js': join(packageDir('@graphiql/plugin-explorer'), 'dist', 'index.umd.js'),
    'react.production.min.js': join(packageDir('react'), 'umd', 'react.production.min.js'),
    'react-dom.production.min.js': join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'),
  };
  router.get('/graphql/explorer/:asset', (req: Request, res: Response, next: NextFunction) => {
    const file = assets[String(req.params.asset)];
    if (!file) return next();
    res.sendFile(file, { maxAge: '1d' });
  });
  router.get(GRAPHIQL_PATH, (req: Request, res: Response, next: NextFunction) => {
    const wantsPage = req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
    if (!wantsPage || req.query.query !== undefined) return next();
    res.type('html').send(graphiqlPage);
  });
  router.get(['/swagger-ui', '/swagger-ui/', '/swagger-ui/index.html'], (_req: Request, res: Response) => {
    res.type('html').send(swaggerPage);
  });
  router.get('/swagger-ui/swagger-initializer.js', (_req: Request, res: Response) => {
    res.type('application/javascript').send(swaggerInitializer);
  });
  router.use('/swagger-ui', express.static(packageDir('swagger-ui-dist'), { index: 'index.html', maxAge: '1d' }));
  // Every path above begins with /graphql or /swagger-ui: other requests skip the walk.
  return (req, res, next) => (EXPLORER_PATHS.test(req.path) ? router(req, res, next) : next());
}
