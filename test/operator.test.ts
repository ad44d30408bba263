import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../src/modules/access/api-keys';
import { isAlive } from '../src/database/embedded-postgres';
import { projectRoot } from '../src/database/project-root';
import { until, type Exit } from './support/server-process';

/**
 * `npm start` as an operator runs it: a child process (npm, then the server it runs), in a process
 * group of its own as a terminal or a service manager makes one, with the embedded PostgreSQL in a
 * temporary DATA_DIR. Each test ends every process it started, whatever its outcome. The first build
 * compiles; the later `npm start`s find dist/ up to date and start at once.
 */
type Row = Record<string, any>;

interface Started {
  child: ChildProcess;
  port: number;
  dataDir: string;
  output(): string;
  exited: Promise<Exit>;
}

const started: Started[] = [];
const dataDirs: string[] = [];
const blockers: Server[] = [];

/** The environment of an operator's shell: none of the test runner's or npm's own variables. */
function operatorEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(npm_|VITEST|DATABASE_URL$|NODE_ENV$|PORT$|DATA_DIR$)/.test(name)) continue;
    clean[name] = value;
  }
  return { ...clean, LOG_LEVEL: 'info', ...env };
}

function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'platform-operator-'));
  dataDirs.push(dir);
  return dir;
}

/** `npm start` (or `npm run <script>`) in the project, detached: a process group of its own, led by npm. */
function npm(args: string[], env: Record<string, string>): Started {
  let output = '';
  const child = spawn('npm', args, { cwd: projectRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: operatorEnv(env) });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  const run: Started = { child, port: Number(env.PORT ?? 0), dataDir: env.DATA_DIR ?? '', output: () => output, exited };
  started.push(run);
  return run;
}

/**
 * A free port below the ephemeral range (32768 and up on Linux), as a configured PORT usually is: the
 * embedded PostgreSQL listens on an ephemeral port, which could otherwise be the one just probed.
 */
async function serverPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await portIsFree(port)) return port;
  }
}

async function npmStart(options: { port?: number; dataDir?: string; env?: Record<string, string> } = {}): Promise<Started> {
  const port = options.port ?? (await serverPort());
  const dataDir = options.dataDir ?? newDataDir();
  return npm(['start'], { PORT: String(port), DATA_DIR: dataDir, ...options.env });
}

/** The server's JSON log lines. */
function logLines(run: Started): Row[] {
  return run
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Row);
}

function logLine(run: Started, message: string): Row | undefined {
  return logLines(run).find((line) => typeof line.msg === 'string' && line.msg.startsWith(message));
}

async function untilLogged(run: Started, message: string, timeoutMs = 120_000): Promise<Row> {
  await until(
    `"${message}"`,
    () => {
      if (logLine(run, message)) return true;
      if (run.child.exitCode !== null || run.child.signalCode !== null) throw new Error(`npm exited before "${message}":\n${run.output()}`);
      return false;
    },
    timeoutMs,
  );
  return logLine(run, message)!;
}

/** Waits for `npm start` to serve; the ids of the server process and of its PostgreSQL. */
async function serving(run: Started): Promise<{ serverPid: number; postgresPid: number }> {
  const database = await untilLogged(run, 'embedded PostgreSQL started');
  await untilLogged(run, 'listening on');
  return { serverPid: database.pid, postgresPid: database.postgresPid };
}

async function exitOf(run: Started, timeoutMs = 60_000): Promise<Exit> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`npm did not exit within ${timeoutMs} ms:\n${run.output()}`)), timeoutMs)),
  );
  try {
    return await Promise.race([run.exited, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Error and fatal lines of the server's log. */
function errorLines(run: Started): Row[] {
  return logLines(run).filter((line) => line.level >= 50);
}

function postmasterPid(dataDir: string): number | undefined {
  const file = join(dataDir, 'postgres', 'postmaster.pid');
  return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
}

async function portIsFree(port: number): Promise<boolean> {
  const probe = createServer();
  const free = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, () => resolve(true));
  });
  if (free) await new Promise((resolve) => probe.close(resolve));
  return free;
}

/** Something else listening on `port`, on every address as the server would. */
async function takePort(port: number): Promise<void> {
  const blocker = createServer();
  blockers.push(blocker);
  await new Promise<void>((resolve, reject) => {
    blocker.once('error', reject);
    blocker.listen(port, resolve);
  });
}

async function status(port: number, path: string): Promise<number | undefined> {
  return (await fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined))?.status;
}

