import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requester, type TestServer } from '../../support/server';

/** The built server (`npm run build`) as `npm start` runs it. */
const MAIN = join(__dirname, '..', '..', '..', 'dist', 'src', 'main.js');

export interface ChildServer {
  url: string;
  pid: number;
  /** JSON requests as the bootstrap administrator. */
  request: TestServer['request'];
  /** Error and fatal lines the process logged so far. */
  errorLines(): string[];
  /** The process's resident memory in bytes (VmRSS of /proc/<pid>/status). */
  rss(): number;
  /** With `traceGc`: each full garbage collection (mark-compact), when (epoch ms, about) and the heap it left, in MB. */
  fullCollections(): { at: number; heapAfter: number }[];
  /** SIGKILL: no shutdown of any kind; resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit (SIGKILL after 15 s). */
  stop(): Promise<void>;
}

export interface ChildServerOptions {
  databaseUrl: string;
  /** BOOTSTRAP_API_KEY: the administrator's key, the same across restarts. */
  adminKey: string;
  /** A folder for DATA_DIR (secrets key, data lake), the same across restarts. */
  dataDir: string;
  env?: Record<string, string>;
  /** Start node with --trace-gc: V8 prints each collection (nothing is exposed by the server itself). */
  traceGc?: boolean;
}

/** A --trace-gc line: `[pid:0x…]  60893 ms: Mark-Compact 120.5 (150.3) -> 98.7 (140.1) MB, …`. */
const GC_LINE = /^\[\d+:0x[0-9a-f]+\]\s+(\d+) ms: ([A-Za-z-]+(?: \(reduce\))?) [\d.]+ \([\d.]+\) -> ([\d.]+) \([\d.]+\) MB/;

/** A free port on the loopback interface. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

export function childDataDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'platform-reliability-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Starts the server as a child process and waits for /health to answer 200. */
export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--max-semi-space-size=32', ...(options.traceGc ? ['--trace-gc'] : []), MAIN], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: options.databaseUrl,
      PORT: String(port),
      BOOTSTRAP_API_KEY: options.adminKey,
      DATA_DIR: options.dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '100000000',
      RATE_LIMIT_BURST_PER_SECOND: '100000000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errors: string[] = [];
  const collections: { at: number; heapAfter: number }[] = [];
  const spawned = Date.now();
  let pending = '';
  const collect = (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const gc = GC_LINE.exec(line);
      if (gc) {
        if (gc[2].startsWith('Mark-Compact')) collections.push({ at: spawned + Number(gc[1]), heapAfter: Number(gc[3]) });
        continue;
      }
      // pino's JSON lines: level 50 is error, 60 fatal; any other text counts too.
      if (/"level":(50|60)/.test(line) || (line.trim() && !line.startsWith('{'))) errors.push(line);
    }
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the server exited while starting:\n${errors.join('\n')}`);
    const health = await fetch(`${url}/health`).catch(() => undefined);
    if (health?.ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the server did not answer /health within 60 s:\n${errors.join('\n')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const gone = () => child.exitCode !== null || child.signalCode !== null;
  return {
    url,
    pid: child.pid!,
    request: requester(url, options.adminKey),
    errorLines: () => [...errors],
    fullCollections: () => [...collections],
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
      if (!kb) throw new Error(`no VmRSS in /proc/${child.pid}/status`);
      return Number(kb[1]) * 1024;
    },
    async kill() {
      if (!gone()) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (gone()) return;
      const forced = setTimeout(() => child.kill('SIGKILL'), 15_000);
      child.kill('SIGTERM');
      await exited;
      clearTimeout(forced);
    },
  };
}
