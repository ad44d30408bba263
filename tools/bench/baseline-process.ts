import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { SentStatement } from './baseline-kit';

export interface BaselineStats {
  statements: number;
  maxRssKb: number;
  /** The statements sent since `record()`, when it was called (then recording stops). */
  recorded?: SentStatement[];
}

/** One side the server is measured against, running in a child process of its own. */
export interface BaselineProcess {
  name: string;
  base: string;
  stats(): Promise<BaselineStats>;
  /** Keeps the texts of the statements sent from now until the next `stats()`. */
  record(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A baseline's idle connections close after this long, so that between its phases it holds none of the
 * database server's connections: the sides run one after the other, and four pools of the server's size
 * at once would come close to PostgreSQL's default limit of 100. The next warm-up opens them again.
 */
export const IDLE_MS = 1000;

/** Profiling and debugging flags stay with the bench process; the rest (heap sizes ...) apply to every side. */
const OWN_FLAGS = /^--(cpu-prof|heap-prof|prof|inspect)/;

/**
 * Starts bench/<script>.js as a child process on loopback, with the scratch database and a pool of
 * `poolSize` connections (and `env`), and waits until it listens (PostGraphile builds its schema first).
 */
export async function startBaseline(
  name: string,
  script: string,
  databaseUrl: string,
  poolSize: number,
  env: Record<string, string> = {},
): Promise<BaselineProcess> {
  const child = fork(join(__dirname, `${script}.js`), [], {
    env: {
      ...process.env,
      ...env,
      NODE_ENV: 'production',
      BASELINE_DATABASE_URL: databaseUrl,
      BASELINE_POOL_SIZE: String(poolSize),
      BASELINE_IDLE_MS: String(IDLE_MS),
    },
    execArgv: process.execArgv.filter((flag) => !OWN_FLAGS.test(flag)),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s`)), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${name} exited at start (${code})`)));
    child.on('message', (message: { type: string; port?: number }) => {
      if (message.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message.port!);
    });
  }).catch(async (error: unknown) => {
    await kill(child);
    throw error;
  });

  let asked = 0;
  /** Sends `type` and waits for the answer of that type carrying the same id. */
  const ask = <T>(type: string, answer: string) =>
    new Promise<T>((resolve, reject) => {
      const id = ++asked;
      const timer = setTimeout(() => reject(new Error(`${name} did not answer within 5 s`)), 5_000);
      const onMessage = (message: { type: string; id?: number } & T) => {
        if (message.type !== answer || message.id !== id) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(message);
      };
      child.on('message', onMessage);
      child.send({ type, id });
    });
  return {
    name,
    base: `http://127.0.0.1:${port}`,
    stats: () => ask<BaselineStats>('stats', 'stats'),
    record: async () => {
      await ask<unknown>('record', 'recording');
    },
    stop: async () => {
      if (child.exitCode === null && child.connected) child.send({ type: 'stop' });
      await kill(child);
    },
  };
}

/** Waits up to 5 s for the child to exit, then kills it. */
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
