import 'reflect-metadata';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../src/catalog/registry';
import { createOrganization } from '../support/fixtures';
import { createRecord } from '../support/resource-bodies';
import { startServer, type TestServer } from '../support/server';
import { describeRequest, expectGraphqlAnswer, upstreamStatuses, type GraphqlBody } from './support/answers';
import { Fingerprinter, scratchDatabase, type Fingerprint, type ScratchDatabase } from './support/database';
import { analyticsEmbedOptions } from './support/embed';
import { runs, tally } from './support/figures';
import { graphqlRequest } from './support/graphql-arbitraries';

/**
 * Property-based fuzzing of GraphQL: documents for every root query and mutation of the schema, their
 * arguments as literals or variables of the declared type (or another), values right, wrong and at
 * the edges (ids of live rows among them), some spliced with garbage, variables and operationName
 * sometimes malformed. Never a 5xx; invalid documents are HTTP 400 with BAD_REQUEST/400 errors;
 * errors of operations that ran carry a code and a 4xx status; and a query, or a mutation that was
 * refused, leaves the database as it was. On a database of its own (the fingerprint covers every table).
 */

const schema = buildSchema(readFileSync(join(__dirname, '..', '..', 'schema', 'schema.graphql'), 'utf8'));

let database: ScratchDatabase;
let server: TestServer;
let prints: Fingerprinter;
const ids: string[] = [];

beforeAll(async () => {
  database = await scratchDatabase('platform_fuzz_graphql');
  server = await startServer({ databaseUrl: database.url, workerConcurrency: 0, analyticsEmbed: analyticsEmbedOptions() });
  prints = await Fingerprinter.open(database.url);
  const organizationId = (await createOrganization(server)).id;
  ids.push(organizationId);
  for (const resource of resources) ids.push((await createRecord(server, resource, { organizationId })).id);
}, 180_000);

afterAll(async () => {
  await prints?.close();
  await server?.close();
  await database?.drop();
});

describe('GraphQL documents and variables built from the schema', () => {
  it('never a 5xx; errors carry a code and a 4xx status; a query or a refused mutation writes nothing', async ({ task }) => {
    const counts = tally(task);
    let known: Fingerprint | undefined;
    await fc.assert(
      fc.asyncProperty(graphqlRequest(schema, ids), async ({ operation, field, body }) => {
        const before = known ?? (await prints.take());
        known = undefined;
        const answer = await server.request<GraphqlBody>('POST', '/graphql', { body });
        counts.ran();
        const label = `${operation} ${field}: ${describeRequest('POST', '/graphql', body)}`;
        const status = expectGraphqlAnswer(answer, label, upstreamStatuses.get(field));
        counts.answered(status);
        const errors = answer.body.errors ?? [];
        const refused = errors.length > 0 && answer.body.data?.[field] == null;
        const after = await prints.take();
        if (operation === 'query' || refused) expect(after, `${label}\n→ ${answer.text.slice(0, 300)}\nyet the database changed`).toEqual(before);
        known = after;
      }),
      runs(700, 7000),
    );
  }, 300_000);
});
