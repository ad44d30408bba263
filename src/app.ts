import type { MikroORM } from '@mikro-orm/core';
import express, { type Express } from 'express';
import { authenticate } from './auth/authenticate';
import { graphqlHandler } from './graphql/server';
import { explorerRouter } from './http/explorers';
import { healthHandler } from './http/health';
import { resources } from './model/registry';
import { buildOpenApiDocument } from './openapi/document';
import { errorHandler, notFoundHandler } from './rest/error-handler';
import { resourceRouter } from './rest/resource-router';
import { Services } from './services/services';

export interface App {
  app: Express;
  services: Services;
  close(): Promise<void>;
}

/** The HTTP application: health and the browser explorers, then authentication, then OpenAPI, REST under /api and GraphQL. */
export async function createApp(orm: MikroORM): Promise<App> {
  const services = new Services(resources);
  const graphql = await graphqlHandler(resources);
  const openApi = buildOpenApiDocument(resources);
  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');

  app.get('/health', healthHandler(orm));
  app.use(explorerRouter());
  app.use(authenticate(orm, services));
  app.get('/v3/api-docs', (_req, res) => {
    res.json(openApi);
  });
  for (const resource of resources) app.use(`/api/${resource.path}`, resourceRouter(resource));
  app.use('/graphql', ...graphql.handler);
  app.use(notFoundHandler);
  app.use(errorHandler);

  return { app, services, close: graphql.stop };
}
