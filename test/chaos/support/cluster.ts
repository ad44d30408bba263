import { execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../support/server-process';

/** The machine's PostgreSQL 15 programs (initdb, pg_ctl). */
const BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** A PostgreSQL cluster of the test's own (trust authentication, 127.0.0.1 only) that it stops and starts at will. */
export interface ChaosCluster {
  /** The maintenance database's connection string. */
  url: string;
  port: number;
  /** `pg_ctl stop` in the given mode (fast: sessions ended, as a restart does). */
  stop(mode?: 'fast' | 'immediate'): void;
  start(): void;
  /** Stops it if running and deletes its folder. */
  destroy(): void;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program as the user that owns the cluster (`postgres` when the test runs as root: initdb refuses root). */
function runPostgresProgram(program: string, args: string[]): string {
  const file = join(BIN, program);
  return execFileSync(asRoot ? 'runuser' : file, asRoot ? ['-u', 'postgres', '--', file, ...args] : args, { encoding: 'utf8', stdio: 'pipe' });
}

export async function createCluster(): Promise<ChaosCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'platform-chaos-pg-'));
  const data = join(dir, 'data');
  if (asRoot)
    chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })), Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })));
  runPostgresProgram('initdb', ['-D', data, '--auth=trust', '--username=postgres', '--lc-messages=C', '--no-sync']);
  const port = await freePort();
  // Short checkpoints and no fsync: the tests restart it often, and durability of the machine is not what they test.
  const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off -c max_connections=200`;
  let running = false;
  const cluster: ChaosCluster = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start() {
      runPostgresProgram('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', '-o', options, 'start']);
      running = true;
    },
    stop(mode = 'fast') {
      runPostgresProgram('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']);
      running = false;
    },
    destroy() {
      if (running) {
        try {
          cluster.stop('immediate');
        } catch {
          // already stopped
        }
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}

/** A redis-server of the test's own on a free port, without persistence. */
export interface ChaosRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function createRedis(): Promise<ChaosRedis> {
  const port = await freePort();
  let child: ReturnType<typeof spawn> | undefined;
  const redis: ChaosRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      await waitForPort(port, true);
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}

/** Waits until something listens on `port` (or nothing does). */
async function waitForPort(port: number, listening: boolean): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open === listening) return;
    if (Date.now() > deadline) throw new Error(`port ${port} did not ${listening ? 'open' : 'close'}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
