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

/** Rows one CSV or NDJSON export may stream unless EXPORT_MAX_ROWS says otherwise. */
export const DEFAULT_EXPORT_MAX_ROWS = 1_000_000;

/** EXPORT_MAX_CONCURRENT_PER_USER: exports one user (all their keys and tokens) may stream at once. */
export const DEFAULT_EXPORT_MAX_CONCURRENT_PER_USER = 2;

/** The read pool's size: one request holding more connections than that would only wait for its own. */
export const MAX_REQUEST_DB_CONNECTIONS = 10;

/** More jobs at once than connections a process should hold is a mistake, not a setting. */
export const MAX_WORKER_CONCURRENCY = 64;

/** Longest shutdown grace accepted: orchestrators kill a process that takes longer than a few minutes anyway. */
export const MAX_SHUTDOWN_GRACE_SECONDS = 600;
