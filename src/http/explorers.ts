import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { dirname, join } from 'node:path';

/** Folder of an installed package, found through its package.json. */
function packageDir(name: string): string {
  return dirname(require.resolve(`${name}/package.json`));
}

const graphiqlPage = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8" />
  <title>Platform API · GraphQL explorer</title>
  <link rel="stylesheet" href="/graphql/explorer/graphiql.min.css" />
  <style>body { margin: 0; height: 100vh; } #graphiql { height: 100vh; }</style>
</head>
<body>
  <div id="graphiql">Loading…</div>
  <script src="/graphql/explorer/react.production.min.js"></script>
  <script src="/graphql/explorer/react-dom.production.min.js"></script>
  <script src="/graphql/explorer/graphiql.min.js"></script>
  <script>
    const fetcher = GraphiQL.createFetcher({ url: '/graphql' });
    const headers = JSON.stringify({ 'x-api-key': localStorage.getItem('platformApiKey') || '' }, null, 2);
    ReactDOM.createRoot(document.getElementById('graphiql')).render(
      React.createElement(GraphiQL, { fetcher, defaultHeaders: headers, shouldPersistHeaders: true,
        defaultQuery: '# Put your API key in the Headers tab below, then run:\\n{\\n  organizations(pageSize: 5) {\\n    totalElements\\n    content { id name slug projects { totalElements content { name } } }\\n  }\\n}\\n' }),
    );
  </script>
</body>
</html>`;

const swaggerInitializer = `window.onload = function () {
  let key = localStorage.getItem('platformApiKey');
  if (!key) {
    key = window.prompt('API key (x-api-key) to read the API description with:') || '';
    localStorage.setItem('platformApiKey', key);
  }
  window.ui = SwaggerUIBundle({
    url: '/v3/api-docs',
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    persistAuthorization: true,
    requestInterceptor: (request) => {
      const stored = localStorage.getItem('platformApiKey');
      if (stored && !request.headers['x-api-key'] && !request.headers['Authorization']) request.headers['x-api-key'] = stored;
      return request;
    },
  });
};
`;

/**
 * Browser pages that work without internet access, served from installed packages: GraphiQL when
 * /graphql is opened in a browser, and Swagger UI at /swagger-ui/. Neither needs credentials to load;
 * the calls they make do.
 */
export function explorerRouter(): Router {
  const router = Router();
  const assets: Record<string, string> = {
    'graphiql.min.css': join(packageDir('graphiql'), 'graphiql.min.css'),
    'graphiql.min.js': join(packageDir('graphiql'), 'graphiql.min.js'),
    'react.production.min.js': join(packageDir('react'), 'umd', 'react.production.min.js'),
    'react-dom.production.min.js': join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'),
  };
  router.get('/graphql/explorer/:asset', (req: Request, res: Response, next: NextFunction) => {
    const file = assets[String(req.params.asset)];
    if (!file) return next();
    res.sendFile(file, { maxAge: '1d' });
  });
  router.get('/graphql', (req: Request, res: Response, next: NextFunction) => {
    const wantsPage = req.accepts(['application/json', 'application/graphql-response+json', 'text/html']) === 'text/html';
    if (!wantsPage || req.query.query !== undefined) return next();
    res.type('html').send(graphiqlPage);
  });
  router.get('/swagger-ui/swagger-initializer.js', (_req: Request, res: Response) => {
    res.type('application/javascript').send(swaggerInitializer);
  });
  router.use('/swagger-ui', express.static(packageDir('swagger-ui-dist'), { index: 'index.html', maxAge: '1d' }));
  return router;
}
