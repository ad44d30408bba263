import { chownSync, cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { run, type Ran } from './release';

/**
 * The Dockerfile's steps, run in folders of the host instead of a container engine: each stage is a
 * folder standing for its image's root (`/app` of a stage is `<stage folder>/app`), the host's Node.js
 * and npm stand for the base image's, RUN runs in WORKDIR with `sh -c` as root (as a build does before
 * USER), COPY copies from the build context or from an earlier stage's folder. The image's USER,
 * ENV, EXPOSE, HEALTHCHECK and CMD are read for the test to run the server as the image would.
 *
 * Only what the project's Dockerfile uses is understood; anything else fails, naming the line. A RUN
 * that names an absolute path is refused: here it would act on the host.
 */

export interface Instruction {
  line: number;
  keyword: string;
  text: string;
}

export interface Stage {
  name: string;
  /** The base image named by FROM, ARGs replaced. */
  from: string;
  /** The folder standing for the stage's root. */
  root: string;
  /** The image's WORKDIR, and the folder standing for it. */
  workdir: { image: string; host: string };
  /** ENV so far, paths of the image moved into the stage's folder. */
  env: Record<string, string>;
  /** USER, as uid and gid (numbers, as the image names them). */
  user?: { uid: number; gid: number };
  exposed: number[];
  healthcheck?: { options: Record<string, string>; command: string[] };
  command?: string[];
}

/** The instructions, continuation lines joined, comments and blank lines dropped. */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending: { line: number; text: string } | undefined;
  text.split('\n').forEach((raw, index) => {
    if (!pending && (raw.trim() === '' || raw.trim().startsWith('#'))) return;
    const part = raw.replace(/\\\s*$/, '');
    pending = pending ? { line: pending.line, text: `${pending.text} ${part.trim()}` } : { line: index + 1, text: part.trim() };
    if (/\\\s*$/.test(raw)) return;
    const [keyword] = pending.text.split(/\s+/, 1);
    instructions.push({ line: pending.line, keyword: keyword.toUpperCase(), text: pending.text.slice(keyword.length).trim() });
    pending = undefined;
  });
  return instructions;
}

/** `--name=value` options at the start of `text`, and the rest. */
function options(text: string): { options: Record<string, string>; rest: string } {
  const found: Record<string, string> = {};
  let rest = text;
  for (let match = /^--([a-z-]+)=(\S+)\s+/.exec(rest); match; match = /^--([a-z-]+)=(\S+)\s+/.exec(rest)) {
    found[match[1]] = match[2];
    rest = rest.slice(match[0].length);
  }
  return { options: found, rest };
}

function execForm(text: string, line: number): string[] {
  const parsed: unknown = JSON.parse(text);
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`line ${line}: expected the exec form ["...", ...]`);
  return parsed;
}

/** `NAME=value NAME2="value 2"` pairs. */
function assignments(text: string): [string, string][] {
  return [...text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)].map((match) => [match[1], match[2].replace(/^"|"$/g, '')]);
}

/** A path of the image, as a path of the stage's folder. */
function hostPath(stage: Stage, imagePath: string): string {
  return imagePath.startsWith('/') ? join(stage.root, imagePath) : join(stage.workdir.host, imagePath);
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownTree(join(path, entry), uid, gid);
}

export interface BuildOptions {
  /** The build context (the repository). */
  context: string;
  /** Where the stages' folders go. */
  folder: string;
  /** The environment RUN starts from (PATH above all). */
  env: NodeJS.ProcessEnv;
  /** Told of each step as it runs. */
  onStep?(instruction: Instruction, ran?: Ran): void;
}

