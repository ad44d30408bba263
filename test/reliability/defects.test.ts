import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callersOf } from '../support/callers';
import { createOrganization, createProject, createTask } from '../support/fixtures';
import { startServer, type TestServer } from '../support/server';
import { expectErrorBody } from './support/answers';
import { analyticsEmbedOptions } from './support/embed';

/** The defects the reliability suite found, each pinned by the request that showed it. */

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server?.close());

describe('a filter comparing an integer field with a number no integer column holds', () => {
  it('is 400 naming the filter over REST and GraphQL (it was a 500: PostgreSQL failed the statement)', async () => {
    const project = await createProject(server, (await createOrganization(server)).id);
    await createTask(server, project.id, { priority: 3 });
    for (const filter of [
      'changeSequence=="2147483648"',
      'priority>99999999999',
      'priority<-2147483649',
      'priority=in=(1,1e20)',
      'project.changeSequence!=4294967296',
    ]) {
      const answer = await server.request('GET', `/api/tasks?filter=${encodeURIComponent(filter)}`);
      expectErrorBody(answer, filter);
      expect(answer.body.details, filter).toEqual([{ field: 'filter', message: expect.stringMatching(/expects a 32-bit integer/) }]);
      const gql = await server.graphql('query($f: String) { tasks(filter: $f) { totalElements } }', { f: filter });
      expect(gql.body.errors?.[0]?.extensions, `${filter}: ${gql.text}`).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    }
    // The edges of the range are still compared.
    const edges = `projectId==${project.id};priority>=-2147483648;priority<=2147483647`;
    const listed = await server.request('GET', `/api/tasks?filter=${encodeURIComponent(edges)}`);
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.totalElements).toBe(1);
  });
});

describe('a GraphQL request whose operationName is the empty string', () => {
  it('is 400 BAD_REQUEST like any operation name the document does not define (it was a 500: the query ran unnamed and Apollo found no operation)', async () => {
    for (const query of [
      '{ me { id } }',
      'query { me { id } }',
      'query A { me { id } }',
      'mutation { deleteLabel(id: "00000000-0000-4000-8000-000000000000") }',
    ]) {
      const answer = await server.request('POST', '/graphql', { body: { query, operationName: '' } });
      expect(answer.status, `${query}: ${answer.text}`).toBe(400);
      expect(answer.body.data, query).toBeUndefined();
      expect(answer.body.errors, query).toEqual([
        expect.objectContaining({ message: 'Unknown operation named "".', extensions: { code: 'BAD_REQUEST', status: 400 } }),
      ]);
    }
    // Without a name, or with the document's own, it runs.
    expect((await server.request('POST', '/graphql', { body: { query: 'query A { me { id } }', operationName: 'A' } })).status).toBe(200);
    expect((await server.request('POST', '/graphql', { body: { query: '{ me { id } }', operationName: null } })).status).toBe(200);
  });
});

describe('an analytics embed token asked for with models: null', () => {
  it('is minted for all configured models, as when models is left out (it was a 500: null was read as a list)', async () => {
    const embedded = await startServer({ analyticsEmbed: analyticsEmbedOptions() });
    try {
      const owner = await callersOf(() => embedded).newCaller('EmbedNull');
      await createOrganization(embedded, {}, owner.key);
      for (const body of [{ models: null }, {}, undefined]) {
        const answer = await embedded.request('POST', '/api/analytics/embed-token', { body, key: owner.key });
        expect(answer.status, `${JSON.stringify(body)}: ${answer.text}`).toBe(200);
        expect(answer.body.models).toEqual(['tasks']);
      }
      const gql = await embedded.graphql('mutation { mintAnalyticsEmbedToken(models: null) { models } }', undefined, owner.key);
      expect(gql.body, gql.text).toEqual({ data: { mintAnalyticsEmbedToken: { models: ['tasks'] } } });
    } finally {
      await embedded.close();
    }
  });
});
