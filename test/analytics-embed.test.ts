import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportPKCS8, generateKeyPair, jwtVerify, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readAnalyticsEmbedConfig, type AnalyticsEmbedOptions } from '../src/config/analytics-embed';
import { loadConfig } from '../src/config/config';
import { loadConfigFile } from '../src/config/config-file';
import { logger } from '../src/logging/logger';
import { callersOf, type Caller } from './support/callers';
import { createOrganization } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Analytics embed tokens (docs/operations.md): the `analyticsEmbed` block of
 * CONFIG_FILE, the RS256 tokens of POST /api/analytics/embed-token and mintAnalyticsEmbedToken.
 */

const folder = mkdtempSync(join(tmpdir(), 'embed-config-'));

function file(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

const YAML_BLOCK = `# settings
analyticsEmbed:
  enabled: true
  issuer: https://platform.example.test
  audience: analytics
  keyId: embed-1
  tokenTtlSeconds: 600
  models: [orders, invoices]
  objects:
    - dashboard:12
`;

const EXPECTED = {
  enabled: true,
  issuer: 'https://platform.example.test',
  audience: 'analytics',
  keyId: 'embed-1',
  tokenTtlSeconds: 600,
  models: ['orders', 'invoices'],
  objects: ['dashboard:12'],
  rowFilterField: 'org_slug',
};

describe('CONFIG_FILE', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads the analyticsEmbed block from YAML and from JSON alike, rowFilterField defaulting to org_slug', () => {
    const yaml = loadConfigFile(file('platform.config.yaml', YAML_BLOCK));
    expect(readAnalyticsEmbedConfig(yaml.analyticsEmbed)).toEqual(EXPECTED);
    const { rowFilterField: _default, ...written } = EXPECTED;
    const json = loadConfigFile(file('platform.config.json', JSON.stringify({ analyticsEmbed: written })));
    expect(readAnalyticsEmbedConfig(json.analyticsEmbed)).toEqual(EXPECTED);
  });

  it('is read by loadConfig with the key from ANALYTICS_EMBED_SIGNING_KEY_PEM', () => {
    vi.stubEnv('CONFIG_FILE', file('loaded.yml', YAML_BLOCK.replace('tokenTtlSeconds: 600', 'rowFilterField: tenant')));
    vi.stubEnv('ANALYTICS_EMBED_SIGNING_KEY_PEM', 'pem text');
    const config = loadConfig();
    expect(config.analyticsEmbed).toEqual({ ...EXPECTED, tokenTtlSeconds: 900, rowFilterField: 'tenant' });
    expect(config.analyticsEmbedSigningKeyPem).toBe('pem text');
  });

  it('without CONFIG_FILE and without ./platform.config.yaml, or without the block, the minter is disabled', () => {
    vi.stubEnv('CONFIG_FILE', '');
    expect(loadConfig().analyticsEmbed).toEqual({ enabled: false });
    expect(readAnalyticsEmbedConfig(loadConfigFile(file('other.yaml', 'somethingElse: 1\n')).analyticsEmbed)).toEqual({ enabled: false });
    expect(readAnalyticsEmbedConfig(loadConfigFile(file('empty.json', '')).analyticsEmbed)).toEqual({ enabled: false });
    expect(readAnalyticsEmbedConfig({ enabled: false, issuer: 7 })).toEqual({ enabled: false });
  });

  it('refuses an unreadable or malformed file, and a malformed enabled block, naming the problem', () => {
    expect(() => loadConfigFile(join(folder, 'missing.yaml'))).toThrow(/CONFIG_FILE .*missing\.yaml: cannot be read \(ENOENT\)/);
    expect(() => loadConfigFile(file('bad.json', '{"analyticsEmbed": '))).toThrow(/not valid JSON/);
    expect(() => loadConfigFile(file('bad.yaml', 'analyticsEmbed: [unclosed\n'))).toThrow(/not valid YAML/);
    expect(() => loadConfigFile(file('list.yaml', '- a\n- b\n'))).toThrow(/must be a mapping/);
    const enabled = { enabled: true, issuer: 'i', audience: 'a', keyId: 'k' };
    expect(() => readAnalyticsEmbedConfig({ ...enabled, issuer: undefined })).toThrow('analyticsEmbed.issuer is required when enabled');
    expect(() => readAnalyticsEmbedConfig({ ...enabled, models: 'orders' })).toThrow('analyticsEmbed.models must be a list of non-blank texts');
    expect(() => readAnalyticsEmbedConfig({ ...enabled, tokenTtlSeconds: -5 })).toThrow(/analyticsEmbed.tokenTtlSeconds must be a positive/);
    expect(() => readAnalyticsEmbedConfig({ ...enabled, enabled: 'yes' })).toThrow('analyticsEmbed.enabled must be true or false');
    expect(() => readAnalyticsEmbedConfig('on')).toThrow('analyticsEmbed must be a mapping');
  });
});

