import { createPublicKey } from 'node:crypto';
import { LOG_LEVELS, type LogLevel } from '../logging/levels';
import { DEFAULT_POOL_MODE, POOL_MODES, type PoolMode } from './database-pool';
import * as defaults from './defaults';
import { InvalidVariable } from './invalid-configuration';
import { parseTrustProxy, type TrustProxy } from './trust-proxy';

/** Where variables are read from: the process's environment unless a test or a tool says otherwise. */
export type Environment = Record<string, string | undefined>;

/**
 * One environment variable of the server. This list is the one place that names them: the configuration
 * reads them through it, and .env.example and docs/configuration.md are checked against it (name and
 * default) by the tests.
 */
export interface Variable<T> {
  readonly name: string;
  /**
   * The default as a value (`8080`), written as such in .env.example (`# PORT=8080`) and in the
   * documentation's table; absent when there is none or it is not one value (derived from another
   * variable, or a library's own).
   */
  readonly default?: string;
  /** What it sets, in one line. */
  readonly description: string;
  /** Its value in `env`, parsed; a value it cannot take throws InvalidVariable, naming it and what it may be. */
  read(env?: Environment): T;
}

/** An empty value is no value: `PORT=` in an environment file means the default, as it always has. */
function rawOf(env: Environment, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

function variable<T>(name: string, description: string, parse: (raw: string | undefined) => T, defaultValue?: number | string): Variable<T> {
  return {
    name,
    description,
    ...(defaultValue === undefined ? {} : { default: String(defaultValue) }),
    read: (env = process.env) => parse(rawOf(env, name)),
  };
}

/** A whole number from `min` to `max` (no upper bound when absent). */
function integer(name: string, description: string, fallback: number, min: number, max?: number): Variable<number> {
  const allowed = max !== undefined ? `an integer from ${min} to ${max}` : min === 1 ? 'a positive integer' : `an integer of at least ${min}`;
  return variable(
    name,
    description,
    (raw) => {
      if (raw === undefined) return fallback;
      const value = Number(raw.trim());
      if (raw.trim() === '' || !Number.isInteger(value) || value < min || (max !== undefined && value > max)) throw new InvalidVariable(name, allowed, raw);
      return value;
    },
    fallback,
  );
}

/** `1`/`true` on, `0`/`false`/unset off; anything else is a mistake, not a setting. */
function flag(name: string, description: string): Variable<boolean> {
  return variable(
    name,
    description,
    (raw) => {
      const value = (raw ?? '').trim().toLowerCase();
      if (value === '' || value === '0' || value === 'false') return false;
      if (value === '1' || value === 'true') return true;
      throw new InvalidVariable(name, '1 or 0 (true or false)', raw);
    },
    0,
  );
}

/** One of `values`, as written (case included). */
function choice<V extends string>(name: string, description: string, values: readonly V[], fallback: V): Variable<V> {
  return variable(
    name,
    description,
    (raw) => {
      if (raw === undefined) return fallback;
      const value = raw.trim();
      if (!(values as readonly string[]).includes(value)) throw new InvalidVariable(name, `one of ${values.join(', ')}`, raw);
      return value as V;
    },
    fallback,
  );
}

/** Any text; `check` answers what it must be when the text cannot be used (the value is not repeated: it may be a secret). */
function text(
  name: string,
  description: string,
  options: { default?: string; check?: (value: string) => string | undefined } = {},
): Variable<string | undefined> {
  return variable(
    name,
    description,
    (raw) => {
      if (raw === undefined) return options.default;
      const problem = options.check?.(raw);
      if (problem !== undefined) throw new InvalidVariable(name, problem);
      return raw;
    },
    options.default,
  );
}

/** A URL of one of `schemes` (`postgres:` ...); the value is not repeated in the refusal: it may hold a password. */
function url(name: string, description: string, schemes: string[]): Variable<string | undefined> {
  const allowed = `a URL starting with ${schemes.map((scheme) => `${scheme}//`).join(' or ')}`;
  return text(name, description, {
    check: (value) => {
      try {
        return schemes.includes(new URL(value.trim()).protocol) ? undefined : allowed;
      } catch {
        return allowed;
      }
    },
  });
}

/** A PEM public key (a one-line value's `\n` sequences read as line breaks). */
function publicKeyPem(value: string): string | undefined {
  try {
    createPublicKey(value.replace(/\\n/g, '\n'));
    return undefined;
  } catch {
    return 'a public key in PEM (-----BEGIN PUBLIC KEY----- ...)';
  }
}

/** 32 bytes, base64: the AES-256 key of organization secrets. */
function secretsKey(value: string): string | undefined {
  return Buffer.from(value.trim(), 'base64').length === 32 ? undefined : '32 bytes, base64-encoded (e.g. openssl rand -base64 32)';
}

/** Read by a library (the AWS SDK), not by the server: listed so that the documentation stays whole. */
function library(name: string, description: string, defaultValue?: string): Variable<string | undefined> {
  return text(name, description, { default: defaultValue });
}

/** Every environment variable the server reads, by name. */
export const ENV = {
  PORT: integer('PORT', 'HTTP port', 8080, 1, 65_535),
  DATABASE_URL: url('DATABASE_URL', 'PostgreSQL connection string; unset: an embedded PostgreSQL under DATA_DIR', ['postgres:', 'postgresql:']),
  DATABASE_POOL_MODE: choice<PoolMode>(
    'DATABASE_POOL_MODE',
    'what serves DATABASE_URL: session (PostgreSQL, or a pooler in session mode) or transaction (a pooler in transaction mode)',
    POOL_MODES,
    DEFAULT_POOL_MODE,
  ),
  DATABASE_DIRECT_URL: url(
    'DATABASE_DIRECT_URL',
    'the same database without a transaction-mode pooler (migrations, the job queue, LISTEN); unset: DATABASE_URL',
    ['postgres:', 'postgresql:'],
  ),
  DATABASE_STATEMENT_TIMEOUT_MS: integer(
    'DATABASE_STATEMENT_TIMEOUT_MS',
    "longest a request's SQL statement may run (ms) before PostgreSQL cancels it",
    defaults.DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS,
    1,
  ),
  DATABASE_CONNECT_TIMEOUT_MS: integer(
    'DATABASE_CONNECT_TIMEOUT_MS',
    'longest a request waits for a database connection (ms) before it answers 503 with Retry-After',
    defaults.DEFAULT_DATABASE_CONNECT_TIMEOUT_MS,
    1,
  ),
  BOOTSTRAP_API_KEY: text('BOOTSTRAP_API_KEY', 'one API key of the administrator admin@localhost'),
  RATE_LIMIT_PER_MINUTE: integer('RATE_LIMIT_PER_MINUTE', 'requests per minute per API key (or client address without one)', 100, 1),
  RATE_LIMIT_BURST_PER_SECOND: integer('RATE_LIMIT_BURST_PER_SECOND', 'requests per second per API key (or client address without one)', 20, 1),
  RATE_LIMIT_USER_PER_MINUTE: integer(
    'RATE_LIMIT_USER_PER_MINUTE',
    'requests per minute of all API keys and bearer tokens of one user together',
    defaults.DEFAULT_RATE_LIMIT_USER_PER_MINUTE,
    1,
  ),
  MAX_API_KEYS_PER_USER: integer('MAX_API_KEYS_PER_USER', 'live (unexpired) API keys one user may hold', defaults.DEFAULT_MAX_API_KEYS_PER_USER, 1),
  GRAPHQL_MAX_ROOT_MUTATIONS: integer(
    'GRAPHQL_MAX_ROOT_MUTATIONS',
    'root mutation fields one GraphQL document may hold',
    defaults.DEFAULT_GRAPHQL_MAX_ROOT_MUTATIONS,
    1,
  ),
  TRUST_PROXY: variable<TrustProxy>(
    'TRUST_PROXY',
    'when X-Forwarded-For gives the client address: a hop count, or the proxies’ addresses and CIDR ranges; unset: never',
    parseTrustProxy,
  ),
  REDIS_URL: url('REDIS_URL', 'rate-limit counters (and read replicas’ write positions) shared by several processes', ['redis:', 'rediss:']),
  DATA_DIR: text('DATA_DIR', 'where the embedded PostgreSQL, the generated secrets key and the default data lake live', { default: '.data' }),
  AUTH_CACHE_SECONDS: integer(
    'AUTH_CACHE_SECONDS',
    'seconds a process reuses the API keys, bearer subjects and memberships it looked up',
    defaults.MAX_AUTH_CACHE_SECONDS,
    0,
    defaults.MAX_AUTH_CACHE_SECONDS,
  ),
  SECRETS_KEY: text('SECRETS_KEY', 'the key that encrypts organization secrets; unset: generated into DATA_DIR', { check: secretsKey }),
  DATA_LAKE_URL: text('DATA_LAKE_URL', 'where data-lake records go: file:///absolute/path or s3://bucket/prefix; wins over DATA_LAKE_DIR'),
  DATA_LAKE_DIR: text('DATA_LAKE_DIR', 'the data-lake folder when DATA_LAKE_URL is unset; unset: DATA_DIR/lake'),
  DATA_LAKE_S3_ENDPOINT: text('DATA_LAKE_S3_ENDPOINT', 'the endpoint of an S3-compatible store (path-style); unset: AWS S3'),
  AWS_ACCESS_KEY_ID: library('AWS_ACCESS_KEY_ID', 'credentials of an s3:// data lake, as the AWS SDK reads them'),
  AWS_SECRET_ACCESS_KEY: library('AWS_SECRET_ACCESS_KEY', 'credentials of an s3:// data lake, as the AWS SDK reads them'),
  AWS_SESSION_TOKEN: library('AWS_SESSION_TOKEN', 'temporary credentials of an s3:// data lake, as the AWS SDK reads them'),
  AWS_PROFILE: library('AWS_PROFILE', 'the profile of ~/.aws files the AWS SDK reads credentials from'),
  AWS_REGION: library('AWS_REGION', 'the region of an s3:// data lake', 'us-east-1'),
  AWS_DEFAULT_REGION: library('AWS_DEFAULT_REGION', 'the region of an s3:// data lake when AWS_REGION is unset'),
  WORKER_CONCURRENCY: integer(
    'WORKER_CONCURRENCY',
    'activity jobs this process runs at once; 0 runs no worker here',
    defaults.DEFAULT_WORKER_CONCURRENCY,
    0,
    defaults.MAX_WORKER_CONCURRENCY,
  ),
  EXPRESSION_TIMEOUT_MS: integer('EXPRESSION_TIMEOUT_MS', "longest one evaluation of a user's JSONata may run (ms)", defaults.DEFAULT_EXPRESSION_TIMEOUT_MS, 1),
  CONFIG_FILE: text('CONFIG_FILE', 'YAML or JSON file of structured settings (analyticsEmbed, aiGateway); unset: ./platform.config.yaml if present'),
  ANALYTICS_EMBED_SIGNING_KEY_PEM: text('ANALYTICS_EMBED_SIGNING_KEY_PEM', 'RS256 private key (PKCS#8 PEM) that signs analytics embed tokens'),
  BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST: text(
    'BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST',
    'comma-separated host names service bridge calls may reach on private addresses',
  ),
  METRICS_PUBLIC: flag('METRICS_PUBLIC', 'GET /metrics answers without credentials'),
  SHUTDOWN_GRACE_SECONDS: integer(
    'SHUTDOWN_GRACE_SECONDS',
    'seconds requests and jobs in flight may take to end after SIGTERM or SIGINT',
    10,
    0,
    defaults.MAX_SHUTDOWN_GRACE_SECONDS,
  ),
  EVENT_LOOP_STALL_LOG_MS: integer(
    'EVENT_LOOP_STALL_LOG_MS',
    'event-loop stalls at least this long (ms) are logged and counted',
    defaults.DEFAULT_EVENT_LOOP_STALL_LOG_MS,
    1,
  ),
  WEBHOOK_MAX_CONSECUTIVE_FAILURES: integer(
    'WEBHOOK_MAX_CONSECUTIVE_FAILURES',
    'failed delivery attempts in a row after which a webhook endpoint is disabled',
    defaults.DEFAULT_WEBHOOK_MAX_CONSECUTIVE_FAILURES,
    1,
  ),
  WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION: integer(
    'WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION',
    'webhook endpoints one organization may have',
    defaults.DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION,
    1,
  ),
  EXPORT_MAX_ROWS: integer('EXPORT_MAX_ROWS', 'the most rows one CSV or NDJSON export may hold', defaults.DEFAULT_EXPORT_MAX_ROWS, 1),
  EXPORT_MAX_CONCURRENT_PER_USER: integer(
    'EXPORT_MAX_CONCURRENT_PER_USER',
    'CSV or NDJSON exports one user may stream at once',
    defaults.DEFAULT_EXPORT_MAX_CONCURRENT_PER_USER,
    1,
  ),
  DATABASE_REPLICA_URLS: text('DATABASE_REPLICA_URLS', "comma-separated postgres:// URLs of streaming replicas of DATABASE_URL's database"),
  REPLICA_MAX_LAG_SECONDS: text('REPLICA_MAX_LAG_SECONDS', 'a replica further behind than this many seconds serves no read', { default: '5' }),
  RESPONSE_MAX_BYTES: integer('RESPONSE_MAX_BYTES', 'the largest answer one request is given, in bytes', defaults.DEFAULT_RESPONSE_MAX_BYTES, 1),
  REQUEST_MAX_DB_CONNECTIONS: integer(
    'REQUEST_MAX_DB_CONNECTIONS',
    'database connections one request holds at once',
    defaults.DEFAULT_REQUEST_MAX_DB_CONNECTIONS,
    1,
    defaults.MAX_REQUEST_DB_CONNECTIONS,
  ),
  AUTH_JWT_JWKS_URL: url('AUTH_JWT_JWKS_URL', 'the JWKS that bearer JWTs are verified with', ['https:', 'http:']),
  AUTH_JWT_PUBLIC_KEY_PEM: text('AUTH_JWT_PUBLIC_KEY_PEM', 'the public key (PEM) that bearer JWTs are verified with', { check: publicKeyPem }),
  AUTH_JWT_ISSUER: text('AUTH_JWT_ISSUER', 'the issuer (iss) bearer JWTs must name'),
  AUTH_JWT_AUDIENCE: text('AUTH_JWT_AUDIENCE', 'the audience (aud) bearer JWTs must name'),
  LOG_LEVEL: choice<LogLevel>('LOG_LEVEL', 'the least severe level logged', LOG_LEVELS, 'info'),
  LOG_SQL: flag('LOG_SQL', 'prints every SQL statement'),
} as const;

/** The variables in the order of the list above. */
export const VARIABLES: readonly Variable<unknown>[] = Object.values(ENV);

/** Reads every variable once: the first that cannot be used throws, before anything starts. */
export function checkVariables(env: Environment = process.env): void {
  for (const variable of VARIABLES) variable.read(env);
}
