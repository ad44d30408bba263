import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookup } from 'node:dns/promises';
import type { HostResolver } from '../src/egress/egress-guard';
import { scratchDatabase, type ScratchDatabase } from './reliability/support/database';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { until } from './support/server-process';
import { startServer, unique, type TestServer } from './support/server';
import { WebhookReceiver } from './support/webhook-receiver';

/**
 * One organization's background work never delays another's: organization A floods the job queue with
 * slow webhook deliveries (its receiver answers 200, but only after a few seconds: they never fail) and
 * slow activities, organization B's next delivery still starts within 5 s, and A never holds more than
 * half of the workers. Also the endpoint cap (WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION) and what a delivery's
 * `lastError` may say. The suite has a database of its own, so that no other suite's worker runs its jobs.
 */

const WORKERS = 4;
/** How long A's receiver takes to answer each delivery. */
const SLOW_ANSWER_MS = 3_000;
const DEFAULT_MAX_ENDPOINTS = 20;

/** A host name that resolves to a private address; every other name as the system resolves it. */
const INTERNAL_HOST = 'internal.test';
const INTERNAL_ADDRESS = '10.0.0.7';
const resolve: HostResolver = async (hostname) =>
  hostname === INTERNAL_HOST ? [{ address: INTERNAL_ADDRESS, family: 4 }] : lookup(hostname, { all: true, verbatim: true });

let database: ScratchDatabase;
let server: TestServer;
let receiver: WebhookReceiver;
const { newCaller, rest } = callersOf(() => server);
let ownerA: Caller;
let ownerB: Caller;
let organizationA: Row;
let organizationB: string;

beforeAll(async () => {
  database = await scratchDatabase('platform_fair_workers');
  server = await startServer({
    databaseUrl: database.url,
    workerConcurrency: WORKERS,
    egress: { privateHostAllowlist: ['127.0.0.1'], resolve },
    // Long enough for A's slow answers; retries far off, so that a failed attempt stays as it failed.
    webhooks: { timeoutMs: SLOW_ANSWER_MS + 2_000, retryDelaysMs: [600_000] },
  });
  receiver = await WebhookReceiver.start();
  [ownerA, ownerB] = await Promise.all([newCaller('FairOwnerA'), newCaller('FairOwnerB')]);
  organizationA = await createOrganization(server, { name: unique('BusyOrg') }, ownerA.key);
  organizationB = (await createOrganization(server, { name: unique('QuietOrg') }, ownerB.key)).id;
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await server?.close();
  await database?.drop();
});

type Row = Record<string, any>;

/** A new endpoint of the organization at `path` of the receiver (or at `url`), listening to `eventTypes`. */
async function endpoint(owner: Caller, organizationId: string, path: string, eventTypes: string[], url = receiver.url(path)): Promise<Row> {
  return rest(owner, 'POST', '/api/webhook-endpoints', 201, { organizationId, url, eventTypes });
}

async function deliveriesOf(owner: Caller, endpointId: string): Promise<Row[]> {
  return (await rest(owner, 'GET', `/api/webhook-deliveries?pageSize=100&filter=${encodeURIComponent(`endpointId==${endpointId}`)}`, 200)).content;
}

