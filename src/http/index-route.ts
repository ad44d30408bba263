import type { Request, Response } from 'express';
import { GRAPHIQL_PATH, SWAGGER_UI_PATH } from './explorers';

/** The answer of GET / to a client that does not ask for a page. */
export interface ServiceIndex {
  name: string;
  version: string;
  links: { graphql: string; graphiql: string; swaggerUi: string; openapi: string; health: string };
}

/**
 * GET / (no credentials): where everything is. A browser (Accept preferring text/html) is sent on to
 * GraphiQL (302); any other client gets the index as JSON. `info` is the OpenAPI document's, so the name
 * and version are those the API description states.
 */
export function indexHandler(info: { title: string; version: string }) {
  const index: ServiceIndex = {
    name: info.title,
    version: info.version,
    links: { graphql: '/graphql', graphiql: GRAPHIQL_PATH, swaggerUi: SWAGGER_UI_PATH, openapi: '/v3/api-docs', health: '/health' },
  };
  return (req: Request, res: Response): void => {
    res.vary('Accept');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') return res.redirect(302, GRAPHIQL_PATH);
    res.json(index);
  };
}
