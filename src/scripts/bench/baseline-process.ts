import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export interface BaselineStats {
  statements: number;
  maxRssKb: number;
}

export interface BaselineProcess {
  base: string;
  stats(): Promise<BaselineStats>;
  stop(): Promise<void>;
}

/** Profiling and debugging flags stay with the bench process; the rest (heap sizes ...) apply to both. */
const OWN_FLAGS = /^--(cpu-prof|heap-prof|prof|inspect)/;

/** Starts baseline.js as a child process on loopback and waits until it listens. */
export async function startBaseline(databaseUrl: string, poolSize: number): Promise<BaselineProcess> {
  const child = fork(join(__dirname, 'baseline.js'), [], {
    env: { ...process.env, NODE_ENV: 'production', BASELINE_DATABASE_URL: databaseUrl, BASELINE_POOL_SIZE: String(poolSize) },
    execArgv: process.execArgv.filter((flag) => !OWN_FLAGS.test(flag)),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the baseline did not start within 15 s')), 15_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the baseline exited at start (${code})`)));
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
  return {
    base: `http://127.0.0.1:${port}`,
    stats: () =>
      new Promise<BaselineStats>((resolve, reject) => {
        const id = ++asked;
        const timer = setTimeout(() => reject(new Error('the baseline did not answer within 5 s')), 5_000);
        const onMessage = (message: { type: string; id?: number } & BaselineStats) => {
          if (message.type !== 'stats' || message.id !== id) return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve({ statements: message.statements, maxRssKb: message.maxRssKb });
        };
        child.on('message', onMessage);
        child.send({ type: 'stats', id });
      }),
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
