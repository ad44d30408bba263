import { spawn, type ChildProcess } from 'node:child_process';
import { setPriority } from 'node:os';
import { DEFAULT_EXPRESSION_TIMEOUT_MS } from '../../config/config';
import { logger } from '../../logging/logger';
import { ExpressionEvaluationError } from './expressions';

/**
 * User-supplied JSONata (SCRIPT steps, trigger filters and input mappings) is evaluated in a few
 * processes of its own, never on the server's event loop: each evaluation gets EXPRESSION_TIMEOUT_MS,
 * a heap of EXPRESSION_MEMORY_LIMIT_MB and a result of at most EXPRESSION_RESULT_LIMIT_BYTES of JSON.
 * Processes rather than worker threads: a worker thread that runs out of its heap with one large
 * allocation (a long array, a long string, as JSONata makes) aborts the whole server, where a process
 * that does only ends itself. A process that exceeds a limit is killed and replaced.
 */

/** The heap (V8's old generation) of an evaluator process. */
export const EXPRESSION_MEMORY_LIMIT_MB = 64;

/** The longest result an evaluation gives back, as JSON. */
export const EXPRESSION_RESULT_LIMIT_BYTES = 1024 * 1024;

/** Evaluator processes of a pool unless told otherwise: each costs some 40 MB when started. */
const DEFAULT_POOL_SIZE = 2;

/** Evaluations waiting for a process at most; past it the server is overloaded, not the expression wrong. */
const MAX_WAITING = 1_000;

/** A process that does not start within this long is given up (its waiting evaluations fail). */
const START_TIMEOUT_MS = 10_000;

/** The scheduling priority of evaluators (nice 10): a busy expression takes the CPU the server's requests leave. */
const EVALUATOR_NICENESS = 10;

/** Of an evaluator's standard error, the end kept to tell an out-of-memory death from another. */
const STDERR_TAIL = 4_096;

/** Compiled expressions an evaluator keeps. */
const MAX_COMPILED = 1_000;

/** An evaluation stopped at one of the limits; it fails the step or evaluation as any expression error does. */
export class ExpressionLimitError extends ExpressionEvaluationError {
  constructor(
    readonly limit: 'time' | 'memory' | 'result' | 'stack',
    message: string,
  ) {
    super(message);
    this.name = 'ExpressionLimitError';
  }
}

/**
 * The evaluator process, as plain JavaScript (it runs the same from the TypeScript sources under test
 * and from dist/): arguments are the paths of jsonata and re2js, the result limit and the size of its
 * cache of compiled expressions. Regex literals match with RE2 as on the main thread (mirrors
 * Re2RegexEngine of re2.ts, with its messages). Replies: `{id, json?}`, `{id, failure}` (JSONata's
 * error), `{id, error}` (any other), `{id, tooLarge}`, `{id, stack}`.
 */