/** Runs every stage; the stages, the last being the image. */
export async function buildStages(instructions: Instruction[], { context, folder, env, onStep }: BuildOptions): Promise<Stage[]> {
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  const substitute = (text: string) => text.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced, bare) => args[braced ?? bare] ?? whole);
  for (const instruction of instructions) {
    const stage = stages.at(-1);
    const refuse = (why: string) => new Error(`Dockerfile line ${instruction.line} (${instruction.keyword}): ${why}`);
    const text = substitute(instruction.text);
    switch (instruction.keyword) {
      case 'ARG': {
        const [[name, value]] = assignments(text);
        args[name] = value;
        break;
      }
      case 'FROM': {
        const [from, as, name] = text.split(/\s+/);
        if (as?.toUpperCase() !== 'AS' || !name) throw refuse('every stage is named (FROM image AS name)');
        const root = join(folder, name);
        mkdirSync(root, { recursive: true });
        stages.push({ name, from, root, workdir: { image: '/', host: root }, env: {}, exposed: [] });
        break;
      }
      case 'WORKDIR':
        if (!stage) throw refuse('before FROM');
        stage.workdir = { image: text, host: hostPath(stage, text) };
        mkdirSync(stage.workdir.host, { recursive: true });
        break;
      case 'ENV':
        if (!stage) throw refuse('before FROM');
        for (const [name, value] of assignments(text)) stage.env[name] = value.startsWith('/') ? hostPath(stage, value) : value;
        break;
      case 'COPY': {
        if (!stage) throw refuse('before FROM');
        const { options: copyOptions, rest } = options(text);
        const parts = rest.split(/\s+/);
        const target = parts.pop()!;
        const source = copyOptions.from ? stages.find((earlier) => earlier.name === copyOptions.from) : undefined;
        if (copyOptions.from && !source) throw refuse(`no stage ${copyOptions.from} before`);
        const into = hostPath(stage, target);
        const intoFolder = target.endsWith('/') || parts.length > 1;
        for (const part of parts) {
          const from = source ? hostPath(source, part) : join(context, part);
          if (!existsSync(from)) throw refuse(`${part} is not there to copy`);
          const to = intoFolder ? join(into, basename(from)) : into;
          mkdirSync(intoFolder ? into : join(to, '..'), { recursive: true });
          cpSync(from, to, { recursive: true });
          if (copyOptions.chown) chownTree(to, ...(copyOptions.chown.split(':').map(Number) as [number, number]));
        }
        break;
      }
      case 'RUN': {
        if (!stage) throw refuse('before FROM');
        const { rest: command } = options(text);
        if (/(^|[\s=])\//.test(command)) throw refuse(`names an absolute path, which would act on this machine: ${command}`);
        if (stage.user) throw refuse('RUN after USER is not understood here');
        const ran = await run('sh', ['-c', command], { cwd: stage.workdir.host, env: { ...env, ...stage.env }, timeoutMs: 900_000 });
        onStep?.(instruction, ran);
        if (ran.code !== 0) throw refuse(`${command} exited with ${ran.code}:\n${ran.output}`);
        continue;
      }
      case 'USER': {
        if (!stage) throw refuse('before FROM');
        const [uid, gid] = text.split(':').map(Number);
        if (!Number.isInteger(uid) || !Number.isInteger(gid ?? uid)) throw refuse('the user is named by number (uid:gid)');
        stage.user = { uid, gid: gid ?? uid };
        break;
      }
      case 'EXPOSE':
        stage?.exposed.push(...text.split(/\s+/).map((port) => Number(port.replace(/\/tcp$/, ''))));
        break;
      case 'HEALTHCHECK': {
        const { options: checkOptions, rest } = options(text);
        if (!stage || !rest.startsWith('CMD ')) throw refuse('expected HEALTHCHECK [--option=value ...] CMD ["...", ...]');
        stage.healthcheck = { options: checkOptions, command: execForm(rest.slice(4), instruction.line) };
        break;
      }
      case 'CMD':
        if (!stage) throw refuse('before FROM');
        stage.command = execForm(text, instruction.line);
        break;
      case 'VOLUME':
      case 'LABEL':
        break;
      default:
        throw refuse('not understood by this test');
    }
    onStep?.(instruction);
  }
  return stages;
}
