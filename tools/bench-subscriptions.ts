import './bench/env';
import '../src/env';
import 'reflect-metadata';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { call, pooled, type Api } from './bench/http';
import { percentile } from './bench/report';
import { exitWhenDone, onScratchServer } from './bench/scratch-server';

/**
 * `npm run bench:subscriptions`: BENCH_SUBSCRIBERS graphql-ws clients subscribed to `taskChanged` of
 * one project, on a scratch database, while BENCH_CHANGES tasks are created in it through the API,
 * BENCH_CONNECTIONS at a time (each create is one change: one notification, read again for each
 * subscriber). Two rounds: each subscriber a user of its own (every delivery is a read of its own), then
 * all of them one user (a change is read once for them all). Each reports the changes per second
 * delivered to every subscriber (from the first create to the last delivery), the deliveries per second,
 * and the latency of a delivery from the task's createdOn. Last, the same creates with no subscriber,
 * with the notifying trigger and with it disabled, twice each: what announcing costs a write.
 *
 * Environment (all optional): DATABASE_URL (default: the embedded PostgreSQL), BENCH_SUBSCRIBERS (100),
 * BENCH_CHANGES (300), BENCH_CONNECTIONS (10).
 */
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 100);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 300);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** How long a round may take before it is reported as incomplete. */
const ROUND_TIMEOUT_MS = 300_000;

const TASK_CHANGED = 'subscription($projectId: ID!) { taskChanged(projectId: $projectId) { id title changeSequence createdOn } }';

interface Subscriber {
  client: Client;
  /** Task ids received, with when. */
  received: Map<string, number>;
  onReceive?: () => void;
}

function subscribe(api: Api, key: string, projectId: string): Subscriber {
  const client = createClient({
    url: `${api.base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': key },
    retryAttempts: 0,
  });
  const subscriber: Subscriber = { client, received: new Map() };
  client.subscribe<{ taskChanged: { id: string } }>(
    { query: TASK_CHANGED, variables: { projectId } },
    {
      next: (result) => {
        if (result.data) subscriber.received.set(result.data.taskChanged.id, performance.timeOrigin + performance.now());
        subscriber.onReceive?.();
      },
      error: (error) => console.error('subscription failed', error),
      complete: () => undefined,
    },
  );
  return subscriber;
}

/** Resolves once `done` holds, checked whenever a subscriber receives something (or after `ms`, false). */
function whenAll(subscribers: Subscriber[], done: () => boolean, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => finish(false), ms);
    const finish = (result: boolean) => {
      clearTimeout(timer);
      for (const s of subscribers) s.onReceive = undefined;
      resolve(result);
    };
    const check = () => {
      if (done()) finish(true);
    };
    for (const s of subscribers) s.onReceive = check;
    check();
  });
}

/** Subscribers that are live: a probe task created until every one of them has received one. */
async function untilLive(api: Api, subscribers: Subscriber[], projectId: string): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    const probe = await call(api, 'POST', '/api/tasks', { projectId, title: 'probe' });
    if (await whenAll(subscribers, () => subscribers.every((s) => s.received.has(probe.id)), 2_000)) return;
  }
  throw new Error('the subscribers never all received a probe');
}

async function round(api: Api, label: string, keys: string[], projectId: string): Promise<void> {
  const subscribers = keys.map((key) => subscribe(api, key, projectId));
  try {
    await untilLive(api, subscribers, projectId);
    const created = new Map<string, number>();
    const started = performance.timeOrigin + performance.now();
    await pooled(CHANGES, CONNECTIONS, async (i) => {
      const task = await call(api, 'POST', '/api/tasks', { projectId, title: `change ${i}` });
      created.set(task.id, Date.parse(task.createdOn));
    });
    const written = performance.timeOrigin + performance.now();
    const complete = await whenAll(subscribers, () => subscribers.every((s) => [...created.keys()].every((id) => s.received.has(id))), ROUND_TIMEOUT_MS);
    const latencies: number[] = [];
    let last = 0;
    for (const s of subscribers) {
      for (const [id, createdOn] of created) {
        const at = s.received.get(id);
        if (at === undefined) continue;
        latencies.push(at - createdOn);
        last = Math.max(last, at);
      }
    }
    latencies.sort((a, b) => a - b);
    const seconds = (last - started) / 1000;
    console.log(
      `${label}: ${CHANGES} changes written in ${((written - started) / 1000).toFixed(2)} s (${CONNECTIONS} in flight), ` +
        `${complete ? 'all' : 'NOT all'} delivered to ${SUBSCRIBERS} subscribers after ${seconds.toFixed(2)} s: ` +
        `${(CHANGES / seconds).toFixed(0)} changes/s to every subscriber, ${(latencies.length / seconds).toFixed(0)} deliveries/s; ` +
        `delivery latency p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms`,
    );
  } finally {
    await Promise.all(subscribers.map((s) => s.client.dispose()));
  }
}

async function main(): Promise<void> {
  await onScratchServer('bench_subscriptions', async (api, orm) => {
    const organization = await call(api, 'POST', '/api/organizations', { name: 'Bench Live Org' });
    const project = await call(api, 'POST', '/api/projects', { organizationId: organization.id, name: 'Bench Live' });
    const team = await call(api, 'POST', '/api/teams', { organizationId: organization.id, name: 'Subscribers' });
    const keys: string[] = [];
    await pooled(SUBSCRIBERS, 10, async (i) => {
      const user = await call(api, 'POST', '/api/users', { email: `subscriber-${i}@bench.test` });
      await call(api, 'POST', '/api/team-members', { teamId: team.id, userId: user.id });
      keys[i] = (await call(api, 'POST', '/api/access-tokens', { name: `subscriber ${i}`, userId: user.id })).token;
    });
    console.log(`${SUBSCRIBERS} subscribers of taskChanged on one project; ${CHANGES} task creates per round; one server process\n`);
    await round(api, 'one user per subscriber', keys, project.id);
    await round(
      api,
      'one user for all',
      keys.map(() => keys[0]),
      project.id,
    );

    const writes = async (label: string) => {
      const started = performance.now();
      await pooled(CHANGES, CONNECTIONS, (i) => call(api, 'POST', '/api/tasks', { projectId: project.id, title: `unwatched ${i}` }));
      const seconds = (performance.now() - started) / 1000;
      console.log(`no subscriber, ${label}: ${CHANGES} creates in ${seconds.toFixed(2)} s: ${(CHANGES / seconds).toFixed(0)} creates/s`);
    };
    const triggers = (state: 'enable' | 'disable') =>
      orm.em
        .fork()
        .getConnection()
        .execute(`alter table task ${state} trigger task_announce_change; alter table platform_event ${state} trigger platform_event_announce_change`);
    // Alternated, so that neither state gains from running second.
    try {
      for (const state of ['enable', 'disable', 'enable', 'disable'] as const) {
        await triggers(state);
        await writes(state === 'enable' ? 'notifying trigger on ' : 'notifying trigger off');
      }
    } finally {
      await triggers('enable');
    }
  });
}

exitWhenDone(main());
