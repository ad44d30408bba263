import type { MikroORM } from '@mikro-orm/core';
import express, { type Express, type Request } from 'express';
import type { Server } from 'node:http';
import { Authenticator, identityOf, requireCaller, requirePlatformAdmin } from './auth/authenticate';
import { JwtVerifier, jwtSettingsFromEnv, type JwtSettings } from './auth/jwt';
import type { AiGatewayConfig } from './config/ai-gateway';
import type { AnalyticsEmbedOptions } from './config/analytics-embed';
import { DEFAULT_EVENT_LOOP_STALL_LOG_MS, DEFAULT_GRAPHQL_MAX_ROOT_MUTATIONS, type AppConfig } from './config/config';
import { loadSecretsKey } from './config/secrets-key';
import type { TrustProxy } from './config/trust-proxy';
import { EgressGuard, type EgressSettings } from './egress/egress-guard';
import { buildGraphqlSchema } from './graphql/schema';
import { graphqlHandler } from './graphql/server';
import { accessLog } from './http/access-log';
import { clientAddressOf } from './http/client-address';
import { logger } from './logging/logger';
import { explorerRouter } from './http/explorers';
import { healthHandler, livenessHandler } from './http/health';
import { indexHandler } from './http/index-route';
import { eventLoopMonitor } from './http/event-loop-monitor';
import { Metrics } from './http/metrics';
import { requestId } from './http/request-id';
import { labelRoute, trackRouteTemplates } from './http/route-label';
import { rateLimit, RateLimits, type RateLimitSettings, type RateSubject } from './http/rate-limit';
import { operations } from './catalog/operations';
import { resources } from './catalog/registry';
import { buildOpenApiDocument } from './openapi/document';
import { accountCallbackRouter, accountRouter } from './rest/account-router';
import { aiGatewayRouter } from './rest/ai-gateway-router';
import { bridgeProxyRouter } from './rest/bridge-proxy-router';
import { errorHandler, notFoundHandler } from './rest/error-handler';
import { ApiRoutes } from './rest/api-routes';
import { methodNotAllowed } from './rest/method-not-allowed';
import { operationRoutersBySegment } from './rest/operation-router';
import { expressPath, resourceRouter } from './rest/resource-router';
import { fixedJsonAnswer, onlyExplicitValidators } from './rest/validators';
import { listen } from './database/listener';
import { countJobs, JobWorker, migrateJobQueue, queuesPerOrganization } from './jobs/job-queue';
import { ormPoolUsage } from './database/pool-usage';
import { ReadPool, type Reads } from './database/read-pool';
import { ReplicatedReads } from './database/read-replicas';
import type { ReadReplicaSettings } from './config/read-replicas';
import { trackWrites, markWriting } from './http/read-your-writes';
import { connectTimeoutOf, statementTimeoutOf, withStatementTimeout } from './database/orm';
import { DEFAULT_POOL_MODE, routesOf } from './database/pool-mode';
import { requestsOutage } from './errors/database-unavailable';
import { ACCESS_CHANGED_CHANNEL } from './engine/access-cache';
import { AnalyticsEmbedSigner } from './modules/integrations/analytics-embed';
import { openDataLake } from './modules/integrations/data-lake';
import type { DataLakeTarget } from './config/data-lake';
import { SecretBox } from './modules/access/secret-box';
import { Services } from './engine/services';
import { modules } from './modules';
import { ExpressionPool } from './modules/workflow/expression-pool';
import { automationJobs } from './modules/workflow/automation-jobs';
import { idempotency } from './rest/idempotency';
import { IDEMPOTENCY_CRONTAB, idempotencyJobs, IdempotencyStore } from './engine/idempotency';
import { webhookSettings, type WebhookSettings } from './modules/webhooks/settings';
import { WEBHOOKS_CRONTAB, webhookJobs } from './modules/webhooks/webhook-jobs';
import { LiveUpdates } from './graphql/live/websocket-server';
import { boundedJsonAnswers } from './http/answer-size';
import type { RequestLimits } from './engine/request-budget';

/** Connections of the prepared hot reads, beside the ORM's own pool. */
const READ_POOL_SIZE = 10;

