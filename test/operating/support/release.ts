import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Exit } from '../../support/server-process';

/** The repository's root. */
export const ROOT = join(__dirname, '..', '..', '..');

/** A folder of its own under the system's temporary folder, which other users may enter (0755). */
export function scratchFolder(prefix: string): string {
  const folder = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(folder, 0o755);
  return folder;
}

export function removeFolder(folder: string | undefined): void {
  if (folder) rmSync(folder, { recursive: true, force: true });
}

/**
 * The files a release holds: those of the repository (tracked, or new and not ignored: what the next
 * commit holds), with the dist/ that `npm run build` made. No node_modules: the operator installs them.
 */
export function copyRelease(to: string): void {
  const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file !== '' && file !== 'node_modules' && !file.startsWith('node_modules/'));
  for (const file of files) {
    mkdirSync(dirname(join(to, file)), { recursive: true });
    cpSync(join(ROOT, file), join(to, file), { dereference: false, errorOnExist: false });
  }
  cpSync(join(ROOT, 'dist'), join(to, 'dist'), { recursive: true });
}

/** An operator's shell: PATH and HOME, none of the test runner's or npm's own variables. */
export function operatorEnv(env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const clean: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8' };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) clean[name] = value;
  return clean;
}

export interface Ran {
  code: number | null;
  output: string;
}

/** Runs a command to its end (at most `timeoutMs`), its output collected. */
export function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not end within ${options.timeoutMs} ms:\n${output}`));
    }, options.timeoutMs ?? 600_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

export interface Running {
  child: ChildProcess;
  output(): string;
  exited: Promise<Exit>;
}

/** Starts a long-running command in a process group of its own (as a terminal or a service manager would). */
export function startDetached(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Running {
  let output = '';
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })));
  return { child, output: () => output, exited };
}

/** Sends `signal` to the process group `running` leads, if it is still there. */
export function signalGroup(running: Running | undefined, signal: NodeJS.Signals): void {
  if (!running || running.child.exitCode !== null || running.child.signalCode !== null) return;
  try {
    process.kill(-running.child.pid!, signal);
  } catch {
    // gone already
  }
}

/** The HTTP status of GET `url`, or undefined when nothing answers. */
export async function statusOf(url: string): Promise<number | undefined> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(5_000) })).status;
  } catch {
    return undefined;
  }
}
