import './env';
import 'reflect-metadata';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer } from 'node:net';
import { constants } from 'node:os';
import { appOptions, createApp, type App } from './app';
import { bootstrapAdministrator } from './auth/bootstrap';
import { loadConfig } from './config/config';
import { InvalidConfiguration } from './config/invalid-configuration';
import { resolveDatabase, type DatabaseTarget } from './database/database-url';
import { EmbeddedDatabaseInUse } from './database/embedded-postgres';
import { openDatabase } from './database/orm';
import { loadDemoAtStart } from './demo/demo-data';
import { GracefulClose } from './http/graceful-close';
import { logger } from './logging/logger';
import { within } from './model/deadline';
import type { MikroORM } from '@mikro-orm/core';

/** The signals that stop the server: a container runtime's or systemd's SIGTERM, a terminal's Ctrl-C or hang-up. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/**
 * The same signal again within this time is one request delivered twice: a terminal's Ctrl-C reaches
 * every process of the foreground group, and `npm start` passes the signals it receives on as well.
 */
const REPEAT_MS = 1_000;

/** How long a start that failed may take to release what it had started. */
const RELEASE_AFTER_FAILURE_MS = 15_000;

class PortInUse extends Error {
  constructor(port: number) {
    super(`port ${port} is in use`);
  }
}

/** A stop was asked for while the server was starting. */
class StartInterrupted extends Error {}

/** What has been started so far, all of which a stop closes. */
const running: { server?: Server; connections?: GracefulClose; app?: App; orm?: MikroORM; database?: DatabaseTarget; graceMs: number } = { graceMs: 0 };
let phase: 'starting' | 'running' | 'stopping' = 'starting';
let stopAsked: StopSignal | undefined;
/** The embedded PostgreSQL exited on its own: the server stops too, with a non-zero status, so that a supervisor restarts both. */
let databaseLost = false;
/** The exit status of a stop the embedded database's loss caused. */
const DATABASE_LOST_EXIT = 1;
/** What `shutdown` names as its cause when the embedded database is gone. */
const DATABASE_LOST = 'embedded database stopped';
let lastSignal: { signal: StopSignal; at: number } | undefined;

/**
 * A stop signal while starting ends the start after its current step and releases what it started; once
 * running, it begins the graceful shutdown. Another stop signal during either ends the process at once
 * (exit code 128 + the signal's number; the embedded database is stopped by its exit hook).
 */
function onStopSignal(signal: StopSignal): void {
  const now = Date.now();
  const repeated = lastSignal?.signal === signal && now - lastSignal.at < REPEAT_MS;
  lastSignal = { signal, at: now };
  if (repeated) return;
  if (phase === 'running') {
    void shutdown(signal);
  } else if (phase === 'starting' && !stopAsked) {
    stopAsked = signal;
    logger.info({ signal }, 'stopping once the step of the start under way ends');
  } else {
    logger.warn({ signal }, 'stopping at once');
    process.exit(128 + constants.signals[signal]);
  }
}

/** Throws StartInterrupted when a stop was asked for, or the embedded database is gone. */
function startGoesOn(): void {
  if (stopAsked || databaseLost) throw new StartInterrupted();
}

/**
 * The embedded PostgreSQL exited on its own (killed, crashed). Nothing can be answered without it and
 * this process cannot restart it safely, so the server stops: what is in flight is drained as far as it
 * can be (requests answer 503 meanwhile), then the process exits non-zero, within the grace period and
 * the time a failed release may take, whatever hangs.
 */
function onDatabaseLost(): void {
  databaseLost = true;
  // Also the status of an exit for want of work: with the database gone, a step of the drain may wait on
  // a promise nothing will settle while nothing else keeps the process alive.
  process.exitCode = DATABASE_LOST_EXIT;
  if (phase === 'stopping') return;
  setTimeout(() => process.exit(DATABASE_LOST_EXIT), running.graceMs + RELEASE_AFTER_FAILURE_MS).unref();
  if (phase === 'running') void shutdown(DATABASE_LOST);
}