const EVALUATOR_SOURCE = String.raw`'use strict';
const [jsonataPath, re2jsPath, resultLimitText, maxCompiledText] = process.argv.slice(1);
const jsonata = require(jsonataPath);
const { RE2JS, RE2JSException } = require(re2jsPath);
const resultLimit = Number(resultLimitText);
const maxCompiled = Number(maxCompiledText);

function remembered(cache, key, make) {
  if (cache.has(key)) return cache.get(key);
  const value = make();
  if (cache.size >= maxCompiled) cache.delete(cache.keys().next().value);
  cache.set(key, value);
  return value;
}

const patterns = new Map();
function re2Compile(source, bits) {
  try {
    return RE2JS.compile(source, bits);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    throw new Error('is not a valid RE2 regular expression: ' + error.message.replace(/^error parsing regexp: /, ''));
  }
}
function re2Flags(flags) {
  return (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (flags.includes('m') ? RE2JS.MULTILINE : 0) | (flags.includes('s') ? RE2JS.DOTALL : 0);
}
class Re2RegexEngine {
  constructor(literal, flags) {
    this.lastIndex = 0;
    const source = typeof literal === 'string' ? literal : literal.source;
    const bits = re2Flags(flags ?? (typeof literal === 'string' ? '' : literal.flags));
    this.regex = remembered(patterns, bits + ':' + source, () => re2Compile(source, bits));
  }
  exec(text) {
    const matcher = this.regex.matcher(text);
    if (this.lastIndex > text.length || !matcher.find(this.lastIndex)) {
      this.lastIndex = 0;
      return null;
    }
    const groups = Array.from({ length: matcher.groupCount() + 1 }, (_, group) => matcher.group(group) ?? undefined);
    this.lastIndex = matcher.end();
    return Object.assign(groups, { index: matcher.start(), input: text });
  }
}

const expressions = new Map();
const compile = (text) => remembered(expressions, text, () => jsonata(text, { RegexEngine: Re2RegexEngine }));

const stackOverflow = (error) => error instanceof RangeError && /call stack/i.test(error.message);

function outcome(result) {
  if (result === undefined) return {};
  let json;
  try {
    json = JSON.stringify(result);
  } catch (error) {
    if (stackOverflow(error)) return { stack: true };
    if (error instanceof RangeError) return { tooLarge: true };
    throw error;
  }
  if (json === undefined) return {};
  return Buffer.byteLength(json) > resultLimit ? { tooLarge: true } : { json };
}

function failure(error) {
  if (stackOverflow(error)) return { stack: true };
  if (error instanceof Error || typeof error?.code !== 'string' || typeof error.message !== 'string') {
    return { error: { name: error?.name ?? 'Error', message: String(error?.message ?? error) } };
  }
  return { failure: { code: error.code, message: error.message, position: typeof error.position === 'number' ? error.position : undefined } };
}

process.on('message', async ({ id, text, input }) => {
  let reply;
  try {
    reply = outcome(await compile(text).evaluate(input));
  } catch (error) {
    reply = failure(error);
  }
  process.send({ id, ...reply });
});
// The server went away: nothing is left to evaluate for. A thread watches for it too, since an
// endless evaluation never lets 'disconnect' be handled.
process.on('disconnect', () => process.exit(0));
new (require('node:worker_threads').Worker)(
  'const parent = ' + process.ppid + '; setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, "SIGKILL"); }, 500);',
  { eval: true, resourceLimits: { maxOldGenerationSizeMb: 8 } },
).unref();
process.send({ ready: true });
`;

interface Job {
  text: string;
  input: unknown;
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Reply {
  ready?: boolean;
  id?: number;
  json?: string;
  tooLarge?: boolean;
  stack?: boolean;
  failure?: { code: string; message: string; position?: number };
  error?: { name: string; message: string };
}

/** One evaluator process: starting, idle, or running one job. */
class Evaluator {
  ready = false;
  job?: Job & { id: number; timer: NodeJS.Timeout };
  /** Killed by the pool (a time limit, a shutdown): its end is expected. */
  retired = false;
  ended = false;
  stderr = '';
  readonly closed: Promise<void>;
  startTimer?: NodeJS.Timeout;

