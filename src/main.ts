import './env';
import 'reflect-metadata';
import type { Server } from 'node:http';
import { appOptions, createApp, type App } from './app';
import { bootstrapAdministrator } from './auth/bootstrap';
import { loadConfig } from './config/config';
import { resolveDatabase, type DatabaseTarget } from './database/database-url';
import { openDatabase } from './database/orm';
import { loadDemoAtStart } from './demo/demo-data';
import { GracefulClose } from './http/graceful-close';
import { logger } from './http/logger';
import type { MikroORM } from '@mikro-orm/core';

/** What a shutdown closes. */
interface Running {
  server: Server;
  connections: GracefulClose;
  app: App;
  orm: MikroORM;
  database: DatabaseTarget;
  graceMs: number;
}

async function main(): Promise<void> {
  const config = loadConfig();
  const database = await resolveDatabase(config.databaseUrl, config.dataDir);
  const orm = await openDatabase(database.url, { statementTimeoutMs: config.databaseStatementTimeoutMs });
  await bootstrapAdministrator(orm, config.bootstrapApiKey);
  const app = await createApp(orm, appOptions(config));
  // Evaluator processes up front: the first trigger filter or SCRIPT step does not wait for one to start.
  app.services.expressions.warm();
  if (process.argv.includes('--demo')) await loadDemoAtStart(orm, app.services, `http://localhost:${config.port}`);
  const server = app.app.listen(config.port, () => {
    logger.info({ port: config.port, embeddedDatabase: !config.databaseUrl }, `listening on http://localhost:${config.port}`);
  });
  app.attachSubscriptions(server);
  const running: Running = { server, connections: GracefulClose.trackAnswers(server), app, orm, database, graceMs: config.shutdownGraceSeconds * 1000 };
  // A second signal during the shutdown ends the process at once (the default action).
  // The embedded database's library stops its clusters at once on these signals, then exits: the
  // shutdown below answers the requests in flight first and stops the cluster last.
  process.removeAllListeners('SIGINT');
  process.removeAllListeners('SIGTERM');
  process.once('SIGINT', () => void shutdown(running, 'SIGINT'));
  process.once('SIGTERM', () => void shutdown(running, 'SIGTERM'));
}

/**
 * Stops taking connections and jobs at once, and closes the subscription connections (their clients
 * reconnect elsewhere); the requests and jobs in flight get SHUTDOWN_GRACE_SECONDS to end (then
 * connections are closed and jobs handed back to the queue); then the ORM's pool, the
 * application and the embedded database are closed. The pool goes first: work cut off at the end of the
 * grace period (a job waiting on an upstream call) must not record the failure the closing application
 * would cause, since its job is retried.
 */
async function shutdown(running: Running, signal: string): Promise<void> {
  const { server, connections, app, orm, database, graceMs } = running;
  logger.info({ signal, inFlight: connections.inFlight, graceSeconds: graceMs / 1000 }, 'shutting down');
  try {
    const [outcome] = await Promise.all([connections.close(graceMs), app.stopJobs(graceMs), app.stopSubscriptions()]);
    if (outcome === 'forced') logger.warn({ graceSeconds: graceMs / 1000 }, 'requests still running at the end of the grace period were cut off');
    await orm.close();
    await app.close();
    await database.stop();
    logger.info({ signal }, 'stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error, listening: server.listening }, 'shutdown failed');
    process.exit(1);
  }
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'could not start');
  process.exit(1);
});
