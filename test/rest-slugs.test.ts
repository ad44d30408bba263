import 'reflect-metadata';
import { STATUS_CODES } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createProject } from './support/fixtures';
import { startServer, unique, type Answer, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const SLUG = /^[a-z0-9-]+$/;

function expectError(answer: Answer, status: number, mentions?: RegExp): void {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.body).toMatchObject({ error: STATUS_CODES[status], status });
  expect(typeof answer.body.message).toBe('string');
  if (mentions) expect(answer.body.message).toMatch(mentions);
}

/** A slug of exactly `length` characters, unique to this run. */
function slugOfLength(length: number): string {
  const base = unique('s').toLowerCase();
  return (base + 'x'.repeat(length)).slice(0, length);
}

const postOrganization = (body: Record<string, unknown>) => server.request('POST', '/api/organizations', { body: { name: unique('Org'), ...body } });

describe('organization slug', () => {
  it('accepts 3 and 100 characters', async () => {
    const three = Math.random().toString(36).slice(2, 5).padEnd(3, 'z');
    const short = await postOrganization({ slug: three });
    expect(short.status, short.text).toBe(201);
    expect(short.body.slug).toBe(three);
    const long = slugOfLength(100);
    const created = await postOrganization({ slug: long });
    expect(created.status, created.text).toBe(201);
    expect(created.body.slug).toBe(long);
  });

  it.each([[''], ['a'], ['ab']])('refuses the slug %j (under 3 characters) with 400 naming slug', async (slug) => {
    expectError(await postOrganization({ slug }), 400, /slug/);
  });

  it('refuses 101 characters with 400 naming slug', async () => {
    expectError(await postOrganization({ slug: slugOfLength(101) }), 400, /slug/);
  });

  it('lowercases the slug', async () => {
    const slug = unique('MixedCase').replace('MixedCase', 'Mixed-CASE');
    const answer = await postOrganization({ slug });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.slug).toBe(slug.toLowerCase());
    const fetched = await server.request('GET', `/api/organizations/${answer.body.id}`);
    expect(fetched.body.slug).toBe(slug.toLowerCase());
  });

  it.each([['has space'], ['under_score'], ['dot.ted'], ['slash/ed'], ['ümlaut'], ['emoji-😀'], ['tab\tbed'], ['plus+sign']])(
    'refuses %j with 400 naming slug',
    async (text) => {
      expectError(await postOrganization({ slug: `${unique('p')}-${text}` }), 400, /slug/);
    },
  );

  it('refuses a slug that is not a string with 400 naming slug', async () => {
    expectError(await postOrganization({ slug: 12345 }), 400, /slug/);
  });

  it('refuses a slug that is taken with 409, also in another letter case', async () => {
    const slug = unique('taken');
    expect((await postOrganization({ slug })).status).toBe(201);
    expectError(await postOrganization({ slug }), 409);
    expectError(await postOrganization({ slug: slug.toUpperCase() }), 409);
  });

  it('applies the same rules on update', async () => {
    const org = await createOrganization(server);
    const taken = await createOrganization(server);
    expectError(await server.request('PUT', `/api/organizations/${org.id}`, { body: { slug: 'ab' } }), 400, /slug/);
    expectError(await server.request('PUT', `/api/organizations/${org.id}`, { body: { slug: 'no spaces' } }), 400, /slug/);
    expectError(await server.request('PUT', `/api/organizations/${org.id}`, { body: { slug: slugOfLength(101) } }), 400, /slug/);
    expectError(await server.request('PUT', `/api/organizations/${org.id}`, { body: { slug: taken.slug } }), 409);
    const fresh = unique('Renamed-SLUG');
    const renamed = await server.request('PUT', `/api/organizations/${org.id}`, { body: { slug: fresh } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.slug).toBe(fresh.toLowerCase());
    expect(renamed.body.changeSequence).toBe(1);
  });

  it('re-saving an organization under its own slug (in any case) changes nothing', async () => {
    const org = await createOrganization(server);
    const same = await server.request('PUT', `/api/organizations/${org.id}`, { body: { slug: org.slug.toUpperCase() } });
    expect(same.status, same.text).toBe(200);
    expect(same.body.slug).toBe(org.slug);
    expect(same.body.changeSequence).toBe(0);
  });

  it('is derived from the name when omitted', async () => {
    const word = unique('acme').toLowerCase();
    const answer = await server.request('POST', '/api/organizations', { body: { name: `  ${word.toUpperCase()} Widgets & Co.  ` } });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.slug).toBe(`${word}-widgets-co`);
    expect(answer.body.slug).toMatch(SLUG);
  });

  it('derives distinct slugs for two organizations with the same name', async () => {
    const name = unique('Twin Org');
    const first = await server.request('POST', '/api/organizations', { body: { name } });
    const second = await server.request('POST', '/api/organizations', { body: { name } });
    expect(first.status, first.text).toBe(201);
    expect(second.status, second.text).toBe(201);
    expect(second.body.slug).not.toBe(first.body.slug);
    expect(second.body.slug.startsWith(first.body.slug)).toBe(true);
  });

  it('derives a valid slug (at most 100 characters) from a long name', async () => {
    const name = `${unique('Long')} ${'word '.repeat(40)}`.trim();
    expect(name.length).toBeGreaterThan(100);
    const answer = await server.request('POST', '/api/organizations', { body: { name } });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.slug.length).toBeGreaterThanOrEqual(3);
    expect(answer.body.slug.length).toBeLessThanOrEqual(100);
    expect(answer.body.slug).toMatch(SLUG);
  });
});