  constructor(
    readonly child: ChildProcess,
    onEnd: (evaluator: Evaluator, how: string) => void,
  ) {
    this.closed = new Promise((resolve) => {
      const end = (how: string) => {
        if (this.ended) return;
        this.ended = true;
        clearTimeout(this.startTimer);
        onEnd(this, how);
        resolve();
      };
      // 'close' (not 'exit'): standard error has been read to its end by then.
      child.once('close', (code, signal) => end(signal ? `signal ${signal}` : `exit code ${code}`));
      child.once('error', (error) => {
        end(error.message);
        child.kill('SIGKILL');
      });
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
  }

  /** V8 ended the process because its heap was full. */
  get outOfMemory(): boolean {
    return /out of memory/i.test(this.stderr);
  }

  kill(): void {
    this.retired = true;
    this.child.kill('SIGKILL');
  }

  /** A process starting or evaluating keeps the server's process alive (an evaluation is awaited); an idle one does not. */
  hold(busy: boolean): void {
    if (busy) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }
}

export interface ExpressionPoolOptions {
  /** EXPRESSION_TIMEOUT_MS: how long one evaluation may run. */
  timeoutMs?: number;
  /** Evaluator processes at most. */
  size?: number;
}

/**
 * Evaluates JSONata in up to `size` processes, started when first needed; evaluations wait in order
 * when all are busy. Idle processes keep nobody alive (unref'd); `close` ends them.
 */
export class ExpressionPool {
  readonly timeoutMs: number;
  private readonly size: number;
  private readonly evaluators = new Set<Evaluator>();
  private readonly waiting: Job[] = [];
  private sequence = 0;
  private closed = false;

  constructor(options: ExpressionPoolOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_EXPRESSION_TIMEOUT_MS;
    this.size = Math.max(1, options.size ?? DEFAULT_POOL_SIZE);
  }

  /**
   * The result of `text` over `input`, as JSON gives it back (undefined for no result). Throws
   * ExpressionEvaluationError for JSONata's errors (its message, code and position) and
   * ExpressionLimitError for a limit exceeded; any other error is the server's.
   */
  evaluate(text: string, input: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('expression evaluation has stopped: the server is shutting down'));
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(new Error(`${MAX_WAITING} expressions are already waiting to be evaluated`));
    return new Promise((resolve, reject) => {
      this.waiting.push({ text, input, resolve, reject });
      this.dispatch();
    });
  }

  /** Starts the processes now, so that the first evaluations do not wait for one to start. */
  warm(): void {
    while (!this.closed && this.evaluators.size < this.size) this.start();
  }

  /** Ends every process; evaluations running or waiting fail. */
  async close(): Promise<void> {
    this.closed = true;
    const stopped = new Error('expression evaluation has stopped: the server is shutting down');
    for (const job of this.waiting.splice(0)) job.reject(stopped);
    const evaluators = [...this.evaluators];
    this.evaluators.clear();
    for (const evaluator of evaluators) {
      const job = evaluator.job;
      evaluator.job = undefined;
      if (job) {
        clearTimeout(job.timer);
        job.reject(stopped);
      }
      // Awaited below: an idle process is unref'd, and with nothing else left (the embedded database
      // already gone) the server would exit for want of work before hearing of its end.
      evaluator.hold(true);
      evaluator.kill();
    }
    await Promise.all(evaluators.map((evaluator) => evaluator.closed));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const idle = [...this.evaluators].find((evaluator) => evaluator.ready && !evaluator.job && !evaluator.retired);
      if (!idle) break;
      this.run(idle, this.waiting.shift()!);
    }
    let starting = [...this.evaluators].filter((evaluator) => !evaluator.ready).length;
    while (starting < this.waiting.length && this.evaluators.size < this.size) {
      this.start();
      starting++;
    }
  }