const ISSUER = 'https://platform.example.test';
const AUDIENCE = 'analytics-service';
const KEY_ID = 'embed-key-1';
const MODELS = ['orders', 'invoices', 'tickets'];
const OBJECTS = ['dashboard:7', 'question:12'];
const EMBED_TOKEN = '/api/analytics/embed-token';
const MINT = 'mutation Mint($models: [String!]) { mintAnalyticsEmbedToken(models: $models) { token expiresAt models orgs } }';

/** The block as CONFIG_FILE would hold it, read by the same reader. */
function embedConfig(block: Record<string, unknown> = {}) {
  return readAnalyticsEmbedConfig({ enabled: true, issuer: ISSUER, audience: AUDIENCE, keyId: KEY_ID, models: MODELS, objects: OBJECTS, ...block });
}

let publicKey: CryptoKey;
let privateKeyPem: string;
/** tokenTtlSeconds 3600 (capped), rowFilterField left to its default. */
let server: TestServer;
/** tokenTtlSeconds 60, rowFilterField `tenant`. */
let shortServer: TestServer;
const { newCaller, rest } = callersOf(() => server);
let member: Caller;
let loner: Caller;
let adminId: string;
let orgA: { id: string; slug: string };
let orgB: { id: string; slug: string };
let orgOther: { id: string; slug: string };
let orgArchived: { id: string; slug: string };

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  publicKey = pair.publicKey;
  privateKeyPem = await exportPKCS8(pair.privateKey);
  server = await startServer({ analyticsEmbed: { config: embedConfig({ tokenTtlSeconds: 3600 }), signingKeyPem: privateKeyPem } });
  shortServer = await startServer({ analyticsEmbed: { config: embedConfig({ tokenTtlSeconds: 60, rowFilterField: 'tenant' }), signingKeyPem: privateKeyPem } });

  const owner = await newCaller('EmbedOwner');
  [member, loner] = await Promise.all([newCaller('EmbedMember'), newCaller('EmbedLoner')]);
  [orgA, orgB, orgOther, orgArchived] = await Promise.all(
    ['EmbedA', 'EmbedB', 'EmbedOther', 'EmbedArchived'].map((name) => createOrganization(server, { name: unique(name) }, owner.key)),
  );
  // The member reaches A, B and (until it is archived) Archived through teams; Other only the owner.
  for (const organization of [orgA, orgB, orgArchived]) {
    const team = await rest(owner, 'POST', '/api/teams', 201, { name: unique('Analysts'), organizationId: organization.id });
    await rest(owner, 'POST', '/api/team-members', 201, { teamId: team.id, userId: member.id });
  }
  await rest(owner, 'DELETE', `/api/organizations/${orgArchived.id}`, 204);
  adminId = (await rest(null, 'GET', '/api/account/me', 200)).id;
});
afterAll(async () => {
  await Promise.all([server?.close(), shortServer?.close()]);
});

/** The token verified with the public key (signature, RS256, issuer, audience, expiry): its header and claims. */
async function verified(token: string) {
  const { payload, protectedHeader } = await jwtVerify(token, publicKey, { issuer: ISSUER, audience: AUDIENCE, algorithms: ['RS256'] });
  return {
    header: protectedHeader,
    claims: payload as JWTPayload & { orgs: string[]; models: string[]; objects: string[]; rowFilters: Record<string, Record<string, string[]>> },
  };
}

/** POST /api/analytics/embed-token as `key` on `on`, answering 200: the answer and its verified token. */
async function mint(key: string, body?: unknown, on: TestServer = server) {
  const answer = await on.request('POST', EMBED_TOKEN, { body, key });
  expect(answer.status, answer.text).toBe(200);
  return { answer: answer.body as { token: string; expiresAt: string; models: string[]; orgs: string[] }, ...(await verified(answer.body.token)) };
}

const sorted = (slugs: string[]) => [...slugs].sort();

