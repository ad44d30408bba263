import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject, createTask } from '../support/fixtures';
import { startServer, unique, type Answer, type TestServer } from '../support/server';
import { expectErrorBody } from './support/answers';
import { byLoad, tally, type Tally } from './support/figures';

/**
 * Writes that race: optimistic locking keeps exactly one of many updates sent with the same
 * changeSequence and loses none; slugs derived at once stay distinct; a unique name taken at once
 * goes to one create, the others get 409.
 */

let server: TestServer;
let organizationId: string;
let projectId: string;
beforeAll(async () => {
  server = await startServer();
  organizationId = (await createOrganization(server)).id;
  projectId = (await createProject(server, organizationId)).id;
});
afterAll(() => server?.close());

/** Sends all requests at once; counts their statuses (a GraphQL answer's: its first error's, if any). */
async function all(counts: Tally, requests: (() => Promise<Answer>)[]): Promise<Answer[]> {
  const answers = await Promise.all(requests.map((send) => send()));
  for (const answer of answers) {
    counts.ran();
    counts.answered(answer.body?.errors?.[0]?.extensions?.status ?? answer.status);
  }
  return answers;
}

const statusesOf = (answers: Answer[]) => answers.map((a) => a.status).sort();
const times = <T>(n: number, make: (i: number) => T): T[] => Array.from({ length: n }, (_, i) => make(i));

describe('one row, many writers with the same changeSequence', () => {
  it("100 concurrent PUTs: exactly one 200, 99 × 409 with currentChangeSequence, and the row holds the 200's write", async ({ task }) => {
    const counts = tally(task);
    const row = await createTask(server, projectId, { title: 'contested' });
    let sequence: number = row.changeSequence;
    for (let round = 0; round < byLoad(1, 20); round++) {
      const answers = await all(
        counts,
        times(
          100,
          (i) => () => server.request('PUT', `/api/tasks/${row.id}`, { body: { title: `round ${round} writer ${i}`, priority: i, changeSequence: sequence } }),
        ),
      );
      const winners = answers.filter((a) => a.status === 200);
      expect(winners, `round ${round}: ${statusesOf(answers).join(' ')}`).toHaveLength(1);
      const losers = answers.filter((a) => a.status === 409);
      expect(losers, `round ${round}`).toHaveLength(99);
      for (const loser of losers) {
        expectErrorBody(loser, `round ${round} loser`);
        expect(loser.body.currentChangeSequence).toBe(sequence + 1);
      }
      // No lost update: the row is the winner's write, at the next changeSequence.
      const stored = await server.request('GET', `/api/tasks/${row.id}`);
      expect(stored.body).toMatchObject({ title: winners[0].body.title, priority: winners[0].body.priority, changeSequence: sequence + 1 });
      sequence += 1;
    }
    counts.note(`${byLoad(1, 20)} round(s) of 100 writers: 1 kept, 99 refused with 409 each time`);
  });

  it('REST and GraphQL writers at once: one wins, the others are refused with currentChangeSequence', async ({ task }) => {
    const counts = tally(task);
    const row = await createTask(server, projectId, { title: 'contested across adapters' });
    const mutation = 'mutation($id: ID!, $i: TaskUpdateRequest!) { updateTask(id: $id, input: $i) { title changeSequence } }';
    const answers = await all(counts, [
      ...times(25, (i) => () => server.request('PUT', `/api/tasks/${row.id}`, { body: { title: `rest ${i}`, changeSequence: row.changeSequence } })),
      ...times(25, (i) => () => server.graphql(mutation, { id: row.id, i: { title: `graphql ${i}`, changeSequence: row.changeSequence } })),
    ]);
    const restWins = answers.slice(0, 25).filter((a) => a.status === 200);
    const graphqlWins = answers.slice(25).filter((a) => a.body.data?.updateTask);
    expect(restWins.length + graphqlWins.length, statusesOf(answers).join(' ')).toBe(1);
    for (const refused of answers.slice(25).filter((a) => !a.body.data?.updateTask)) {
      expect(refused.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409, currentChangeSequence: row.changeSequence + 1 });
    }
    const winner = restWins[0]?.body.title ?? graphqlWins[0].body.data.updateTask.title;
    expect((await server.request('GET', `/api/tasks/${row.id}`)).body).toMatchObject({ title: winner, changeSequence: row.changeSequence + 1 });
  });
});

describe('creates at once', () => {
  const writers = byLoad(30, 200);

  it('of one derived slug (projects in an organization, organizations on the platform): all 201, each slug distinct, never a 5xx', async ({ task }) => {
    const counts = tally(task);
    const name = unique('Same Name');
    const projects = await all(
      counts,
      times(writers, () => () => server.request('POST', '/api/projects', { body: { name, organizationId } })),
    );
    expect(statusesOf(projects)).toEqual(times(writers, () => 201));
    const base = projects.map((p) => p.body.slug as string).sort((a, b) => a.length - b.length || a.localeCompare(b))[0];
    expect(new Set(projects.map((p) => p.body.slug))).toEqual(new Set([base, ...times(writers - 1, (i) => `${base}-${i + 1}`)]));

    // A slug sent explicitly gets its suffix the same way within an organization.
    const slug = unique('sent').toLowerCase();
    const sent = await all(
      counts,
      times(writers, (i) => () => server.request('POST', '/api/projects', { body: { name: `sent ${i}`, slug, organizationId } })),
    );
    expect(statusesOf(sent)).toEqual(times(writers, () => 201));
    expect(new Set(sent.map((p) => p.body.slug)).size).toBe(writers);

    const organizations = await all(
      counts,
      times(writers, () => () => server.request('POST', '/api/organizations', { body: { name } })),
    );
    expect(statusesOf(organizations)).toEqual(times(writers, () => 201));
    expect(new Set(organizations.map((o) => o.body.slug)).size).toBe(writers);
  });

  it('of one unique name (a model of the catalog, an organization slug sent, a label in an organization): one 201, the others 409', async ({ task }) => {
    const counts = tally(task);
    const cases: [string, (i: number) => Record<string, unknown>][] = [
      ['/api/models', () => ({ name: unique('model'), provider: 'p' })],
      ['/api/organizations', () => ({ name: 'Slug race', slug: unique('slug-race').toLowerCase() })],
      ['/api/labels', () => ({ name: unique('label'), organizationId })],
    ];
    for (const [path, make] of cases) {
      const body = make(0);
      const answers = await all(
        counts,
        times(writers, () => () => server.request('POST', path, { body })),
      );
      expect(statusesOf(answers), path).toEqual([201, ...times(writers - 1, () => 409)]);
      for (const refused of answers.filter((a) => a.status === 409)) expectErrorBody(refused, path);
    }
  });
});
