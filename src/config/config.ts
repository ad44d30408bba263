import { join } from 'node:path';
import { dataLakeTarget, type DataLakeTarget } from './data-lake';
import { readAiGatewayConfig, type AiGatewayConfig } from './ai-gateway';
import { readAnalyticsEmbedConfig, type AnalyticsEmbedConfig } from './analytics-embed';
import { loadConfigFile } from './config-file';
import { parseHostAllowlist } from '../egress/egress-guard';
import { readReplicaSettings, type ReadReplicaSettings } from './read-replicas';

/** Credentials and memberships are reused for at most this long (AUTH_CACHE_SECONDS). */
export const MAX_AUTH_CACHE_SECONDS = 30;

/** RATE_LIMIT_USER_PER_MINUTE: requests a minute of all API keys and bearer tokens of one user together. */
export const DEFAULT_RATE_LIMIT_USER_PER_MINUTE = 1000;
/** MAX_API_KEYS_PER_USER: live (unexpired) API keys one user may hold. */
export const DEFAULT_MAX_API_KEYS_PER_USER = 50;
/** GRAPHQL_MAX_ROOT_MUTATIONS: root mutation fields one GraphQL document may hold. */
export const DEFAULT_GRAPHQL_MAX_ROOT_MUTATIONS = 20;

/** EVENT_LOOP_STALL_LOG_MS: stalls this long are logged (every request of every tenant waits through one). */
export const DEFAULT_EVENT_LOOP_STALL_LOG_MS = 200;

/** DATABASE_STATEMENT_TIMEOUT_MS: PostgreSQL cancels a statement of the API running longer (the request answers 503). */
export const DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS = 10_000;

/** DATABASE_CONNECT_TIMEOUT_MS: how long a request waits for a database connection before it answers 503. */
export const DEFAULT_DATABASE_CONNECT_TIMEOUT_MS = 5_000;

/** WEBHOOK_MAX_CONSECUTIVE_FAILURES: failed delivery attempts in a row after which a webhook endpoint is disabled. */
export const DEFAULT_WEBHOOK_MAX_CONSECUTIVE_FAILURES = 20;

/** WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION: webhook endpoints one organization may have. */
export const DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION = 20;

/** EXPRESSION_TIMEOUT_MS: how long one evaluation of a user's JSONata may run before it fails. */
export const DEFAULT_EXPRESSION_TIMEOUT_MS = 1000;

/** WORKER_CONCURRENCY: jobs one process runs at once. */
export const DEFAULT_WORKER_CONCURRENCY = 4;

/** RESPONSE_MAX_BYTES: the largest answer one request may be given (16 MB). */
export const DEFAULT_RESPONSE_MAX_BYTES = 16 * 1024 * 1024;
/** REQUEST_MAX_DB_CONNECTIONS: database connections one request may hold at once. */
export const DEFAULT_REQUEST_MAX_DB_CONNECTIONS = 2;

/** The read pool's size: one request holding more connections than that would only wait for its own. */
const MAX_REQUEST_DB_CONNECTIONS = 10;

/** More jobs at once than connections a process should hold is a mistake, not a setting. */
const MAX_WORKER_CONCURRENCY = 64;