describe('POST /api/analytics/embed-token', () => {
  it("answers an RS256 token with kid whose claims grant every configured model, row-filtered to the caller's organizations", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { answer, header, claims } = await mint(member.key);
    const orgs = sorted([orgA.slug, orgB.slug]);
    expect(Object.keys(answer).sort()).toEqual(['expiresAt', 'models', 'orgs', 'token']);
    expect(answer).toMatchObject({ models: MODELS, orgs });
    expect(header).toMatchObject({ alg: 'RS256', kid: KEY_ID });
    expect(claims).toMatchObject({ iss: ISSUER, aud: AUDIENCE, sub: member.id, models: MODELS, objects: OBJECTS, orgs });
    expect(claims.rowFilters).toEqual({ orders: { org_slug: orgs }, invoices: { org_slug: orgs }, tickets: { org_slug: orgs } });
    expect(claims.iat).toBeGreaterThanOrEqual(before);
    expect(claims.iat).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(answer.expiresAt).toBe(new Date(claims.exp! * 1000).toISOString());
  });

  it('caps the lifetime at 15 minutes whatever tokenTtlSeconds says, and keeps a shorter one', async () => {
    const capped = (await mint(member.key)).claims;
    expect(capped.exp! - capped.iat!).toBe(900);
    const short = await mint(member.key, undefined, shortServer);
    expect(short.claims.exp! - short.claims.iat!).toBe(60);
    const orgs = sorted([orgA.slug, orgB.slug]);
    expect(short.claims.rowFilters.orders).toEqual({ tenant: orgs });
  });

  it('takes organizations from team memberships only: an orgs field in the body changes nothing', async () => {
    const { answer, claims } = await mint(member.key, { orgs: [orgOther.slug], models: ['orders'], rowFilters: { orders: { org_slug: [orgOther.slug] } } });
    const orgs = sorted([orgA.slug, orgB.slug]);
    expect(answer.orgs).toEqual(orgs);
    expect(claims.orgs).toEqual(orgs);
    expect(claims.rowFilters).toEqual({ orders: { org_slug: orgs } });
    expect(JSON.stringify(claims)).not.toContain(orgOther.slug);
    expect(claims.orgs).not.toContain(orgArchived.slug);
  });

  it('gives a platform administrator every live organization, also those they are not a member of, never an archived one', async () => {
    const { claims } = await mint(server.adminKey);
    expect(claims.sub).toBe(adminId);
    expect(claims.orgs).toEqual(expect.arrayContaining([orgA.slug, orgB.slug, orgOther.slug]));
    expect(claims.orgs).not.toContain(orgArchived.slug);
    const rows = await server.orm.em.getConnection().execute<{ slug: string }[]>('select slug from organization where archived is not true');
    const live = new Set(rows.map((r) => r.slug));
    expect(claims.orgs.filter((slug) => !live.has(slug))).toEqual([]);
    expect(claims.rowFilters.orders.org_slug).toEqual(claims.orgs);
  });

  it('grants a subset of the configured models on request, each once', async () => {
    const { answer, claims } = await mint(member.key, { models: ['tickets', 'orders', 'tickets'] });
    expect(answer.models).toEqual(['tickets', 'orders']);
    expect(claims.models).toEqual(['tickets', 'orders']);
    expect(Object.keys(claims.rowFilters)).toEqual(['tickets', 'orders']);
    expect(claims.objects).toEqual(OBJECTS);
  });

  it('refuses an unknown model with 400 naming models and the model', async () => {
    const unknown = await server.request('POST', EMBED_TOKEN, { body: { models: ['orders', 'salaries'] }, key: member.key });
    expect(unknown.status, unknown.text).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'Bad Request', status: 400 });
    expect(unknown.body.message).toMatch(/^models: /);
    expect(unknown.body.message).toContain('"salaries"');
    expect(unknown.body.details).toEqual([{ field: 'models', message: expect.stringContaining('salaries') }]);
    for (const models of ['orders', [1], []]) {
      const wrong = await server.request('POST', EMBED_TOKEN, { body: { models }, key: member.key });
      expect(wrong.status, wrong.text).toBe(400);
      expect(wrong.body.message).toMatch(/^models: /);
    }
  });

  it('refuses a caller in no organization with 403', async () => {
    const answer = await server.request('POST', EMBED_TOKEN, { key: loner.key });
    expect(answer.status, answer.text).toBe(403);
    expect(answer.body).toMatchObject({ error: 'Forbidden', status: 403 });
  });

  it('requires credentials', async () => {
    expect((await server.request('POST', EMBED_TOKEN, { key: null })).status).toBe(401);
  });

  it('signs with the configured key alone: another key does not verify the token', async () => {
    const { answer } = await mint(member.key);
    const other = await generateKeyPair('RS256');
    await expect(jwtVerify(answer.token, other.publicKey)).rejects.toThrow();
  });
});