  private start(): void {
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${EXPRESSION_MEMORY_LIMIT_MB}`,
        // JSONata never compiles code from strings: nothing an expression does can.
        '--disallow-code-generation-from-strings',
        '-e',
        EVALUATOR_SOURCE,
        require.resolve('jsonata'),
        require.resolve('re2js'),
        String(EXPRESSION_RESULT_LIMIT_BYTES),
        String(MAX_COMPILED),
      ],
      // No environment: the server's secrets have no business where user expressions run. A process
      // group of its own: a Ctrl-C meant for the server (which shuts down gracefully) does not end it.
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced', env: {}, detached: true },
    );
    yieldToRequests(child);
    const evaluator = new Evaluator(child, (ended, how) => this.ended(ended, how));
    this.evaluators.add(evaluator);
    (child.stderr as { unref?: () => void } | null)?.unref?.();
    child.on('message', (reply: Reply) => this.received(evaluator, reply));
    evaluator.startTimer = setTimeout(() => {
      logger.error({ timeoutMs: START_TIMEOUT_MS }, 'an expression evaluator process did not start in time');
      evaluator.child.kill('SIGKILL');
    }, START_TIMEOUT_MS);
    evaluator.startTimer.unref();
  }

  private run(evaluator: Evaluator, job: Job): void {
    const id = ++this.sequence;
    const timer = setTimeout(() => this.timedOut(evaluator), this.timeoutMs);
    evaluator.job = { ...job, id, timer };
    evaluator.hold(true);
    const unsent = (error: Error | null) => {
      if (!error || evaluator.job?.id !== id) return;
      clearTimeout(timer);
      evaluator.job = undefined;
      evaluator.hold(false);
      job.reject(error);
      this.dispatch();
    };
    try {
      evaluator.child.send({ id, text: job.text, input: job.input }, unsent);
    } catch (error) {
      // An input the structured clone cannot copy (a function, a symbol).
      unsent(error as Error);
    }
  }

  private received(evaluator: Evaluator, reply: Reply): void {
    if (reply.ready) {
      evaluator.ready = true;
      clearTimeout(evaluator.startTimer);
      this.dispatch();
      if (!evaluator.job) evaluator.hold(false);
      return;
    }
    const job = evaluator.job;
    if (!job || reply.id !== job.id) return;
    clearTimeout(job.timer);
    evaluator.job = undefined;
    evaluator.hold(false);
    try {
      job.resolve(settled(reply));
    } catch (error) {
      job.reject(error as Error);
    }
    this.dispatch();
  }

  /** Past the time limit: the process is killed (a loop cannot be interrupted otherwise) and replaced when next needed. */
  private timedOut(evaluator: Evaluator): void {
    const job = evaluator.job;
    if (!job) return;
    evaluator.job = undefined;
    this.evaluators.delete(evaluator);
    evaluator.kill();
    job.reject(new ExpressionLimitError('time', `expression exceeded the time limit of ${this.timeoutMs} ms (EXPRESSION_TIMEOUT_MS)`));
    this.dispatch();
  }

  private ended(evaluator: Evaluator, how: string): void {
    const member = this.evaluators.delete(evaluator);
    const job = evaluator.job;
    evaluator.job = undefined;
    if (job) {
      clearTimeout(job.timer);
      if (evaluator.outOfMemory) {
        logger.warn({ limitMb: EXPRESSION_MEMORY_LIMIT_MB }, 'an expression exceeded the memory limit; its evaluator process is replaced');
        job.reject(new ExpressionLimitError('memory', `expression exceeded the memory limit of ${EXPRESSION_MEMORY_LIMIT_MB} MB`));
      } else {
        // Killed from outside (not by its expression): the server's failure, so a job is tried again.
        logger.warn({ how, stderr: evaluator.stderr }, 'an expression evaluator process ended while evaluating');
        job.reject(new Error(`the expression evaluator process ended while evaluating (${how})`));
      }
    } else if (member && !evaluator.retired && !this.closed) {
      logger.warn({ how, stderr: evaluator.stderr, started: evaluator.ready }, 'an expression evaluator process ended');
    }
    // One that never started leaves the waiting evaluations without a process, unless another one is up.
    if (member && !evaluator.ready && !this.closed && ![...this.evaluators].some((other) => other.ready)) {
      const error = new Error(`the expression evaluator process could not start (${how})`);
      for (const waiting of this.waiting.splice(0)) waiting.reject(error);
      return;
    }
    this.dispatch();
  }
}

/** An evaluator's reply as a value or the error it stands for. */
function settled(reply: Reply): unknown {
  if (reply.failure) {
    const { message, code, position } = reply.failure;
    throw new ExpressionEvaluationError(`${message} (JSONata ${code}${typeof position === 'number' ? ` at position ${position}` : ''})`);
  }
  if (reply.tooLarge) {
    throw new ExpressionLimitError('result', `expression result exceeded the size limit of ${EXPRESSION_RESULT_LIMIT_BYTES / (1024 * 1024)} MB (as JSON)`);
  }
  if (reply.stack) throw new ExpressionLimitError('stack', 'expression exceeded the stack limit (its nesting or recursion is too deep)');
  if (reply.error) {
    const error = new Error(reply.error.message);
    error.name = reply.error.name;
    throw error;
  }
  return reply.json === undefined ? undefined : JSON.parse(reply.json);
}

/**
 * Lowers the evaluator's scheduling priority, so that an expression that computes for its whole time
 * limit takes only the CPU the server's requests leave over (on two cores, two such expressions would
 * otherwise halve every tenant's throughput). Where the system refuses, the evaluator runs as it is.
 */
function yieldToRequests(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    setPriority(child.pid, EVALUATOR_NICENESS);
  } catch (error) {
    logger.debug({ err: error }, 'could not lower the priority of an expression evaluator');
  }
}
