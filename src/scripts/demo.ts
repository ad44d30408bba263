import '../env';
import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { bootstrapAdministrator } from '../auth/bootstrap';
import { loadConfig } from '../config/config';
import { resolveDatabase } from '../database/database-url';
import { isAlive } from '../database/embedded-postgres';
import { openDatabase } from '../database/orm';
import { demoSummaryText, loadDemo, waitForDemoActivities } from '../demo/demo-data';
import { JobWorker, migrateJobQueue } from '../jobs/job-queue';
import { resources } from '../catalog/registry';
import { automationJobs } from '../modules/workflow/automation-jobs';
import { openDataLake } from '../modules/integrations/data-lake';
import { Services } from '../engine/services';
import { modules } from '../modules';

/** How long the script runs the activity its demo tasks started before leaving it to the server. */
const ACTIVITY_WAIT_MS = 30_000;

/**
 * `npm run demo`: loads the demo organization (src/demo/demo-data.ts) into an empty database, the one
 * `npm start` uses (DATABASE_URL, or the embedded PostgreSQL under DATA_DIR), then runs the activity
 * that the demo's trigger started so that its generated task is there too. Exits 1, having written
 * nothing, when the database is not empty (or the embedded database is in use by a running server).
 */
async function main(): Promise<number> {
  const config = loadConfig();
  if (!config.databaseUrl) {
    const running = runningEmbeddedServer(config.dataDir);
    if (running) {
      process.stdout.write(
        `\nThe embedded database under ${config.dataDir} is in use (PostgreSQL process ${running}): stop the server first and run \`npm run demo\` again, ` +
          'or start the server with `npm start -- --demo`. Nothing was written.\n\n',
      );
      return 1;
    }
  }
  const database = await resolveDatabase(config.databaseUrl, config.dataDir);
  try {
    const orm = await openDatabase(database.url);
    try {
      // As at the first start of the server: someone can administer the platform afterwards.
      await bootstrapAdministrator(orm, config.bootstrapApiKey);
      await migrateJobQueue(database.url);
      const services = new Services(resources, modules, { lake: openDataLake(config.dataLake) });
      const outcome = await loadDemo(orm, services);
      if (!outcome.loaded) {
        process.stdout.write(`\nDemo data not loaded: ${outcome.reason}\n\n`);
        return 1;
      }
      process.stdout.write(demoSummaryText(outcome.summary, `http://localhost:${config.port}`));
      if (config.workerConcurrency === 0) {
        process.stdout.write('WORKER_CONCURRENCY=0: the activity the demo started runs when a server with a worker starts.\n\n');
        return 0;
      }
      const worker = await JobWorker.start(database.url, 1, automationJobs(orm, services));
      try {
        const activities = await waitForDemoActivities(orm, outcome.summary, ACTIVITY_WAIT_MS);
        for (const activity of activities) process.stdout.write(`Activity "${activity.title}": ${activity.status}\n`);
        process.stdout.write('\n');
      } finally {
        await worker.stop();
      }
      return 0;
    } finally {
      await orm.close();
    }
  } finally {
    await database.stop();
  }
}

/** The process id of a live PostgreSQL on the embedded data folder (a running server's), if any. */
function runningEmbeddedServer(dataDir: string): number | undefined {
  const pidFile = join(resolve(dataDir), 'postgres', 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