/** Settings read from the environment and CONFIG_FILE (names fixed by the design). */
export interface AppConfig {
  port: number;
  databaseUrl?: string;
  /** DATABASE_STATEMENT_TIMEOUT_MS: longest a statement of the API may run before PostgreSQL cancels it. */
  databaseStatementTimeoutMs: number;
  /** DATABASE_CONNECT_TIMEOUT_MS: longest a request waits for a database connection (then 503 with Retry-After). */
  databaseConnectTimeoutMs: number;
  bootstrapApiKey?: string;
  rateLimitPerMinute: number;
  rateLimitBurstPerSecond: number;
  /** RATE_LIMIT_USER_PER_MINUTE: the minute budget all keys and bearer tokens of one user share. */
  rateLimitUserPerMinute: number;
  /** MAX_API_KEYS_PER_USER: creating a live API key beyond it is refused (409). */
  maxApiKeysPerUser: number;
  /** GRAPHQL_MAX_ROOT_MUTATIONS: a document with more root mutation fields is refused (400). */
  graphqlMaxRootMutations: number;
  redisUrl?: string;
  dataDir: string;
  /** How long credentials and memberships may be reused (0 to 30 seconds). */
  authCacheSeconds: number;
  /** DATA_LAKE_URL (file:///path or s3://bucket/prefix) over DATA_LAKE_DIR, with DATA_LAKE_S3_ENDPOINT: where data-lake records (task-locks/ ...) are written. */
  dataLake: DataLakeTarget;
  /** SECRETS_KEY: base64 of the 32-byte key that encrypts organization secrets (else kept in the data folder). */
  secretsKey?: string;
  /** WORKER_CONCURRENCY: activity jobs this process runs at once (0: no worker in this process). */
  workerConcurrency: number;
  /** EXPRESSION_TIMEOUT_MS: an evaluation of a user's JSONata (SCRIPT step, trigger filter or input mapping) running longer fails. */
  expressionTimeoutMs: number;
  /** The `analyticsEmbed` block of CONFIG_FILE (default ./platform.config.yaml, if present). */
  analyticsEmbed: AnalyticsEmbedConfig;
  /** ANALYTICS_EMBED_SIGNING_KEY_PEM: the RS256 private key (PKCS#8 PEM) embed tokens are signed with. */
  analyticsEmbedSigningKeyPem?: string;
  /** BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST: exact host names the egress guard lets reach private addresses. */
  bridgeEgressPrivateHostAllowlist: string[];
  /** The `aiGateway` block of CONFIG_FILE: the providers of the model catalogue. */
  aiGateway: AiGatewayConfig;
  /** METRICS_PUBLIC: GET /metrics answers without credentials (else platform administrators only). */
  metricsPublic: boolean;
  /** SHUTDOWN_GRACE_SECONDS: how long requests and jobs in flight may take to end after SIGTERM/SIGINT. */
  shutdownGraceSeconds: number;
  /** EVENT_LOOP_STALL_LOG_MS: a stall of the event loop at least this long is logged with the requests running. */
  eventLoopStallLogMs: number;
  /** WEBHOOK_MAX_CONSECUTIVE_FAILURES: failed delivery attempts in a row after which a webhook endpoint is disabled. */
  webhookMaxConsecutiveFailures: number;
  /** WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION: creating a webhook endpoint beyond it is refused (409). */
  webhookMaxEndpointsPerOrganization: number;
  /** EXPORT_MAX_ROWS: a CSV or NDJSON export matching more rows is refused (400) before any is streamed. */
  exportMaxRows: number;
  /** EXPORT_MAX_CONCURRENT_PER_USER: a user's further export while this many stream is refused (429). */
  exportMaxConcurrentPerUser: number;
  /** DATABASE_REPLICA_URLS and REPLICA_MAX_LAG_SECONDS: streaming replicas for users' reads; absent, all reads go to the primary. */
  readReplicas?: ReadReplicaSettings;
  /** RESPONSE_MAX_BYTES: an answer larger than this is refused (REST 400, GraphQL BAD_REQUEST). */
  responseMaxBytes: number;
  /** REQUEST_MAX_DB_CONNECTIONS: database connections one request holds at once (GraphQL root fields beyond it wait). */
  requestMaxDbConnections: number;
}

/** Rows one CSV or NDJSON export may stream unless EXPORT_MAX_ROWS says otherwise. */
export const DEFAULT_EXPORT_MAX_ROWS = 1_000_000;

/** EXPORT_MAX_CONCURRENT_PER_USER: exports one user (all their keys and tokens) may stream at once. */
export const DEFAULT_EXPORT_MAX_CONCURRENT_PER_USER = 2;

/** Longest shutdown grace accepted: orchestrators kill a process that takes longer than a few minutes anyway. */
const MAX_SHUTDOWN_GRACE_SECONDS = 600;

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function integerBetween(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  return value;
}