describe('project slug: unique within an organization', () => {
  let org: any;
  let other: any;

  beforeAll(async () => {
    org = await createOrganization(server);
    other = await createOrganization(server);
  });

  const post = (organizationId: string, body: Record<string, unknown>) =>
    server.request('POST', '/api/projects', { body: { name: unique('Project'), organizationId, ...body } });

  it('honours a slug sent on create when it is free, lowercased', async () => {
    const answer = await post(org.id, { slug: 'Honoured-Slug' });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.slug).toBe('honoured-slug');
  });

  it('gives a colliding sent slug the suffixes -1, -2', async () => {
    const slugs: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const answer = await post(org.id, { slug: 'alpha' });
      expect(answer.status, answer.text).toBe(201);
      slugs.push(answer.body.slug);
    }
    expect(slugs).toEqual(['alpha', 'alpha-1', 'alpha-2']);
  });

  it('gives a colliding slug sent in another case a suffix', async () => {
    await post(org.id, { slug: 'casey' });
    const answer = await post(org.id, { slug: 'CASEY' });
    expect(answer.body.slug).toBe('casey-1');
  });

  it('derives the slug from the name and suffixes it on collision', async () => {
    const slugs: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const answer = await server.request('POST', '/api/projects', { body: { name: 'Beta Project', organizationId: org.id } });
      expect(answer.status, answer.text).toBe(201);
      slugs.push(answer.body.slug);
    }
    expect(slugs).toEqual(['beta-project', 'beta-project-1', 'beta-project-2']);
  });

  it('suffixes a derived slug that collides with a sent one, and the reverse', async () => {
    expect((await post(org.id, { slug: 'gamma-ray' })).body.slug).toBe('gamma-ray');
    const derived = await server.request('POST', '/api/projects', { body: { name: 'Gamma Ray', organizationId: org.id } });
    expect(derived.body.slug).toBe('gamma-ray-1');
    expect((await post(org.id, { slug: 'gamma-ray' })).body.slug).toBe('gamma-ray-2');
  });

  it('does not count the same slug in another organization as a collision', async () => {
    const here = await post(org.id, { slug: 'shared-slug' });
    const there = await post(other.id, { slug: 'shared-slug' });
    expect(here.body.slug).toBe('shared-slug');
    expect(there.status, there.text).toBe(201);
    expect(there.body.slug).toBe('shared-slug');
    const derivedThere = await server.request('POST', '/api/projects', { body: { name: 'Beta Project', organizationId: other.id } });
    expect(derivedThere.body.slug).toBe('beta-project');
  });

  it('does not mistake a longer slug with the same start for a collision', async () => {
    expect((await post(org.id, { slug: 'delta-force' })).body.slug).toBe('delta-force');
    expect((await post(org.id, { slug: 'delta' })).body.slug).toBe('delta');
    expect((await post(org.id, { slug: 'delt' })).body.slug).toBe('delt');
  });

  it('suffixes a slug that a deleted project still holds instead of failing', async () => {
    const gone = await post(org.id, { slug: 'phoenix' });
    expect((await server.request('DELETE', `/api/projects/${gone.body.id}`)).status).toBe(204);
    const again = await post(org.id, { slug: 'phoenix' });
    expect(again.status, again.text).toBe(201);
    expect(again.body.slug).toMatch(/^phoenix(-\d+)?$/);
  });

  it('gives a renamed project (PUT with a colliding slug) a suffix', async () => {
    await post(org.id, { slug: 'epsilon' });
    await post(org.id, { slug: 'epsilon' }); // epsilon-1
    const mover = await createProject(server, org.id, { slug: 'zeta' });
    const renamed = await server.request('PUT', `/api/projects/${mover.id}`, { body: { slug: 'epsilon' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.slug).toBe('epsilon-2');
    expect(renamed.body.changeSequence).toBe(1);
    // zeta is free again.
    expect((await post(org.id, { slug: 'zeta' })).body.slug).toBe('zeta');
  });

  it('keeps a free slug on rename, lowercased', async () => {
    const project = await createProject(server, org.id, { slug: 'eta' });
    const renamed = await server.request('PUT', `/api/projects/${project.id}`, { body: { slug: 'Theta-Free' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.slug).toBe('theta-free');
  });

  it('changes nothing when a project is re-saved under its own slug', async () => {
    await post(org.id, { slug: 'iota' });
    const suffixed = await createProject(server, org.id, { slug: 'iota' });
    expect(suffixed.slug).toBe('iota-1');
    for (const slug of ['iota-1', 'IOTA-1']) {
      const same = await server.request('PUT', `/api/projects/${suffixed.id}`, { body: { slug } });
      expect(same.status, same.text).toBe(200);
      expect(same.body.slug).toBe('iota-1');
      expect(same.body.changeSequence).toBe(0);
      expect(same.body.updatedOn).toBe(suffixed.updatedOn);
    }
    const original = (await post(org.id, { slug: 'kappa' })).body;
    const echoed = await server.request('PUT', `/api/projects/${original.id}`, { body: { ...original } });
    expect(echoed.body.slug).toBe('kappa');
    expect(echoed.body.changeSequence).toBe(0);
  });

  it('keeps the slug when only the name changes', async () => {
    const project = await createProject(server, org.id, { name: 'Lambda' });
    expect(project.slug).toBe('lambda');
    const renamed = await server.request('PUT', `/api/projects/${project.id}`, { body: { name: 'Mu' } });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.slug).toBe('lambda');
    expect(renamed.body.name).toBe('Mu');
  });

  it('refuses a project slug that breaks the pattern with 400 naming slug', async () => {
    expectError(await post(org.id, { slug: 'not valid' }), 400, /slug/);
    expectError(await post(org.id, { slug: 'under_score' }), 400, /slug/);
    const project = await createProject(server, org.id);
    expectError(await server.request('PUT', `/api/projects/${project.id}`, { body: { slug: 'bad/slug' } }), 400, /slug/);
  });

  it('derives a valid slug from a name without letters or digits', async () => {
    const answer = await server.request('POST', '/api/projects', { body: { name: '!!! ???', organizationId: org.id } });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.slug).toMatch(SLUG);
    expect(answer.body.slug.length).toBeGreaterThan(0);
  });

  it('derives a slug of at most 100 characters from a long name', async () => {
    const answer = await server.request('POST', '/api/projects', { body: { name: 'n'.repeat(150), organizationId: org.id } });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.slug).toMatch(SLUG);
    expect(answer.body.slug.length).toBeLessThanOrEqual(100);
  });

  it('accepts a project with a long name echoed back as a PUT (rule 4)', async () => {
    const created = await server.request('POST', '/api/projects', { body: { name: 'q'.repeat(150), organizationId: org.id } });
    expect(created.status, created.text).toBe(201);
    const echoed = await server.request('PUT', `/api/projects/${created.body.id}`, { body: created.body });
    expect(echoed.status, echoed.text).toBe(200);
    expect(echoed.body).toEqual(created.body);
  });

  it('keeps a suffixed slug within 100 characters', async () => {
    const long = 'o'.repeat(100);
    expect((await post(org.id, { slug: long })).body.slug).toBe(long);
    const second = await post(org.id, { slug: long });
    expect(second.status, second.text).toBe(201);
    expect(second.body.slug).not.toBe(long);
    expect(second.body.slug).toMatch(SLUG);
    expect(second.body.slug.length).toBeLessThanOrEqual(100);
    const echoed = await server.request('PUT', `/api/projects/${second.body.id}`, { body: second.body });
    expect(echoed.status, echoed.text).toBe(200);
  });

  it('gives concurrent creates with the same slug distinct slugs', async () => {
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(org.id, { slug: 'rush' })));
    for (const answer of answers) expect(answer.status, answer.text).toBe(201);
    expect(new Set(answers.map((a) => a.body.slug))).toEqual(new Set(['rush', 'rush-1', 'rush-2', 'rush-3', 'rush-4']));
  });
});