/** Nothing of a stopped start runs any more and its port is free. */
async function expectAllStopped(run: Started, pids: number[]): Promise<void> {
  await until('the server and its PostgreSQL to end', () => pids.every((pid) => !isAlive(pid)), 15_000);
  expect(postmasterPid(run.dataDir)).toBeUndefined();
  expect(await portIsFree(run.port)).toBe(true);
}

function kill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

beforeAll(() => {
  // One compilation up front (when dist/ is not current): each `npm start` below finds dist/ up to date.
  const build = npm(['run', 'build'], {});
  return exitOf(build, 300_000).then((exit) => expect(exit.code, build.output()).toBe(0));
}, 320_000);

afterEach(async () => {
  const postgres = dataDirs.map(postmasterPid).filter((pid): pid is number => pid !== undefined);
  for (const run of started.splice(0)) {
    if (run.child.exitCode === null && run.child.signalCode === null) kill(-run.child.pid!, 'SIGKILL');
    for (const line of logLines(run)) {
      if (typeof line.pid === 'number' && line.pid !== run.child.pid) kill(line.pid, 'SIGKILL');
      if (typeof line.postgresPid === 'number') postgres.push(line.postgresPid);
    }
  }
  // PostgreSQL runs in a process group of its own; its backends end with it.
  for (const pid of postgres) if (isAlive(pid)) kill(pid, 'SIGKILL');
  await until('the PostgreSQL processes to end', () => postgres.every((pid) => !isAlive(pid)), 15_000).catch(() => undefined);
  for (const blocker of blockers.splice(0)) blocker.close();
  for (const dir of dataDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('npm start, when its port is taken', () => {
  it('exits 1 at once with "port N is in use", having started nothing', async () => {
    const port = await serverPort();
    await takePort(port);
    const run = await npmStart({ port });
    const exit = await exitOf(run, 60_000);
    expect(exit.code, run.output()).toBe(1);
    expect(logLine(run, `port ${port} is in use`), run.output()).toMatchObject({ level: 60 });
    expect(run.output()).not.toContain('listening on');
    expect(logLine(run, 'embedded PostgreSQL started')).toBeUndefined();
    expect(existsSync(join(run.dataDir, 'postgres'))).toBe(false);
  }, 90_000);

  it('taken while it starts: exits 1 with "port N is in use", and stops the embedded database and everything else it started', async () => {
    const port = await serverPort();
    const run = await npmStart({ port });
    const database = await untilLogged(run, 'embedded PostgreSQL started');
    // The server migrates and starts its job workers before it listens: the port is taken meanwhile.
    await takePort(port);
    const exit = await exitOf(run);
    expect(exit.code, run.output()).toBe(1);
    expect(logLine(run, `port ${port} is in use`), run.output()).toMatchObject({ level: 60 });
    expect(run.output()).not.toContain('listening on');
    await until('the server and its PostgreSQL to end', () => !isAlive(database.pid) && !isAlive(database.postgresPid), 15_000);
    expect(postmasterPid(run.dataDir)).toBeUndefined();
  }, 180_000);
});

describe('npm start, when another server uses the embedded database', () => {
  it('refuses to start (exit 1) with a message naming the other server, which serves on untouched', async () => {
    const first = await npmStart();
    const { serverPid, postgresPid } = await serving(first);
    const pidFile = readFileSync(join(first.dataDir, 'postgres', 'postmaster.pid'), 'utf8');

    const second = await npmStart({ dataDir: first.dataDir });
    const exit = await exitOf(second, 90_000);
    expect(exit.code, second.output()).toBe(1);
    const refusal = `the embedded database in ${join(first.dataDir, 'postgres')} is in use by another server process (pid ${serverPid}); stop it first or set DATA_DIR`;
    expect(logLine(second, refusal), second.output()).toMatchObject({ level: 60 });
    expect(logLine(second, 'embedded PostgreSQL started')).toBeUndefined();

    expect(isAlive(postgresPid)).toBe(true);
    expect(readFileSync(join(first.dataDir, 'postgres', 'postmaster.pid'), 'utf8')).toBe(pidFile);
    // The first server still reaches its database.
    expect(await status(first.port, '/health')).toBe(200);

    kill(first.child.pid!, 'SIGTERM');
    expect(await exitOf(first)).toMatchObject({ code: 0, signal: null });
    await expectAllStopped(first, [serverPid, postgresPid]);
    expect(errorLines(first)).toEqual([]);
  }, 240_000);

  it('stops the PostgreSQL a killed server left running, and starts', async () => {
    const crashed = await npmStart();
    const left = await serving(crashed);
    kill(left.serverPid, 'SIGKILL');
    await exitOf(crashed);
    expect(isAlive(left.postgresPid)).toBe(true);

    const next = await npmStart({ dataDir: crashed.dataDir });
    const { serverPid, postgresPid } = await serving(next);
    expect(logLine(next, 'stopping the embedded PostgreSQL left running by a server process that is gone'), next.output()).toMatchObject({
      pid: serverPid,
      postgresPid: left.postgresPid,
      startedBy: left.serverPid,
    });
    expect(isAlive(left.postgresPid)).toBe(false);
    expect(postgresPid).not.toBe(left.postgresPid);
    expect(await status(next.port, '/health')).toBe(200);

    kill(next.child.pid!, 'SIGTERM');
    expect(await exitOf(next)).toMatchObject({ code: 0, signal: null });
    await expectAllStopped(next, [serverPid, postgresPid]);
  }, 240_000);
});

describe('npm start, stopped by a signal', () => {
  it('SIGTERM to the npm process (as a container runtime or systemd sends it) stops the server and its database, frees the port, and npm exits 0', async () => {
    const run = await npmStart();
    const { serverPid, postgresPid } = await serving(run);
    kill(run.child.pid!, 'SIGTERM');
    expect(await exitOf(run), run.output()).toMatchObject({ code: 0, signal: null });
    expect(logLine(run, 'stopped')).toMatchObject({ signal: 'SIGTERM' });
    expect(errorLines(run)).toEqual([]);
    await expectAllStopped(run, [serverPid, postgresPid]);
  }, 180_000);

  it('Ctrl-C (SIGINT to the whole process group) answers the request in flight with the database still up, stops the database last, and exits 0 without an error logged', async () => {
    const adminKey = generateApiKey();
    const run = await npmStart({ env: { BOOTSTRAP_API_KEY: adminKey, SHUTDOWN_GRACE_SECONDS: '20' } });
    const { serverPid, postgresPid } = await serving(run);

    // A creation whose body is half sent: the server holds it until the rest arrives.
    const body = Buffer.from(JSON.stringify({ name: `Ctrl-C ${Date.now()}` }));
    const req = httpRequest({
      host: '127.0.0.1',
      port: run.port,
      method: 'POST',
      path: '/api/organizations',
      agent: false,
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json', 'content-length': String(body.length) },
    });
    const answer = new Promise<{ status: number; headers: IncomingHttpHeaders; body: string }>((resolve, reject) => {
      req.on('error', reject);
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      });
    });
    req.write(body.subarray(0, body.length >> 1));
    await new Promise((resolve) => setTimeout(resolve, 300));

    kill(-run.child.pid!, 'SIGINT');
    const shuttingDown = await untilLogged(run, 'shutting down', 10_000);
    expect(shuttingDown).toMatchObject({ signal: 'SIGINT', inFlight: 1 });
    // The terminal's SIGINT did not reach the database: it serves the request still in flight.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(isAlive(postgresPid)).toBe(true);
    req.end(body.subarray(body.length >> 1));
    const created = await answer;
    expect(created.status, created.body).toBe(201);
    expect(created.headers.connection).toBe('close');

    expect(await exitOf(run), run.output()).toMatchObject({ code: 0, signal: null });
    expect(logLine(run, 'stopped')).toMatchObject({ signal: 'SIGINT' });
    // One shutdown, however many times the signal arrived (the group's and the one npm passed on).
    expect(logLines(run).filter((line) => line.msg === 'shutting down')).toHaveLength(1);
    expect(errorLines(run)).toEqual([]);
    await expectAllStopped(run, [serverPid, postgresPid]);
  }, 180_000);
});

describe('npm start, stopped by a signal at another moment', () => {
  it('Ctrl-C while it starts stops it once the step under way ends, the database included, and exits 0', async () => {
    const run = await npmStart();
    const database = await untilLogged(run, 'embedded PostgreSQL started');
    kill(-run.child.pid!, 'SIGINT');
    expect(await exitOf(run), run.output()).toMatchObject({ code: 0, signal: null });
    expect(run.output()).not.toContain('listening on');
    expect(logLine(run, 'stopped')).toMatchObject({ signal: 'SIGINT' });
    expect(errorLines(run)).toEqual([]);
    await expectAllStopped(run, [database.pid, database.postgresPid]);
  }, 180_000);

  it('a second Ctrl-C during the shutdown ends the server at once, the database too', async () => {
    const adminKey = generateApiKey();
    const run = await npmStart({ env: { BOOTSTRAP_API_KEY: adminKey, SHUTDOWN_GRACE_SECONDS: '60' } });
    const { serverPid, postgresPid } = await serving(run);
    // A request that never completes keeps the shutdown waiting for the whole grace period.
    const req = httpRequest({
      host: '127.0.0.1',
      port: run.port,
      method: 'POST',
      path: '/api/organizations',
      agent: false,
      headers: { 'x-api-key': adminKey, 'content-type': 'application/json', 'content-length': '100' },
    });
    req.on('error', () => undefined);
    req.write('{"name":');
    await new Promise((resolve) => setTimeout(resolve, 300));
    kill(-run.child.pid!, 'SIGINT');
    await untilLogged(run, 'shutting down', 10_000);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const secondAt = Date.now();
    kill(-run.child.pid!, 'SIGINT');
    const exit = await exitOf(run, 10_000);
    expect(exit.code, run.output()).not.toBe(0);
    expect(exit.at - secondAt).toBeLessThan(5_000);
    expect(logLine(run, 'stopping at once')).toMatchObject({ signal: 'SIGINT' });
    await expectAllStopped(run, [serverPid, postgresPid]);
    req.destroy();
  }, 180_000);
});

describe('npm run build', () => {
  it('under a running server, replaces dist/ file by file: every file stays readable, the server serves on, outputs no longer produced are removed', async () => {
    // Asked every few milliseconds while the build runs: rate limits are not what this is about.
    const run = await npmStart({ env: { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_BURST_PER_SECOND: '1000000' } });
    const { serverPid, postgresPid } = await serving(run);
    const outputs: string[] = JSON.parse(readFileSync(join(projectRoot, 'dist', '.build-stamp.json'), 'utf8')).outputs;
    expect(outputs).toContain('src/main.js');
    const stale = join(projectRoot, 'dist', 'src', `stale-output-${process.pid}.js`);
    writeFileSync(stale, '// from a source that no longer exists\n');

    const build = npm(['run', 'build', '--', '--force'], {});
    let looks = 0;
    const missing = new Set<string>();
    while (build.child.exitCode === null && build.child.signalCode === null) {
      for (const file of outputs) if (!existsSync(join(projectRoot, 'dist', file))) missing.add(file);
      expect(await status(run.port, '/health/live')).toBe(200);
      looks++;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await exitOf(build, 300_000), build.output()).toMatchObject({ code: 0 });
    expect(looks).toBeGreaterThan(5);
    expect([...missing]).toEqual([]);
    expect(existsSync(stale)).toBe(false);
    expect(await status(run.port, '/health')).toBe(200);

    const again = npm(['run', 'build'], {});
    expect(await exitOf(again, 60_000)).toMatchObject({ code: 0 });
    expect(again.output()).toContain('dist/ is up to date');

    kill(run.child.pid!, 'SIGTERM');
    expect(await exitOf(run)).toMatchObject({ code: 0, signal: null });
    await expectAllStopped(run, [serverPid, postgresPid]);
  }, 420_000);
});

describe('Node.js version', () => {
  const load = createRequire(join(projectRoot, 'package.json'));
  const semver = load('semver') as {
    subset(range: string, of: string): boolean;
    satisfies(version: string, range: string): boolean;
    intersects(a: string, b: string): boolean;
  };
  const engines: string = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')).engines.node;

  it('package.json engines admits only versions that every installed package supports, this one included, and .nvmrc names one of them', () => {
    const installed: Record<string, Row> = JSON.parse(readFileSync(join(projectRoot, 'node_modules', '.package-lock.json'), 'utf8')).packages;
    const narrower = Object.entries(installed)
      .filter(([, info]) => typeof info.engines?.node === 'string' && !semver.subset(engines, info.engines.node))
      .map(([path, info]) => `${path}: ${info.engines.node}`);
    expect(narrower).toEqual([]);
    expect(semver.satisfies(process.version, engines)).toBe(true);
    const nvmrc = readFileSync(join(projectRoot, '.nvmrc'), 'utf8').trim();
    expect(semver.intersects(`${nvmrc}.x`, engines)).toBe(true);
  });
});
