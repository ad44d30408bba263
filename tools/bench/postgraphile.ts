import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { postgraphile } from 'postgraphile';
import { makePgService } from 'postgraphile/adaptors/pg';
import { grafserv } from 'postgraphile/grafserv/node';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { jsonPgSmartTags } from 'postgraphile/utils';
import { answerParent, counter, findCaller, keyHash, pool, type Caller } from './baseline-kit';

/**
 * The PostGraphile baseline of `npm run bench`: PostGraphile 5 with its own preset (amber), serving the
 * scratch database's `public` tables from the same pool size as the server, in a child process
 * (bench/baseline-process.ts), on its plain Node HTTP server. It is what a team would pick instead of
 * writing the GraphQL side by hand; the bench sends it the GraphQL request that asks for what each read
 * case asks (cases.ts) and compares the rows it answers, not the JSON (the shapes differ).
 *
 * Callers: the x-api-key is looked up as the other baselines do (and cached as long). An administrator's
 * requests run as the pool's own user, unrestricted; a member's run as BENCH_RLS_ROLE with the member's
 * organizations in `jwt.claims.organizations`, which the row-level security policies of that role read
 * (set up by bench/rls.ts): PostGraphile then wraps each request in a transaction that sets both, as it
 * does for any JWT-authenticated caller.
 */

const ROLE = process.env.BENCH_RLS_ROLE;

// Every statement PostGraphile sends goes through a client of this pool: count them where they are sent.
pool.on('connect', (client: pg.PoolClient) => {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    counter.statements += 1;
    const first = args[0] as string | { text?: string; name?: string };
    counter.recorded?.push(typeof first === 'string' ? { text: first, named: false } : { text: first.text ?? '', named: Boolean(first.name) });
    return query(...args);
  };
});

const KEY_CACHE_MS = 30_000;
const callers = new Map<string, { caller: Caller | undefined; until: number }>();

/** The caller of an API key, looked up once and remembered for 30 s (as the server and the other baselines do). */
async function callerOfKey(key: string): Promise<Caller | undefined> {
  const cached = callers.get(key);
  if (cached && cached.until > Date.now()) return cached.caller;
  const caller = await findCaller(keyHash(key));
  callers.set(key, { caller, until: Date.now() + KEY_CACHE_MS });
  return caller;
}

/** The settings of a request: none for an administrator, the member's role and organizations otherwise. */
async function pgSettings(key: string | undefined): Promise<Record<string, string> | null> {
  const caller = key ? await callerOfKey(key) : undefined;
  if (!caller) throw new Error('unknown API key');
  if (caller.admin) return null;
  if (!ROLE) throw new Error('BENCH_RLS_ROLE is not set: members cannot be served');
  return { role: ROLE, 'jwt.claims.organizations': caller.organizations.join(',') };
}

/**
 * Amber offers `condition` arguments on indexed columns only; the liveness flags the server filters on
 * (archived, deleted, parent_hidden) may be in no index of their own, so they are made filterable the way
 * a PostGraphile user would, with a smart tag. Nothing else is changed from the preset.
 */
const filterable = { tags: { behavior: '+filterBy' } };
const LIVENESS_CONDITIONS = jsonPgSmartTags({
  version: 1,
  config: {
    class: {
      organization: { attribute: { archived: filterable } },
      project: { attribute: { deleted: filterable, parent_hidden: filterable } },
      task: { attribute: { deleted: filterable, parent_hidden: filterable } },
    },
  },
});

const preset: GraphileConfig.Preset = {
  extends: [PostGraphileAmberPreset],
  plugins: [LIVENESS_CONDITIONS],
  pgServices: [makePgService({ pool, schemas: ['public'] })],
  grafserv: { graphqlPath: '/graphql', graphiql: false, watch: false },
  grafast: {
    context: async (requestContext) => {
      const key = requestContext.node?.req.headers['x-api-key'];
      return { pgSettings: await pgSettings(typeof key === 'string' ? key : undefined) };
    },
  },
};

async function main(): Promise<void> {
  const instance = postgraphile(preset);
  const serv = instance.createServ(grafserv);
  const server = createServer();
  await serv.addTo(server);
  // Built before the first request, as a deployed PostGraphile would be: startup is not measured.
  await instance.getSchema();
  server.listen(0, '127.0.0.1', () => process.send?.({ type: 'ready', port: (server.address() as AddressInfo).port }));
  answerParent(async () => {
    server.closeAllConnections();
    server.close();
    // Releases the server (grafserv) too.
    await instance.release();
    await pool.end().catch(() => undefined);
    process.exit(0);
  });
}

main().catch((error: unknown) => {
  console.error('postgraphile:', error);
  process.exit(1);
});
