import { join } from 'node:path';
import { dataLakeTarget, type DataLakeTarget } from './data-lake';
import { readAiGatewayConfig, type AiGatewayConfig } from './ai-gateway';
import { readAnalyticsEmbedConfig, type AnalyticsEmbedConfig } from './analytics-embed';
import { loadConfigFile } from './config-file';
import { parseHostAllowlist } from '../egress/egress-guard';
import { readReplicaSettings, type ReadReplicaSettings } from './read-replicas';
import type { PoolMode } from './database-pool';
import type { TrustProxy } from './trust-proxy';
import { checkVariables, ENV, type Environment, type Variable } from './variables';

export * from './defaults';

/** Settings read from the environment and CONFIG_FILE (names fixed by the design). */
export interface AppConfig {
  port: number;
  databaseUrl?: string;
  /** DATABASE_POOL_MODE (session or transaction): what serves DATABASE_URL (transaction: a pooler such as PgBouncer in transaction mode). */
  databasePoolMode: PoolMode;
  /** DATABASE_DIRECT_URL (default DATABASE_URL): a direct session for LISTEN, the job queue and its locks, and migrations. */
  databaseDirectUrl?: string;
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
  /** TRUST_PROXY: when X-Forwarded-For gives the client address (Express's `trust proxy`); false: never. */
  trustProxy: TrustProxy;
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

/**
 * The settings of the environment (see ENV in variables.ts) and CONFIG_FILE. Every variable is checked
 * first, also those read elsewhere (LOG_LEVEL, LOG_SQL, AUTH_JWT_*): one that cannot be used throws
 * InvalidConfiguration naming it, before anything starts.
 */
export function loadConfig(env: Environment = process.env): AppConfig {
  checkVariables(env);
  const read = <T>(variable: Variable<T>): T => variable.read(env);
  const file = loadConfigFile(read(ENV.CONFIG_FILE));
  const dataDir = read(ENV.DATA_DIR)!;
  return {
    port: read(ENV.PORT),
    databaseUrl: read(ENV.DATABASE_URL),
    databasePoolMode: read(ENV.DATABASE_POOL_MODE),
    databaseDirectUrl: read(ENV.DATABASE_DIRECT_URL),
    databaseStatementTimeoutMs: read(ENV.DATABASE_STATEMENT_TIMEOUT_MS),
    databaseConnectTimeoutMs: read(ENV.DATABASE_CONNECT_TIMEOUT_MS),
    bootstrapApiKey: read(ENV.BOOTSTRAP_API_KEY),
    rateLimitPerMinute: read(ENV.RATE_LIMIT_PER_MINUTE),
    rateLimitBurstPerSecond: read(ENV.RATE_LIMIT_BURST_PER_SECOND),
    rateLimitUserPerMinute: read(ENV.RATE_LIMIT_USER_PER_MINUTE),
    maxApiKeysPerUser: read(ENV.MAX_API_KEYS_PER_USER),
    graphqlMaxRootMutations: read(ENV.GRAPHQL_MAX_ROOT_MUTATIONS),
    trustProxy: read(ENV.TRUST_PROXY),
    redisUrl: read(ENV.REDIS_URL),
    dataDir,
    authCacheSeconds: read(ENV.AUTH_CACHE_SECONDS),
    secretsKey: read(ENV.SECRETS_KEY),
    dataLake: dataLakeTarget(read(ENV.DATA_LAKE_URL), read(ENV.DATA_LAKE_DIR) ?? join(dataDir, 'lake'), read(ENV.DATA_LAKE_S3_ENDPOINT)),
    workerConcurrency: read(ENV.WORKER_CONCURRENCY),
    expressionTimeoutMs: read(ENV.EXPRESSION_TIMEOUT_MS),
    analyticsEmbed: readAnalyticsEmbedConfig(file.analyticsEmbed),
    analyticsEmbedSigningKeyPem: read(ENV.ANALYTICS_EMBED_SIGNING_KEY_PEM),
    bridgeEgressPrivateHostAllowlist: parseHostAllowlist(read(ENV.BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST)),
    aiGateway: readAiGatewayConfig(file.aiGateway),
    metricsPublic: read(ENV.METRICS_PUBLIC),
    shutdownGraceSeconds: read(ENV.SHUTDOWN_GRACE_SECONDS),
    eventLoopStallLogMs: read(ENV.EVENT_LOOP_STALL_LOG_MS),
    webhookMaxConsecutiveFailures: read(ENV.WEBHOOK_MAX_CONSECUTIVE_FAILURES),
    webhookMaxEndpointsPerOrganization: read(ENV.WEBHOOK_MAX_ENDPOINTS_PER_ORGANIZATION),
    exportMaxRows: read(ENV.EXPORT_MAX_ROWS),
    exportMaxConcurrentPerUser: read(ENV.EXPORT_MAX_CONCURRENT_PER_USER),
    readReplicas: readReplicaSettings(read(ENV.DATABASE_REPLICA_URLS), read(ENV.REPLICA_MAX_LAG_SECONDS)),
    responseMaxBytes: read(ENV.RESPONSE_MAX_BYTES),
    requestMaxDbConnections: read(ENV.REQUEST_MAX_DB_CONNECTIONS),
  };
}