export interface AppOptions {
  rateLimits: RateLimitSettings;
  /** TRUST_PROXY: when X-Forwarded-For gives the client address (of the anonymous rate limit and the logs); absent or false, never. */
  trustProxy?: TrustProxy;
  /** MAX_API_KEYS_PER_USER (default 50): live API keys one user may hold. */
  maxApiKeysPerUser?: number;
  /** GRAPHQL_MAX_ROOT_MUTATIONS (default 20): root mutation fields one GraphQL document may hold. */
  graphqlMaxRootMutations?: number;
  jwt: JwtSettings;
  /** AUTH_CACHE_SECONDS (default 30). */
  authCacheSeconds?: number;
  /** The key that encrypts organization secrets (see config/secrets-key.ts). */
  secretsKey: Buffer;
  /** DATA_LAKE_URL or DATA_LAKE_DIR, and DATA_LAKE_S3_ENDPOINT: where data-lake records go. */
  dataLake: DataLakeTarget;
  /** WORKER_CONCURRENCY: activity jobs this process runs at once; absent or 0, none (the queue is still written). */
  workerConcurrency?: number;
  /** EXPRESSION_TIMEOUT_MS (default 1000): how long one evaluation of a user's JSONata may run. */
  expressionTimeoutMs?: number;
  /** The analyticsEmbed block of CONFIG_FILE and ANALYTICS_EMBED_SIGNING_KEY_PEM; absent, embed tokens answer 503. */
  analyticsEmbed?: AnalyticsEmbedOptions;
  /** The egress guard of service bridge calls: BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST (tests also set the resolver and the timeout). */
  egress?: EgressSettings;
  /** The aiGateway block of CONFIG_FILE; absent, no provider is configured (chat completions answer 503). */
  aiGateway?: AiGatewayConfig;
  /** METRICS_PUBLIC: GET /metrics without credentials; absent or false, platform administrators only. */
  metricsPublic?: boolean;
  /** EVENT_LOOP_STALL_LOG_MS (default 200). */
  eventLoopStallLogMs?: number;
  /** WEBHOOK_MAX_CONSECUTIVE_FAILURES (default 20); tests also shorten the retry schedule and the attempt timeout. */
  webhooks?: Partial<WebhookSettings>;
  /** EXPORT_MAX_ROWS (default 1,000,000): the most rows one export may stream. */
  exportMaxRows?: number;
  /** Rows an export reads per statement (default 1,000; tests make it small). */
  exportBatchRows?: number;
  /** RESPONSE_MAX_BYTES (default 16 MB) and REQUEST_MAX_DB_CONNECTIONS (default 2): what one request may spend. */
  requestLimits?: Partial<RequestLimits>;
  /** EXPORT_MAX_CONCURRENT_PER_USER (default 2): the exports one user may stream at once. */
  exportMaxConcurrentPerUser?: number;
  /**
   * DATABASE_REPLICA_URLS and REPLICA_MAX_LAG_SECONDS: the hot reads of users go to these replicas (see
   * database/read-replicas.ts); read-your-writes is shared through `rateLimits.redisUrl` (REDIS_URL).
   */
  readReplicas?: ReadReplicaSettings;
}

export function appOptions(config: AppConfig): AppOptions {
  return {
    rateLimits: {
      perMinute: config.rateLimitPerMinute,
      burstPerSecond: config.rateLimitBurstPerSecond,
      userPerMinute: config.rateLimitUserPerMinute,
      redisUrl: config.redisUrl,
    },
    trustProxy: config.trustProxy,
    maxApiKeysPerUser: config.maxApiKeysPerUser,
    graphqlMaxRootMutations: config.graphqlMaxRootMutations,
    jwt: jwtSettingsFromEnv(),
    authCacheSeconds: config.authCacheSeconds,
    secretsKey: loadSecretsKey(config.secretsKey, config.dataDir, (file) =>
      logger.warn({ file }, 'SECRETS_KEY is not set: generated a key for organization secrets into the data folder; back it up, or set SECRETS_KEY'),
    ),
    dataLake: config.dataLake,
    workerConcurrency: config.workerConcurrency,
    expressionTimeoutMs: config.expressionTimeoutMs,
    analyticsEmbed: { config: config.analyticsEmbed, signingKeyPem: config.analyticsEmbedSigningKeyPem },
    egress: { privateHostAllowlist: config.bridgeEgressPrivateHostAllowlist },
    aiGateway: config.aiGateway,
    metricsPublic: config.metricsPublic,
    eventLoopStallLogMs: config.eventLoopStallLogMs,
    webhooks: { maxConsecutiveFailures: config.webhookMaxConsecutiveFailures, maxEndpointsPerOrganization: config.webhookMaxEndpointsPerOrganization },
    exportMaxRows: config.exportMaxRows,
    exportMaxConcurrentPerUser: config.exportMaxConcurrentPerUser,
    readReplicas: config.readReplicas,
    requestLimits: { responseMaxBytes: config.responseMaxBytes, maxDbConnections: config.requestMaxDbConnections },
  };
}