describe('WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION', () => {
  function expectCapConflict(answer: { status: number; text: string; body: Row }): void {
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body).toMatchObject({ error: 'Conflict', status: 409 });
    expect(answer.body.message).toBe(
      `the organization already has ${DEFAULT_MAX_ENDPOINTS} webhook endpoints, the limit of WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION (${DEFAULT_MAX_ENDPOINTS}): delete an endpoint before creating another`,
    );
  }

  const countOf = async (owner: Caller, organizationId: string) =>
    (await rest(owner, 'GET', `/api/webhook-endpoints?pageSize=100&filter=${encodeURIComponent(`organizationId==${organizationId}`)}`, 200)).content.length;

  it('refuses the 21st endpoint of an organization with 409 naming the limit, on both faces; deleting one makes room; others are unaffected', async () => {
    // A has the 20 endpoints of the fairness test (made up to 20 when that did not run).
    for (let i = await countOf(ownerA, organizationA.id); i < DEFAULT_MAX_ENDPOINTS; i++) await endpoint(ownerA, organizationA.id, `/filler/${i}`, ['nothing']);
    expect(await countOf(ownerA, organizationA.id)).toBe(DEFAULT_MAX_ENDPOINTS);
    const body = { organizationId: organizationA.id, url: receiver.url('/one-too-many') };
    expectCapConflict(await server.request('POST', '/api/webhook-endpoints', { key: ownerA.key, body }));
    // Whoever asks: an administrator too.
    expectCapConflict(await server.request('POST', '/api/webhook-endpoints', { body }));
    const graphql = await server.graphql(
      `mutation($input: WebhookEndpointCreateRequest!) { createWebhookEndpoint(input: $input) { id } }`,
      { input: body },
      ownerA.key,
    );
    expect(graphql.body.errors?.[0]?.extensions, graphql.text).toMatchObject({ code: 'CONFLICT', status: 409 });
    expect(graphql.body.errors[0].message).toContain(`WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION (${DEFAULT_MAX_ENDPOINTS})`);
    expect(graphql.body.data ?? null).toBeNull();
    expect(await countOf(ownerA, organizationA.id)).toBe(DEFAULT_MAX_ENDPOINTS);

    // Another organization is not limited by A's endpoints.
    await endpoint(ownerB, organizationB, '/quiet-2', ['task_updated']);

    const [first] = (await rest(ownerA, 'GET', `/api/webhook-endpoints?pageSize=1&filter=${encodeURIComponent(`organizationId==${organizationA.id}`)}`, 200))
      .content;
    await rest(ownerA, 'DELETE', `/api/webhook-endpoints/${first.id}`, 204);
    await rest(ownerA, 'POST', '/api/webhook-endpoints', 201, body);
    expectCapConflict(await server.request('POST', '/api/webhook-endpoints', { key: ownerA.key, body }));
    expect(await countOf(ownerA, organizationA.id)).toBe(DEFAULT_MAX_ENDPOINTS);
  });

  it('lets concurrent creates in one organization not overshoot the limit', async () => {
    const owner = await newCaller('FairOwnerC');
    const organizationId = (await createOrganization(server, { name: unique('RacingOrg') }, owner.key)).id;
    const answers = await Promise.all(
      Array.from({ length: DEFAULT_MAX_ENDPOINTS + 5 }, (_, i) =>
        server.request('POST', '/api/webhook-endpoints', {
          key: owner.key,
          body: { organizationId, url: receiver.url(`/race/${i}`), eventTypes: ['nothing'] },
        }),
      ),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(DEFAULT_MAX_ENDPOINTS);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(5);
    expect(await countOf(owner, organizationId)).toBe(DEFAULT_MAX_ENDPOINTS);
  });
});

describe('a delivery’s lastError', () => {
  it('names the reason (refused by the egress policy, a timeout, a status) but never what a host name resolved to', async () => {
    const type = unique('reasons');
    const hooks = {
      private: await endpoint(ownerB, organizationB, '/private', [type], receiver.url('/private', INTERNAL_HOST)),
      loopback: await endpoint(ownerB, organizationB, '/loopback', [type], receiver.url('/loopback', 'localhost')),
      slow: await endpoint(ownerB, organizationB, '/hangs', [type]),
      failing: await endpoint(ownerB, organizationB, '/fails', [type]),
    };
    receiver.register('/hangs', hooks.slow.signingSecret, () => 'hang');
    receiver.register('/fails', hooks.failing.signingSecret, () => 503);
    await rest(ownerB, 'POST', '/api/events', 201, { organizationId: organizationB, eventType: type, eventDetail: {} });

    const settled = async (hook: Row) => {
      let delivery: Row | undefined;
      await until(`a first attempt to ${hook.url}`, async () => ((delivery = (await deliveriesOf(ownerB, hook.id))[0]), (delivery?.attempts ?? 0) > 0), 30_000);
      return delivery!;
    };
    const [refusedPrivate, refusedLoopback, timedOut, failed] = await Promise.all(Object.values(hooks).map(settled));
    expect(refusedPrivate).toMatchObject({
      status: 'FAILED',
      lastStatusCode: null,
      lastError: `refused by the egress policy: ${INTERNAL_HOST} resolves to a private address`,
    });
    expect(refusedLoopback).toMatchObject({
      status: 'FAILED',
      lastStatusCode: null,
      lastError: 'refused by the egress policy: localhost resolves to a loopback address',
    });
    expect(timedOut).toMatchObject({ status: 'RETRYING', lastStatusCode: null });
    expect(timedOut.lastError).toMatch(/^the upstream did not answer within \d+ s$/);
    expect(failed).toMatchObject({ status: 'RETRYING', lastStatusCode: 503, lastError: 'the endpoint answered 503' });
    for (const delivery of [refusedPrivate, refusedLoopback, timedOut, failed]) {
      expect(delivery.lastError).not.toContain(INTERNAL_ADDRESS);
      expect(delivery.lastError).not.toMatch(/127\.0\.0\.1|::1/);
    }
    // The request was never made to the refused targets.
    expect(receiver.to('/private')).toEqual([]);
    expect(receiver.to('/loopback')).toEqual([]);
  }, 60_000);
});