/** `1`/`true` on, `0`/`false`/unset off; anything else is a mistake, not a setting. */
function flag(name: string): boolean {
  const raw = (process.env[name] ?? '').trim().toLowerCase();
  if (raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new Error(`${name} must be 1 or 0 (true or false), got "${process.env[name]}"`);
}

export function loadConfig(): AppConfig {
  const file = loadConfigFile(process.env.CONFIG_FILE || undefined);
  return {
    port: positiveInteger('PORT', 8080),
    databaseUrl: process.env.DATABASE_URL || undefined,
    databaseStatementTimeoutMs: positiveInteger('DATABASE_STATEMENT_TIMEOUT_MS', DEFAULT_DATABASE_STATEMENT_TIMEOUT_MS),
    databaseConnectTimeoutMs: positiveInteger('DATABASE_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_CONNECT_TIMEOUT_MS),
    bootstrapApiKey: process.env.BOOTSTRAP_API_KEY || undefined,
    rateLimitPerMinute: positiveInteger('RATE_LIMIT_PER_MINUTE', 100),
    rateLimitBurstPerSecond: positiveInteger('RATE_LIMIT_BURST_PER_SECOND', 20),
    rateLimitUserPerMinute: positiveInteger('RATE_LIMIT_USER_PER_MINUTE', DEFAULT_RATE_LIMIT_USER_PER_MINUTE),
    maxApiKeysPerUser: positiveInteger('MAX_API_KEYS_PER_USER', DEFAULT_MAX_API_KEYS_PER_USER),
    graphqlMaxRootMutations: positiveInteger('GRAPHQL_MAX_ROOT_MUTATIONS', DEFAULT_GRAPHQL_MAX_ROOT_MUTATIONS),
    redisUrl: process.env.REDIS_URL || undefined,
    dataDir: process.env.DATA_DIR || '.data',
    authCacheSeconds: integerBetween('AUTH_CACHE_SECONDS', MAX_AUTH_CACHE_SECONDS, 0, MAX_AUTH_CACHE_SECONDS),
    secretsKey: process.env.SECRETS_KEY || undefined,
    dataLake: dataLakeTarget(
      process.env.DATA_LAKE_URL || undefined,
      process.env.DATA_LAKE_DIR || join(process.env.DATA_DIR || '.data', 'lake'),
      process.env.DATA_LAKE_S3_ENDPOINT || undefined,
    ),
    workerConcurrency: integerBetween('WORKER_CONCURRENCY', DEFAULT_WORKER_CONCURRENCY, 0, MAX_WORKER_CONCURRENCY),
    expressionTimeoutMs: positiveInteger('EXPRESSION_TIMEOUT_MS', DEFAULT_EXPRESSION_TIMEOUT_MS),
    analyticsEmbed: readAnalyticsEmbedConfig(file.analyticsEmbed),
    analyticsEmbedSigningKeyPem: process.env.ANALYTICS_EMBED_SIGNING_KEY_PEM || undefined,
    bridgeEgressPrivateHostAllowlist: parseHostAllowlist(process.env.BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST),
    aiGateway: readAiGatewayConfig(file.aiGateway),
    metricsPublic: flag('METRICS_PUBLIC'),
    shutdownGraceSeconds: integerBetween('SHUTDOWN_GRACE_SECONDS', 10, 0, MAX_SHUTDOWN_GRACE_SECONDS),
    eventLoopStallLogMs: positiveInteger('EVENT_LOOP_STALL_LOG_MS', DEFAULT_EVENT_LOOP_STALL_LOG_MS),
    webhookMaxConsecutiveFailures: positiveInteger('WEBHOOK_MAX_CONSECUTIVE_FAILURES', DEFAULT_WEBHOOK_MAX_CONSECUTIVE_FAILURES),
    webhookMaxEndpointsPerOrganization: positiveInteger('WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION', DEFAULT_WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION),
    exportMaxRows: positiveInteger('EXPORT_MAX_ROWS', DEFAULT_EXPORT_MAX_ROWS),
    exportMaxConcurrentPerUser: positiveInteger('EXPORT_MAX_CONCURRENT_PER_USER', DEFAULT_EXPORT_MAX_CONCURRENT_PER_USER),
    readReplicas: readReplicaSettings(process.env.DATABASE_REPLICA_URLS, process.env.REPLICA_MAX_LAG_SECONDS),
    responseMaxBytes: positiveInteger('RESPONSE_MAX_BYTES', DEFAULT_RESPONSE_MAX_BYTES),
    requestMaxDbConnections: integerBetween('REQUEST_MAX_DB_CONNECTIONS', DEFAULT_REQUEST_MAX_DB_CONNECTIONS, 1, MAX_REQUEST_DB_CONNECTIONS),
  };
}