export interface App {
  app: Express;
  services: Services;
  /** Takes no new job; running jobs finish within `graceMs` or go back to the queue (see JobWorker.stop). */
  stopJobs(graceMs: number): Promise<void>;
  /** Serves GraphQL subscriptions (graphql-ws) at /graphql on the HTTP server that serves `app`. */
  attachSubscriptions(server: Server): void;
  /** Closes the subscription connections at once (1001) and takes no new one: a shutdown's first step. */
  stopSubscriptions(): Promise<void>;
  /** Stops the jobs (if `stopJobs` has not) and releases everything but the ORM. */
  close(): Promise<void>;
}

/**
 * The HTTP application, in order: the request id and metrics (every answer is counted and carries
 * `X-Request-Id`); health (never rate limited); identification; metrics (public with METRICS_PUBLIC,
 * else administrators; never rate limited); rate limiting (every answer from here on carries the
 * rate-limit headers); the index at / and the browser explorers (public);
 * the account callback; then only recognised callers: OpenAPI, REST under /api and GraphQL.
 */
export async function createApp(orm: MikroORM, options: AppOptions): Promise<App> {
  const databaseUrl = orm.config.get('clientUrl')!;
  const { poolMode, directUrl } = routesOf(orm.config) ?? { poolMode: DEFAULT_POOL_MODE, directUrl: databaseUrl };
  // The job queue, its locks and the LISTEN connections need sessions of their own: the direct URL.
  await migrateJobQueue(directUrl);
  // The read pool serves requests as the ORM does: under the same statement timeout.
  const timeout = statementTimeoutOf(orm);
  // ... and waits for a connection no longer than the ORM does (DATABASE_CONNECT_TIMEOUT_MS).
  const connectionTimeoutMillis = connectTimeoutOf(orm);
  const primaryReads =
    poolMode === 'transaction'
      ? new ReadPool(databaseUrl, READ_POOL_SIZE, undefined, { poolMode, statementTimeoutMs: timeout, connectionTimeoutMillis })
      : new ReadPool(withStatementTimeout(databaseUrl, timeout), READ_POOL_SIZE, undefined, { connectionTimeoutMillis });
  const replicated = options.readReplicas
    ? new ReplicatedReads(primaryReads, databaseUrl, {
        ...options.readReplicas,
        urls: options.readReplicas.urls.map((url) => withStatementTimeout(url, timeout)),
        poolSize: READ_POOL_SIZE,
        redisUrl: options.rateLimits.redisUrl,
      })
    : undefined;
  await replicated?.start();
  const reads: Reads = replicated ?? primaryReads;
  const egress = new EgressGuard(options.egress);
  const lake = openDataLake(options.dataLake);
  const services = new Services(resources, modules, {
    accessCacheSeconds: options.authCacheSeconds,
    reads,
    secrets: new SecretBox(options.secretsKey),
    lake,
    analyticsEmbed: await AnalyticsEmbedSigner.create(options.analyticsEmbed),
    egress,
    aiGateway: options.aiGateway,
    expressions: new ExpressionPool({ timeoutMs: options.expressionTimeoutMs }),
    maxApiKeysPerUser: options.maxApiKeysPerUser,
    webhooks: webhookSettings(options.webhooks),
    exportMaxRows: options.exportMaxRows,
    exportBatchRows: options.exportBatchRows,
    requestLimits: options.requestLimits,
    // Half the read pool: however many requests one user sends, the other half serves everyone else.
    userMaxDbConnections: READ_POOL_SIZE / 2,
    exportMaxConcurrentPerUser: options.exportMaxConcurrentPerUser,
    jobQueuesPerOrganization: queuesPerOrganization(options.workerConcurrency ?? 0),
  });
  const idempotentAnswers = new IdempotencyStore(orm);
  const jobs = { ...automationJobs(orm, services), ...idempotencyJobs(idempotentAnswers), ...webhookJobs(orm, services) };
  // Every process drops its cached credentials when any process announces a change of access.
  const worker = options.workerConcurrency
    ? await JobWorker.start(directUrl, options.workerConcurrency, jobs, `${IDEMPOTENCY_CRONTAB}\n${WEBHOOKS_CRONTAB}`)
    : undefined;
  const accessChanges = listen(directUrl, ACCESS_CHANGED_CHANNEL, () => services.accessCache.clear());
  const authenticator = new Authenticator(orm, services, await JwtVerifier.create(options.jwt));
  const limits = RateLimits.create(options.rateLimits);
  const metrics = new Metrics({
    pools: { orm: () => ormPoolUsage(orm), read: () => primaryReads.usage(), ...replicated?.replicaUsage() },
    // The job queue is the primary's.
    jobs: () => countJobs(primaryReads),
    lakeWrites: () => lake.counts(),
    ...(replicated ? { readTargets: () => replicated.readCounts() } : {}),
  });
  // A request counts against its key's budget and, once its user is known, against the user's.
  const rateSubject = (req: Request): RateSubject => {
    const identity = identityOf(req);
    return { key: identity.rateKey, user: identity.context?.user?.id };
  };
  const graphql = await graphqlHandler(
    resources,
    {
      maxRootMutations: options.graphqlMaxRootMutations ?? DEFAULT_GRAPHQL_MAX_ROOT_MUTATIONS,
      charge: (req, points) => limits.consume(rateSubject(req), points),
      onRefusal: metrics.rateLimitRefused,
      ...(replicated ? { writing: (req: Request) => markWriting(replicated, req) } : {}),
    },
    services.requestLimits.responseMaxBytes,
  );
  const openApi = buildOpenApiDocument(resources);
  const live = new LiveUpdates({
    databaseUrl: directUrl,
    authenticator,
    limits,
    schema: buildGraphqlSchema(resources),
    accessChanged: () => services.accessCache.clear(),
    // Called for connections only, once `app` below exists.
    clientAddress: (request) => clientAddressOf(app, request),
  });
  // Requests that found the database unreachable log one warning; this says when it answers again.
  requestsOutage.watchWith(() => orm.isConnected());
  const app = express();
  app.disable('x-powered-by');
  // req.ip: the socket's address, or with TRUST_PROXY the one X-Forwarded-For names past the trusted proxies.
  app.set('trust proxy', options.trustProxy ?? false);
  app.set('query parser', 'simple');
  onlyExplicitValidators(app);
  trackRouteTemplates(app);

  const unwatchEventLoop = eventLoopMonitor.watch(options.eventLoopStallLogMs ?? DEFAULT_EVENT_LOOP_STALL_LOG_MS, metrics.eventLoopStalled);
  app.use(requestId);
  app.use(eventLoopMonitor.track);
  app.use(metrics.observe);
  app.use(accessLog);
  // Probes and scrapes are never rate limited: a load balancer or Prometheus behind the same address as
  // a misbehaving client must still see the server up.
  app.get('/health', healthHandler(orm, limits, replicated));
  app.get('/health/live', livenessHandler);
  app.use(authenticator.identify);
  app.get('/metrics', ...(options.metricsPublic ? [] : [requireCaller, requirePlatformAdmin]), metrics.serve);
  app.use(rateLimit(limits, rateSubject, metrics.rateLimitRefused));
  if (replicated) app.use(trackWrites(replicated));
  app.get('/', indexHandler(openApi.info as { title: string; version: string }));
  // Another method of these paths is 405 naming GET and HEAD, as under /api.
  for (const path of ['/metrics', '/health', '/health/live', '/']) app.all(path, methodNotAllowed(['GET']));
  app.use('/swagger-ui', labelRoute('/swagger-ui/*'));
  app.use(explorerRouter());
  app.use(accountCallbackRouter(orm, services));
  app.use(requireCaller);
  app.get('/v3/api-docs', fixedJsonAnswer(openApi));
  app.all('/v3/api-docs', methodNotAllowed(['GET']));
  // POSTs with an Idempotency-Key (REST under /api, GraphQL mutations): the caller is known from here on.
  app.use(idempotency(idempotentAnswers));
  app.use('/api', boundedJsonAnswers);
  // REST under /api: a request walks only the routers of its first path segment (see ApiRoutes).
  const api = new ApiRoutes().add(accountRouter()).add(bridgeProxyRouter()).add(aiGatewayRouter());
  for (const router of operationRoutersBySegment(operations, resources)) api.add(router);
  for (const resource of resources) api.mount(`/api/${expressPath(resource.path)}`, resourceRouter(resource));
  app.use(api.handle);
  app.use('/graphql', labelRoute('/graphql'), ...graphql.handler);
  app.use(notFoundHandler);
  app.use(errorHandler);

  return {
    app,
    services,
    stopJobs: async (graceMs) => worker?.stop(graceMs),
    attachSubscriptions: (server) => live.attach(server),
    stopSubscriptions: () => live.disconnect(),
    close: async () => {
      unwatchEventLoop();
      requestsOutage.watchWith(undefined);
      await live.close();
      await worker?.stop();
      await services.expressions.close();
      await graphql.stop();
      await limits.close();
      await accessChanges.close();
      await replicated?.close();
      await primaryReads.close();
      await egress.close();
      // Records still being retried are written (or given up on) before the process ends.
      await lake.flush();
    },
  };
}
