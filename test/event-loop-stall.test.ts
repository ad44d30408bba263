import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrganization } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { Upstream } from './support/upstream';

/**
 * A stall of the event loop (every request of every tenant waits through one) is logged with the ids
 * of the requests that were running when it began, and counted in /metrics beside Node's own lag
 * gauges. The server runs in this process, so the test blocks the loop itself while a request is in flight.
 */

const logged = vi.hoisted(() => ({ lines: [] as string[] }));
vi.mock('../src/logging/logger', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/logging/logger')>();
  return { ...actual, logger: actual.createLogger({ write: (line: string) => void logged.lines.push(line) }, 'info') };
});

let server: TestServer;
let upstream: Upstream;

beforeAll(async () => {
  upstream = await Upstream.start();
  server = await startServer({ metricsPublic: true, eventLoopStallLogMs: 100, egress: { privateHostAllowlist: ['127.0.0.1'], timeoutMs: 1_500 } });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

function blockFor(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // Busy: nothing else runs in this process meanwhile.
  }
}

async function stallsCounted(): Promise<number> {
  const text = (await server.request('GET', '/metrics', { key: null })).text;
  const line = text.split('\n').find((l) => l.startsWith('event_loop_stall_seconds_count'));
  return Number(line?.split(' ')[1] ?? 'NaN');
}

function stallLines(): Record<string, any>[] {
  return logged.lines.map((line) => JSON.parse(line)).filter((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('event loop blocked for'));
}

describe('a stall of the event loop', () => {
  it('is logged with the request that was running and counted in /metrics; nothing under the threshold is', async () => {
    const org = await createOrganization(server);
    const bridge = await server.request('POST', '/api/service-bridges', {
      body: { organizationId: org.id, name: unique('Slow'), baseUrl: upstream.origin(), endpoints: [{ name: 'slow', path: '/slow' }] },
    });
    expect(bridge.status, bridge.text).toBe(201);
    const countedBefore = await stallsCounted();
    expect(countedBefore).toBeGreaterThanOrEqual(0);

    const requestId = unique('stall-culprit');
    const slowCall = server.request('GET', `/api/service-bridges/${bridge.body.id}/proxy/slow`, { headers: { 'x-request-id': requestId } });
    // The call is in flight once the upstream has it.
    for (let waited = 0; !upstream.received.some((r) => r.url === '/slow') && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    blockFor(400);
    await new Promise((r) => setTimeout(r, 120));
    const stall = stallLines().find((line) => line.lagMs >= 300);
    expect(stall).toMatchObject({ level: 40, msg: `event loop blocked for ${stall?.lagMs} ms` });
    expect(stall!.requestIds).toContain(requestId);
    expect(stall!.requests).toContainEqual({ requestId, method: 'GET', url: `/api/service-bridges/${bridge.body.id}/proxy/slow` });
    expect(await stallsCounted()).toBeGreaterThanOrEqual(countedBefore + 1);
    // Nothing shorter than the threshold is reported (a busy machine may add stalls of its own, never short ones).
    expect(stallLines().filter((line) => line.lagMs < 100)).toEqual([]);
    expect((await slowCall).status).toBe(504);
  });

  it("is exported beside Node's own event-loop lag gauges", async () => {
    const text = (await server.request('GET', '/metrics', { key: null })).text;
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds \d/m);
    expect(text).toMatch(/^# HELP event_loop_stall_seconds /m);
  });
});
