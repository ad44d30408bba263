import { lookup } from 'node:dns/promises';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ResolvedAddress } from '../src/egress/egress-guard';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';
import { rawRequest, Upstream } from './support/upstream';

/**
 * The service bridge proxy against a real upstream on 127.0.0.1: the proxy rules, secrets, and the
 * egress guard refusing every private address class before any connection. `allowing` lets 127.0.0.1
 * and localhost through (BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST); `strict` has no allowlist.
 */

/** Every line the server logs while this suite runs (the real logger's configuration, written here). */
const logged = vi.hoisted(() => ({ lines: [] as string[] }));
vi.mock('../src/logging/logger', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../src/logging/logger')>();
  return { ...actual, logger: actual.createLogger({ write: (line: string) => void logged.lines.push(line) }, 'trace') };
});

/** Test host names: private behind a public-looking name, mixed answers, and a resolver that rebinds. */
const resolved: string[] = [];
async function testResolver(hostname: string): Promise<ResolvedAddress[]> {
  resolved.push(hostname);
  switch (hostname) {
    case 'internal.test':
      return [{ address: '10.0.0.7', family: 4 }];
    case 'mixed.test':
      return [
        { address: '1.1.1.1', family: 4 },
        { address: '192.168.0.9', family: 4 },
      ];
    case 'rebind.test':
      // Public at first, then the upstream's own address: only a second lookup would reach it.
      return resolved.filter((h) => h === hostname).length === 1 ? [{ address: '1.2.3.4', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    default:
      return lookup(hostname, { all: true, verbatim: true });
  }
}

let allowing: TestServer;
let strict: TestServer;
let upstream: Upstream;
let org: { id: string; slug: string };
let outsider: Caller;
const { newCaller } = callersOf(() => allowing);

beforeAll(async () => {
  upstream = await Upstream.start();
  // One after the other: each start makes sure the bootstrap administrator exists.
  allowing = await startServer({ egress: { privateHostAllowlist: ['127.0.0.1', ' LOCALHOST '], resolve: testResolver, timeoutMs: 1_500 } });
  strict = await startServer({ egress: { resolve: testResolver, timeoutMs: 1_500 } });
  org = await createOrganization(allowing);
  outsider = await newCaller('BridgeOutsider');
});

afterAll(async () => {
  await Promise.all([allowing?.close(), strict?.close()]);
  await upstream?.close();
});

type Row = Record<string, any>;

async function createBridge(body: Row): Promise<Row> {
  const answer = await allowing.request('POST', '/api/service-bridges', { body: { organizationId: org.id, name: unique('Bridge'), ...body } });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/** A bridge on `baseUrl` with one endpoint `call` (GET `path`). */
function bridgeTo(baseUrl: string, path = '/echo', extra: Row = {}): Promise<Row> {
  return createBridge({ baseUrl, endpoints: [{ name: 'call', method: 'GET', path }], ...extra });
}

function proxy(
  server: TestServer,
  bridge: Row,
  endpoint = '/call',
  options: { method?: string; body?: unknown; key?: string | null; headers?: Record<string, string> } = {},
) {
  return server.request(options.method ?? 'GET', `/api/service-bridges/${bridge.id}/proxy${endpoint}`, options);
}

async function createSecret(name: string, value: string): Promise<void> {
  const answer = await allowing.request('POST', `/api/organizations/${org.id}/secrets`, { body: { name, value } });
  expect(answer.status, answer.text).toBe(201);
}

describe('the proxy', () => {
  it("passes the upstream's status, content type, end-to-end headers and body back, and drops hop-by-hop headers both ways", async () => {
    const bridge = await bridgeTo(upstream.origin(), '/status/418');
    const [seen] = await upstream.during(async () => {
      const answer = await rawRequest(`${allowing.url}/api/service-bridges/${bridge.id}/proxy/call`, {
        headers: {
          'x-api-key': allowing.adminKey,
          'x-caller': 'kept',
          connection: 'keep-alive, x-caller-hop',
          'x-caller-hop': 'dropped',
          te: 'trailers',
          'proxy-authorization': 'Basic cHJveHk6cHJveHk=',
        },
      });
      expect(answer.status, answer.text).toBe(418);
      expect(answer.headers['content-type']).toBe('text/x-teapot; charset=latin1');
      expect(answer.text).toBe('short and stout');
      expect(answer.headers['x-upstream']).toBe('yes');
      for (const dropped of ['proxy-authenticate', 'x-upstream-hop', 'set-cookie']) expect(answer.headers, dropped).not.toHaveProperty(dropped);
    });
    expect(seen.headers['x-caller']).toBe('kept');
    for (const dropped of ['x-caller-hop', 'te', 'proxy-authorization', 'x-api-key']) expect(seen.headers, dropped).not.toHaveProperty(dropped);
  });

  it("sends defaultHeaders and the endpoint's headers, and never the caller's credentials", async () => {
    const bridge = await createBridge({
      baseUrl: upstream.origin(),
      defaultHeaders: [
        { name: 'X-Tenant', value: 'acme' },
        { name: 'X-Both', value: 'default' },
      ],
      endpoints: [
        {
          name: 'call',
          method: 'GET',
          path: '/echo',
          headers: [
            { name: 'X-Both', value: 'endpoint' },
            { name: 'Accept', value: 'application/vnd.test+json' },
          ],
        },
      ],
    });
    const byKey = await upstream.during(async () => {
      const answer = await proxy(allowing, bridge, '/call', { headers: { 'x-access-token': 'legacy-token', cookie: 'session=abc' } });
      expect(answer.status, answer.text).toBe(200);
    });
    const basic = `Basic ${Buffer.from(`admin@localhost:${allowing.adminKey}`).toString('base64')}`;
    const byBasic = await upstream.during(async () => {
      const answer = await proxy(allowing, bridge, '/call', { key: null, headers: { authorization: basic } });
      expect(answer.status, answer.text).toBe(200);
    });
    for (const seen of [...byKey, ...byBasic]) {
      expect(seen.headers).toMatchObject({ 'x-tenant': 'acme', 'x-both': 'endpoint', accept: 'application/vnd.test+json' });
      for (const credential of ['x-api-key', 'x-access-token', 'authorization', 'cookie']) expect(seen.headers, credential).not.toHaveProperty(credential);
    }
  });

  it("calls baseUrl + path with the caller's query string, the endpoint's method (default the caller's) and the JSON body", async () => {
    const bridge = await createBridge({
      baseUrl: `${upstream.origin()}/`,
      endpoints: [
        { name: 'create', method: 'put', path: '/echo/items?fixed=1' },
        { name: 'any', path: 'echo/any' },
      ],
    });
    const created = await proxy(allowing, bridge, '/create?q=a%20b&tag=x&tag=y', { method: 'POST', body: { title: 'hello', n: 1 } });
    expect(created.status, created.text).toBe(200);
    expect(created.body).toMatchObject({ method: 'PUT', url: '/echo/items?fixed=1&q=a%20b&tag=x&tag=y', body: '{"title":"hello","n":1}' });
    expect(created.body.headers['content-type']).toBe('application/json');
    const patched = await proxy(allowing, bridge, '/any', { method: 'PATCH', body: [1, 2] });
    expect(patched.body).toMatchObject({ method: 'PATCH', url: '/echo/any', body: '[1,2]' });
  });

  it('answers 200 [] without calling the upstream when a required field is missing from both body and query; presence counts', async () => {
    const bridge = await createBridge({
      baseUrl: upstream.origin(),
      endpoints: [{ name: 'find', method: 'POST', path: '/echo', requestSchema: { type: 'object', required: ['customerId', 'region'] } }],
    });
    const skipped = await upstream.during(async () => {
      for (const [query, body] of [
        ['', { customerId: 'c' }],
        ['?customerId=c', {}],
        ['?other=1', { region: 'eu' }],
      ] as const) {
        const answer = await proxy(allowing, bridge, `/find${query}`, { method: 'POST', body });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
        expect(answer.body).toEqual([]);
      }
    });
    expect(skipped).toEqual([]);
    const called = await upstream.during(async () => {
      for (const [query, body] of [
        ['', { customerId: '', region: 0 }],
        ['?customerId=&region=', undefined],
        ['?region=eu', { customerId: false }],
      ] as const) {
        const answer = await proxy(allowing, bridge, `/find${query}`, { method: 'POST', body });
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toMatchObject({ method: 'POST' });
      }
    });
    expect(called).toHaveLength(3);
  });

  it("names the bridge's endpoints when the name is unknown (404, never a fallback) or left out of a bridge with several (400)", async () => {
    const several = await createBridge({
      baseUrl: upstream.origin(),
      endpoints: [
        { name: 'first', path: '/echo' },
        { name: 'second', path: '/echo' },
      ],
    });
    const calls = await upstream.during(async () => {
      const unknown = await proxy(allowing, several, '/third');
      expect(unknown.status, unknown.text).toBe(404);
      expect(unknown.body.message).toBe(`service bridge ${several.slug} has no endpoint "third" (its endpoints: first, second)`);
      const unnamed = await proxy(allowing, several, '');
      expect(unnamed.status, unnamed.text).toBe(400);
      expect(unnamed.body.message).toContain('first, second');
    });
    expect(calls).toEqual([]);
    const sole = await bridgeTo(upstream.origin(), '/echo/sole');
    const answer = await proxy(allowing, sole, '', { method: 'DELETE' });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body).toMatchObject({ method: 'GET', url: '/echo/sole' });
  });

  it('reads the bridge as its GET does: 400 malformed id, 404 unknown, 403 not yours', async () => {
    const bridge = await bridgeTo(upstream.origin());
    const calls = await upstream.during(async () => {
      expect((await allowing.request('GET', '/api/service-bridges/not-a-uuid/proxy/call')).status).toBe(400);
      expect((await allowing.request('GET', `/api/service-bridges/${randomUUID()}/proxy/call`)).status).toBe(404);
      expect((await proxy(allowing, bridge, '/call', { key: outsider.key })).status).toBe(403);
      expect((await proxy(allowing, bridge, '/call', { key: null })).status).toBe(401);
    });
    expect(calls).toEqual([]);
  });

  it('answers 504 when the upstream takes longer than the timeout', async () => {
    const answer = await proxy(allowing, await bridgeTo(upstream.origin(), '/slow'));
    expect(answer.status, answer.text).toBe(504);
    expect(answer.body).toMatchObject({ error: 'Gateway Timeout', status: 504, message: 'the upstream did not answer within 1.5 s' });
  });

  it('answers 502 for a body over 10 MB, declared or streamed, and passes one of exactly 10 MB', async () => {
    const limit = 10 * 1024 * 1024;
    for (const path of [`/bytes/${limit + 1}`, `/bytes/${limit + 1}?length=declared`]) {
      const answer = await proxy(allowing, await bridgeTo(upstream.origin(), path));
      expect(answer.status, path).toBe(502);
      expect(answer.body.message).toBe('the upstream answer is larger than 10 MB');
    }
    const exact = await proxy(allowing, await bridgeTo(upstream.origin(), `/bytes/${limit}`));
    expect(exact.status).toBe(200);
    expect(exact.text).toHaveLength(limit);
  });

  it('follows at most 5 redirects itself, relative ones included', async () => {
    const relative = await proxy(allowing, await bridgeTo(upstream.origin(), '/redirect?to=/echo/landed&status=307'));
    expect(relative.status, relative.text).toBe(200);
    expect(relative.body).toMatchObject({ url: '/echo/landed' });
    const hops = await upstream.during(async () => {
      const looping = await proxy(allowing, await bridgeTo(upstream.origin(), '/loop/0'));
      expect(looping.status).toBe(502);
      expect(looping.body.message).toBe('the upstream redirected more than 5 times');
    });
    expect(hops).toHaveLength(6);
  });
});

describe('secrets', () => {
  const value = `sk-${randomUUID()}`;
  const name = `BRIDGE_TOKEN_${Date.now()}`;
  let bridge: Row;

  beforeAll(async () => {
    await createSecret(name, value);
    bridge = await createBridge({
      baseUrl: upstream.origin(),
      defaultHeaders: [{ name: 'Authorization', value: `Bearer \${secrets.${name}}` }],
      endpoints: [
        { name: 'echo', method: 'POST', path: '/echo' },
        { name: 'away', method: 'GET', path: `/redirect?to=${encodeURIComponent(`${upstream.origin('localhost')}/echo/away`)}` },
        { name: 'missing', path: '/echo', headers: [{ name: 'X-Other', value: '${secrets.NOT_THERE}' }] },
      ],
    });
  });

  it('fills ${secrets.NAME} in at call time and never answers the value, even when the upstream echoes it', async () => {
    const [seen] = await upstream.during(async () => {
      const answer = await proxy(allowing, bridge, '/echo', { method: 'POST', body: { echo: true } });
      expect(answer.status, answer.text).toBe(200);
      expect(answer.text).not.toContain(value);
      expect(answer.body.headers.authorization).toBe('Bearer [REDACTED]');
    });
    expect(seen.headers.authorization).toBe(`Bearer ${value}`);
    const stored = await allowing.request('GET', `/api/service-bridges/${bridge.id}`);
    expect(stored.text).not.toContain(value);
  });

  it('does not carry a secret header to another origin on a redirect', async () => {
    const hops = await upstream.during(async () => {
      const answer = await proxy(allowing, bridge, '/away');
      expect(answer.status, answer.text).toBe(200);
    });
    expect(hops.map((h) => h.headers.host)).toEqual([`127.0.0.1:${upstream.port}`, `localhost:${upstream.port}`]);
    expect(hops[0].headers.authorization).toBe(`Bearer ${value}`);
    expect(hops[1].headers).not.toHaveProperty('authorization');
  });

  it('is 400 naming a secret the organization does not have, without calling the upstream', async () => {
    const calls = await upstream.during(async () => {
      const answer = await proxy(allowing, bridge, '/missing');
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.message).toBe('service bridge header X-Other names secret NOT_THERE, which this organization does not have');
    });
    expect(calls).toEqual([]);
  });

  it('refuses a header entry carrying secretRef on create and on update, naming the header', async () => {
    const base = { organizationId: org.id, name: unique('Refs'), baseUrl: upstream.origin() };
    const inDefaults = await allowing.request('POST', '/api/service-bridges', { body: { ...base, defaultHeaders: [{ name: 'X-Key', secretRef: name }] } });
    expect(inDefaults.status, inDefaults.text).toBe(400);
    expect(inDefaults.body.message).toContain('header X-Key carries secretRef');
    expect(inDefaults.body.details).toEqual([expect.objectContaining({ field: 'defaultHeaders[0].secretRef' })]);
    const inEndpoint = await allowing.request('POST', '/api/service-bridges', {
      body: {
        ...base,
        endpoints: [
          {
            name: 'e',
            path: '/',
            headers: [
              { name: 'X-Ok', value: 'v' },
              { name: 'X-Ref', value: '', secretRef: name },
            ],
          },
        ],
      },
    });
    expect(inEndpoint.status, inEndpoint.text).toBe(400);
    expect(inEndpoint.body.details).toEqual([
      expect.objectContaining({ field: 'endpoints[0].headers[1].secretRef', message: expect.stringContaining('header X-Ref') }),
    ]);

    const updated = await allowing.request('PUT', `/api/service-bridges/${bridge.id}`, {
      body: { defaultHeaders: [{ name: 'X-Key', value: 'v', secretRef: name }] },
    });
    expect(updated.status, updated.text).toBe(400);
    expect(updated.body.message).toContain('header X-Key carries secretRef');
    const graphql = await allowing.graphql('mutation($id: ID!, $input: ServiceBridgeUpdateRequest!) { updateServiceBridge(id: $id, input: $input) { id } }', {
      id: bridge.id,
      input: { endpoints: [{ name: 'e', headers: [{ name: 'X-Gql', secretRef: name }] }] },
    });
    expect(graphql.body.errors?.[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' }, message: expect.stringContaining('header X-Gql carries secretRef') });
  });

  it('never writes a secret to a log line, the access log included', () => {
    expect(logged.lines.length).toBeGreaterThan(0);
    // The access log's lines and the bridge's own are both captured.
    expect(logged.lines.some((line) => line.includes('/proxy/echo') && line.includes('"statusCode":200'))).toBe(true);
    expect(logged.lines.some((line) => line.includes('"service bridge call"'))).toBe(true);
    expect(logged.lines.filter((line) => line.includes(value))).toEqual([]);
  });
});

describe('the egress guard', () => {
  /** A call that must be refused with `reason`, before the upstream hears of it. */
  async function refused(server: TestServer, baseUrl: string, reason: string, path = '/echo'): Promise<void> {
    const bridge = await bridgeTo(baseUrl, path);
    const calls = await upstream.during(async () => {
      const answer = await proxy(server, bridge);
      expect(answer.status, `${baseUrl}: ${answer.text}`).toBe(400);
      expect(answer.body.message).toBe(`service bridge egress denied: ${reason}`);
    });
    expect(calls, baseUrl).toEqual([]);
  }

  it('refuses every private, special and metadata address literal, in any notation', async () => {
    const port = upstream.port;
    const cases: [string, string][] = [
      [`http://127.0.0.1:${port}`, '127.0.0.1 is a loopback address'],
      [`http://2130706433:${port}`, '127.0.0.1 is a loopback address'],
      [`http://0177.0.0.1:${port}`, '127.0.0.1 is a loopback address'],
      [`http://0x7f.0.0.1:${port}`, '127.0.0.1 is a loopback address'],
      [`http://[::ffff:127.0.0.1]:${port}`, '127.0.0.1 is a loopback address'],
      [`http://[::1]:${port}`, '::1 is a loopback address'],
      [`http://0.0.0.0:${port}`, '0.0.0.0 is an unspecified address'],
      ['http://10.1.2.3', '10.1.2.3 is a private address'],
      ['http://172.16.5.4', '172.16.5.4 is a private address'],
      ['http://192.168.1.1', '192.168.1.1 is a private address'],
      ['http://[fc00::1]', 'fc00::1 is a private (unique-local) address'],
      ['http://[fe80::1]', 'fe80::1 is a link-local address'],
      ['http://169.254.10.10', '169.254.10.10 is a link-local address'],
      ['http://100.64.0.1', '100.64.0.1 is a carrier-grade NAT address'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
      ['http://[fd00:ec2::254]', 'fd00:ec2::254 is a cloud metadata address'],
      ['http://100.100.100.200', '100.100.100.200 is a cloud metadata address'],
      ['http://metadata.google.internal', 'metadata.google.internal is a cloud metadata host'],
    ];
    for (const [baseUrl, reason] of cases) await refused(strict, baseUrl, reason);
    // The allowlist names host names: a literal is exempt only when written in the list.
    await refused(allowing, `http://[::1]:${port}`, '::1 is a loopback address');
    await refused(allowing, 'http://169.254.169.254', '169.254.169.254 is a cloud metadata address');
  });

  it('refuses a host name that resolves to a private address, checking every address it resolves to', async () => {
    await refused(strict, `http://internal.test:${upstream.port}`, 'internal.test resolves to 10.0.0.7, a private address');
    await refused(strict, 'http://mixed.test', 'mixed.test resolves to 192.168.0.9, a private address');
  });

  it('lets localhost through only when the allowlist names it (in any case)', async () => {
    await refused(strict, upstream.origin('localhost'), 'localhost resolves to 127.0.0.1, a loopback address');
    const bridge = await bridgeTo(upstream.origin('localhost'));
    const answer = await proxy(allowing, bridge);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.headers.host).toBe(`localhost:${upstream.port}`);
  });

  it('checks every redirect hop again: an allowed upstream cannot send the call to a private address', async () => {
    const port = upstream.port;
    for (const [to, reason] of [
      ['http://10.0.0.1/admin', '10.0.0.1 is a private address'],
      [`http://[::1]:${port}/echo`, '::1 is a loopback address'],
      [`http://internal.test:${port}/echo`, 'internal.test resolves to 10.0.0.7, a private address'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a cloud metadata address'],
    ]) {
      const bridge = await bridgeTo(upstream.origin(), `/redirect?to=${encodeURIComponent(to)}`);
      const hops = await upstream.during(async () => {
        const answer = await proxy(allowing, bridge);
        expect(answer.status, answer.text).toBe(400);
        expect(answer.body.message).toBe(`service bridge egress denied: ${reason}`);
      });
      expect(hops.map((h) => h.url)).toEqual([`/redirect?to=${encodeURIComponent(to)}`]);
    }
  });

  it('connects only to the address it checked: a resolver that rebinds to the upstream is never asked twice', async () => {
    const bridge = await bridgeTo(`http://rebind.test:${upstream.port}`);
    const calls = await upstream.during(async () => {
      const answer = await proxy(strict, bridge);
      // The checked public address does not answer here: unreachable (502) or silent (504).
      expect([502, 504], answer.text).toContain(answer.status);
    });
    expect(calls).toEqual([]);
    expect(resolved.filter((h) => h === 'rebind.test')).toHaveLength(1);
  });

  it('refuses other protocols', async () => {
    await refused(strict, 'ftp://files.example.com', 'ftp: is not an allowed protocol (http or https)');
  });
});
