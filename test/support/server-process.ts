import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

/** How a server process ended, and when (epoch milliseconds). */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  at: number;
}

/** The built server (dist/src/main.js, from `npm run build`) as a process of its own. */
export interface ServerProcess {
  port: number;
  url: string;
  child: ChildProcess;
  /** Everything it wrote to standard output and error so far. */
  output(): string;
  exited: Promise<Exit>;
  /** SIGTERM, then its exit. */
  stop(): Promise<Exit>;
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', resolve);
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Waits until `check` holds, looking every 20 ms; throws after `timeoutMs`. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Starts the built server with the test runner's environment and `env` (DATABASE_URL at least) on a
 * free port, and waits until it answers. Kill what it returns when the test ends.
 */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'dist', 'src', 'main.js')], {
    env: { ...process.env, PORT: String(port), NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const url = `http://127.0.0.1:${port}`;
  await until(
    'the server process to listen',
    async () => {
      if (child.exitCode !== null) throw new Error(`the server process exited with ${child.exitCode}:\n${output}`);
      // Listening is what counts: a 429 is an answer too (the client address's budget may be shared in Redis).
      const status = (await fetch(`${url}/health/live`).catch(() => undefined))?.status;
      return status === 200 || status === 429;
    },
    60_000,
  );
  return {
    port,
    url,
    child,
    output: () => output,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
