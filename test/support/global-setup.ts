import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { databaseServer, dropDatabase, ensureDatabase, withDatabase } from '../../src/database/database-url';
import { isAlive } from '../../src/database/embedded-postgres';
import { openDatabase } from '../../src/database/orm';
import 'reflect-metadata';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** Embedded clusters of test runs, one folder per run so that concurrent runs never share a server. */
const RUNS_DIR = join('.data', 'test-runs');

/**
 * One fresh database per run, on DATABASE_URL's server or on an embedded PostgreSQL of the run's own,
 * migrated once with the committed migrations and dropped (or deleted with its cluster) at the end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  removeAbandonedRuns();
  const runDir = join(RUNS_DIR, `run-${process.pid}`);
  const server = await databaseServer(process.env.DATABASE_URL, runDir);
  const name = `platform_test_${Date.now()}_${process.pid}`;
  await ensureDatabase(server.serverUrl, name);
  const url = withDatabase(server.serverUrl, name);
  const orm = await openDatabase(url);
  await orm.close();
  project.provide('databaseUrl', url);
  return async () => {
    await dropDatabase(server.serverUrl, name);
    await server.stop();
    rmSync(runDir, { recursive: true, force: true });
  };
}

/** Folders of runs whose process is gone (a crash or an interrupted run). */
function removeAbandonedRuns(): void {
  if (!existsSync(RUNS_DIR)) return;
  for (const entry of readdirSync(RUNS_DIR)) {
    const pid = Number(entry.replace(/^run-/, ''));
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
    const postmaster = join(RUNS_DIR, entry, 'postgres', 'postmaster.pid');
    if (existsSync(postmaster)) continue; // its server may still be stopping; the next run sweeps it
    rmSync(join(RUNS_DIR, entry), { recursive: true, force: true });
  }
}