async function main(): Promise<void> {
  for (const signal of STOP_SIGNALS) process.on(signal, () => onStopSignal(signal));
  const config = loadConfig();
  running.graceMs = config.shutdownGraceSeconds * 1000;
  // At once, before the database starts; listening below still reports a port taken in between.
  await ensurePortFree(config.port);
  running.database = await resolveDatabase(config.databaseUrl, config.dataDir);
  running.database.onUnexpectedExit(onDatabaseLost);
  startGoesOn();
  const orm = (running.orm = await openDatabase(running.database.url, {
    statementTimeoutMs: config.databaseStatementTimeoutMs,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
    // The embedded PostgreSQL is reached directly: the pool mode and direct URL are DATABASE_URL's.
    ...(config.databaseUrl ? { poolMode: config.databasePoolMode, directUrl: config.databaseDirectUrl } : {}),
  }));
  startGoesOn();
  await bootstrapAdministrator(orm, config.bootstrapApiKey);
  const app = (running.app = await createApp(orm, appOptions(config)));
  startGoesOn();
  // Evaluator processes up front: the first trigger filter or SCRIPT step does not wait for one to start.
  app.services.expressions.warm();
  if (process.argv.includes('--demo')) await loadDemoAtStart(orm, app.services, `http://localhost:${config.port}`);
  startGoesOn();
  const server = createServer(app.app);
  // Tracked from the start: a response begun before would not be told to close its connection.
  const connections = GracefulClose.trackAnswers(server);
  app.attachSubscriptions(server);
  await listen(server, config.port);
  running.server = server;
  running.connections = connections;
  startGoesOn();
  phase = 'running';
  logger.info({ port: config.port, embeddedDatabase: !config.databaseUrl }, `listening on http://localhost:${config.port}`);
}

/** Fails with PortInUse when something listens on `port` (on any address, as the server will). */
async function ensurePortFree(port: number): Promise<void> {
  const probe = createNetServer();
  await listen(probe, port);
  await new Promise((resolve) => probe.close(resolve));
}

function listen(server: NetServer, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new PortInUse(port) : error);
    server.once('error', failed);
    server.listen(port, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

/**
 * Stops taking connections and jobs at once, and closes the subscription connections (their clients
 * reconnect elsewhere); the requests and jobs in flight get SHUTDOWN_GRACE_SECONDS to end (then
 * connections are closed and jobs handed back to the queue); then the ORM's pool, the
 * application and the embedded database are closed. The pool goes first: work cut off at the end of the
 * grace period (a job waiting on an upstream call) must not record the failure the closing application
 * would cause, since its job is retried. The database goes last: it serves the requests in flight.
 */
async function shutdown(signal: string): Promise<void> {
  phase = 'stopping';
  const { server, connections, app, graceMs } = running;
  logger.info({ signal, inFlight: connections?.inFlight ?? 0, graceSeconds: graceMs / 1000 }, 'shutting down');
  try {
    const [outcome] = await Promise.all([connections?.close(graceMs), app?.stopJobs(graceMs), app?.stopSubscriptions()]);
    if (outcome === 'forced') logger.warn({ graceSeconds: graceMs / 1000 }, 'requests still running at the end of the grace period were cut off');
    await release();
    logger.info({ signal }, 'stopped');
    process.exit(databaseLost ? DATABASE_LOST_EXIT : 0);
  } catch (error) {
    logger.error({ err: error, listening: server?.listening }, 'shutdown failed');
    process.exit(1);
  }
}

/** Closes the ORM's pool, the application, then the embedded database: whichever of them started. */
async function release(): Promise<void> {
  const { orm, app, database } = running;
  await orm?.close();
  await app?.close();
  await database?.stop();
}

/**
 * A setting that cannot be used: one line on standard error naming it and what it may be (whatever
 * LOG_LEVEL says, which may be the setting refused), no stack; exit status 1. Refused before the
 * database starts, except SECRETS_KEY's file, read once the database is up: what started is released.
 */
async function refuseConfiguration(error: InvalidConfiguration): Promise<void> {
  process.stderr.write(`invalid configuration: ${error.message.replace(/\s*\n\s*/g, ' ')}\n`);
  await within(
    release().catch(() => undefined),
    RELEASE_AFTER_FAILURE_MS,
    undefined,
  );
  process.exit(1);
}

main().catch(async (error: unknown) => {
  if (error instanceof StartInterrupted) return shutdown(stopAsked ?? DATABASE_LOST);
  phase = 'stopping';
  if (error instanceof InvalidConfiguration) return refuseConfiguration(error);
  if (error instanceof PortInUse || error instanceof EmbeddedDatabaseInUse) logger.fatal(error.message);
  else logger.fatal({ err: error }, 'could not start');
  try {
    await within(
      release().then(() => true),
      RELEASE_AFTER_FAILURE_MS,
      false,
    );
  } catch (releaseError) {
    logger.error({ err: releaseError }, 'could not release what the start had started');
  }
  process.exit(1);
});