describe('mintAnalyticsEmbedToken (GraphQL)', () => {
  it('answers the same token as REST', async () => {
    const data = await server.graphqlData(MINT, { models: ['invoices'] }, member.key);
    const minted = data.mintAnalyticsEmbedToken;
    const orgs = sorted([orgA.slug, orgB.slug]);
    expect(minted).toMatchObject({ models: ['invoices'], orgs });
    const { header, claims } = await verified(minted.token);
    expect(header.kid).toBe(KEY_ID);
    expect(claims).toMatchObject({ sub: member.id, models: ['invoices'], orgs, rowFilters: { invoices: { org_slug: orgs } } });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect(minted.expiresAt).toBe(new Date(claims.exp! * 1000).toISOString());
    const all = (await server.graphqlData(MINT, {}, member.key)).mintAnalyticsEmbedToken;
    expect(all.models).toEqual(MODELS);
  });

  it('answers BAD_REQUEST for an unknown model and FORBIDDEN for a caller in no organization', async () => {
    const unknown = await server.graphql(MINT, { models: ['salaries'] }, member.key);
    expect(unknown.body.errors?.[0]?.extensions?.code, unknown.text).toBe('BAD_REQUEST');
    expect(unknown.body.errors?.[0]?.message).toContain('salaries');
    const loneAnswer = await server.graphql(MINT, {}, loner.key);
    expect(loneAnswer.body.errors?.[0]?.extensions?.code, loneAnswer.text).toBe('FORBIDDEN');
  });
});

describe('503 when tokens cannot be signed', () => {
  const pkcs8 = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }).toString();
  const smallRsaKey = () => pkcs8(generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey);
  const ecKey = () => pkcs8(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey);
  const cases: [string, () => AnalyticsEmbedOptions | undefined, RegExp][] = [
    ['no analyticsEmbed settings at all', () => undefined, /does not enable/],
    ['the block disabled (a key set)', () => ({ config: readAnalyticsEmbedConfig({ enabled: false }), signingKeyPem: privateKeyPem }), /does not enable/],
    ['the key missing', () => ({ config: embedConfig() }), /ANALYTICS_EMBED_SIGNING_KEY_PEM is not set/],
    [
      'the key garbage',
      () => ({ config: embedConfig(), signingKeyPem: '-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n' }),
      /not a usable RS256 private key/,
    ],
    ['the key not PEM at all', () => ({ config: embedConfig(), signingKeyPem: 'hunter2' }), /not a usable RS256 private key/],
    ['an RSA key too small to sign RS256', () => ({ config: embedConfig(), signingKeyPem: smallRsaKey() }), /not a usable RS256 private key/],
    ['an EC key', () => ({ config: embedConfig(), signingKeyPem: ecKey() }), /not a usable RS256 private key/],
  ];

  it.each(cases)('%s: the server starts, says why once, and answers 503 on every call (REST and GraphQL)', async (_name, options, reason) => {
    const said = [vi.spyOn(logger, 'info'), vi.spyOn(logger, 'error')];
    const unavailable = await startServer({ analyticsEmbed: options() });
    try {
      const lines = said.flatMap((spy) => spy.mock.calls.map((call) => String(call[0]))).filter((line) => line.includes('analytics embed tokens'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(reason);
      expect(lines[0]).not.toContain('bm90IGEga2V5');
      expect(lines[0]).not.toContain('hunter2');

      expect((await unavailable.request('GET', '/health', { key: null })).status).toBe(200);
      for (const body of [undefined, { models: ['orders'] }, { models: ['unknown-model'] }]) {
        const answer = await unavailable.request('POST', EMBED_TOKEN, { body });
        expect(answer.status, answer.text).toBe(503);
        expect(answer.body).toMatchObject({ error: 'Service Unavailable', status: 503 });
      }
      const graphql = await unavailable.graphql(MINT, {});
      expect(graphql.body.errors?.[0]?.extensions?.code, graphql.text).toBe('SERVICE_UNAVAILABLE');
      const after = said.flatMap((spy) => spy.mock.calls.map((call) => String(call[0]))).filter((line) => line.includes('analytics embed tokens'));
      expect(after).toHaveLength(1);
    } finally {
      said.forEach((spy) => spy.mockRestore());
      await unavailable.close();
    }
  });
});
