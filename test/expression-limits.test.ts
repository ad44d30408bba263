import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { EXPRESSION_MEMORY_LIMIT_MB, ExpressionLimitError, ExpressionPool } from '../src/modules/workflow/expression-pool';
import { compiledExpression, MAX_EXPRESSION_LENGTH } from '../src/modules/workflow/expressions';
import { createOrganization, createProject, createTask } from './support/fixtures';
import { startServer, unique, type TestServer } from './support/server';

/**
 * Users' JSONata (SCRIPT steps, trigger filters and input mappings) is evaluated off the main thread,
 * in evaluator processes, within EXPRESSION_TIMEOUT_MS, a 64 MB heap and a 1 MB result: past a limit
 * the step or evaluation fails naming it, other tenants are answered meanwhile, and the next
 * evaluation works. On a database of its own, so that only `server` runs this suite's jobs (the limits
 * they report are its own).
 */
type Row = Record<string, any>;

const databaseName = `platform_expressions_${process.pid}_${Date.now()}`;
const serverUrl = inject('databaseUrl');
const databaseUrl = withDatabase(serverUrl, databaseName);
/** Runs the jobs, with the default EXPRESSION_TIMEOUT_MS (1000). */
let server: TestServer;
/** Runs no job; EXPRESSION_TIMEOUT_MS 200, met by the filters and mappings of manual fires it answers. */
let quick: TestServer;
let org: Row;
let project: Row;

/** Runs for ever: a tail call JSONata turns into a loop, in constant memory. */
const ENDLESS = '($f := function($n){ $f($n + 1) }; $f(0))';
/** An array of 10 million numbers: some 80 MB in one growing allocation. */
const HUNGRY = '$count([1..9999999])';
/** About 1.1 MB of JSON, built in milliseconds (so that the size limit, not the time limit, is met on a loaded machine). */
const HUGE_RESULT = '$pad("", 1100000, "x")';

const timeLimit = (ms: number) => `expression exceeded the time limit of ${ms} ms (EXPRESSION_TIMEOUT_MS)`;

beforeAll(async () => {
  await ensureDatabase(serverUrl, databaseName);
  server = await startServer({ databaseUrl, workerConcurrency: 2 });
  quick = await startServer({ databaseUrl, workerConcurrency: 0, expressionTimeoutMs: 200 });
  org = await createOrganization(server);
  project = await createProject(server, org.id);
}, 120_000);

afterAll(async () => {
  await quick?.close();
  await server?.close();
  await dropDatabase(serverUrl, databaseName);
});

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function created(path: string, body: Row, key?: string): Promise<Row> {
  const answer = await server.request('POST', path, { body, key });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

const plan = (steps: Row[]) => created('/api/activity-plans', { name: unique('Plan'), organizationId: org.id, steps });
const script = (expression: string, ref = 'script') => ({ ref, stepType: 'SCRIPT', options: { expression } });

async function trigger(planRow: Row, body: Row = {}): Promise<Row> {
  return created('/api/triggers', {
    name: unique('Trigger'),
    projectId: project.id,
    eventKind: 'manual',
    activityPlanRef: `activity-plan://${org.slug}/${planRow.slug}`,
    ...body,
  });
}

async function fire(triggerRow: Row, input?: Row, via = server): Promise<Row> {
  const answer = await via.request('POST', `/api/triggers/${triggerRow.id}/fire`, { body: input === undefined ? {} : { input } });
  expect(answer.status, answer.text).toBe(202);
  return answer.body;
}

const activity = async (id: string): Promise<Row> => (await server.request('GET', `/api/activities/${id}`)).body;

const finished = (id: string) =>
  until(
    `activity ${id} to finish`,
    () => activity(id),
    (a) => a.status === 'COMPLETED' || a.status === 'FAILED',
  );

/** A SCRIPT step of the given expression, run to its end. */
async function runScript(expression: string, input?: Row): Promise<Row> {
  return finished((await fire(await trigger(await plan([script(expression)])), input)).id);
}

async function expectFailedStep(expression: string, message: string): Promise<void> {
  const ended = await runScript(expression);
  expect(ended.status, JSON.stringify(ended)).toBe('FAILED');
  expect(ended.errorDetails).toMatchObject({ ref: 'script', stepType: 'SCRIPT', message });
  expect(ended.steps[0]).toMatchObject({ status: 'FAILED', error: { message } });
}

/** The pool is healthy: an ordinary SCRIPT step completes. */
async function expectHealthy(): Promise<void> {
  const ended = await runScript('inputs.n + 1', { n: 41 });
  expect(ended.status, JSON.stringify(ended)).toBe('COMPLETED');
  expect(ended.steps[0].output).toBe(42);
}

describe('a SCRIPT step', () => {
  it("past EXPRESSION_TIMEOUT_MS fails naming the limit, another organization's user answered while it runs", async () => {
    const user = await created('/api/users', { email: `${unique('neighbour')}@example.test`, firstName: 'Neighbour' });
    const key = (await created('/api/access-tokens', { name: unique('key'), userId: user.id })).token;
    await created('/api/organizations', { name: unique('Neighbours') }, key);

    const started = await fire(await trigger(await plan([script(ENDLESS)])));
    await until(
      'the activity to run',
      () => activity(started.id),
      (a) => a.status === 'RUNNING',
    );
    // The evaluation takes the whole time limit: the neighbour is answered meanwhile, before it ends.
    for (let i = 0; i < 3; i++) {
      const me = await server.request('GET', '/api/account/me', { key });
      expect(me.status, me.text).toBe(200);
      expect(me.body.id).toBe(user.id);
    }
    expect((await activity(started.id)).status).toBe('RUNNING');

    const ended = await finished(started.id);
    expect(ended.status).toBe('FAILED');
    expect(ended.errorDetails).toMatchObject({ ref: 'script', stepType: 'SCRIPT', message: timeLimit(1000) });
    await expectHealthy();
  });

  it('that fills its heap fails naming the memory limit', async () => {
    await expectFailedStep(HUNGRY, `expression exceeded the memory limit of ${EXPRESSION_MEMORY_LIMIT_MB} MB`);
    await expectHealthy();
  });

  it('whose result is over 1 MB of JSON fails naming the size limit', async () => {
    await expectFailedStep(HUGE_RESULT, 'expression result exceeded the size limit of 1 MB (as JSON)');
    await expectHealthy();
  });

  it("keeps JSONata's own errors as they were", async () => {
    await expectFailedStep('"a" + 1', 'The left side of the "+" operator must evaluate to a number (JSONata T2001 at position 5)');
    // As the main thread words them: a regex RE2 cannot compile, built at evaluation time, fails that evaluation.
    for (const expression of ['$notAFunction(1)', '$eval("$contains(\\"aa\\", /(a)\\\\1/)")']) {
      const raw = await compiledExpression(expression)
        .evaluate({})
        .then(
          () => expect.unreachable(expression),
          (error: { code: string; message: string; position: number }) => error,
        );
      await expectFailedStep(expression, `${raw.message} (JSONata ${raw.code} at position ${raw.position})`);
    }
  });

  it('gives the results evaluating on the main thread gave', async () => {
    const expressions = [
      'inputs.n * 2',
      '$sum(inputs.amounts)',
      '$uppercase(inputs.word) & "!"',
      'inputs.items[price > 2].name',
      'inputs.items.name',
      '$match(inputs.word, /l+/)',
      '$replace(inputs.word, /L/i, "_")',
      'inputs.word ~> /^h.*o$/ ? "greeting" : "other"',
      '{"title": activity.title, "project": project.name, "previous": steps.s1, "dataProperties": project.options.dataProperties}',
      'inputs.missing',
      '$keys(inputs)',
      '$sort(inputs.amounts)',
      '$split("a,b,c", ",")',
      '$fromMillis(0)',
      '$string(inputs.nested)',
      'inputs.nested.deep.list[1]',
      '$type(inputs.nothing)',
      '[inputs.amounts, inputs.n]',
      '$reduce(inputs.amounts, function($a, $v){ $a + $v }, 100)',
      '$lookup(inputs.nested, "deep")',
      '$exists(inputs.n) and inputs.flag = false',
    ];
    const own = await createProject(server, org.id, { name: unique('Same'), options: { dataProperties: { region: 'EU' } } });
    const steps = expressions.map((expression, index) => script(expression, `s${index + 1}`));
    const planRow = await plan(steps);
    const manual = await created('/api/triggers', {
      name: unique('Same'),
      projectId: own.id,
      eventKind: 'manual',
      activityPlanRef: `activity-plan://${org.slug}/${planRow.slug}`,
    });
    const inputs = {
      n: 21,
      word: 'hello',
      flag: false,
      nothing: null,
      amounts: [5, 1.5, 3],
      items: [
        { name: 'pen', price: 1 },
        { name: 'book', price: 12 },
        { name: 'lamp', price: 30 },
      ],
      nested: { deep: { list: ['a', 'b', 'ü'] } },
    };
    const ended = await finished((await fire(manual, inputs)).id);
    expect(ended.status, JSON.stringify(ended.errorDetails)).toBe('COMPLETED');

    // What the step ran before: the expression evaluated in this process, its result as JSON keeps it.
    const outputs: Row = {};
    for (const [index, expression] of expressions.entries()) {
      const context = {
        activity: { id: ended.id, title: ended.title, inputs: ended.inputs },
        project: { id: own.id, name: own.name, options: own.options },
        inputs: ended.inputs,
        steps: outputs,
      };
      const result = await compiledExpression(expression).evaluate(context);
      const expected = result === undefined ? null : JSON.parse(JSON.stringify(result));
      const step = ended.steps[index];
      expect(step.output, `${expression}`).toEqual(expected);
      outputs[step.ref] = step.output;
    }
    expect(ended.steps.map((s: Row) => s.output).slice(0, 3)).toEqual([42, 9.5, 'HELLO!']);
    expect(outputs.s10).toBeNull();
  });
});

describe('a trigger', () => {
  it('whose eventFilter runs past the limit does not fire: a manual fire is refused naming the limit', async () => {
    const planRow = await plan([script('1')]);
    const endless = await trigger(planRow, { eventFilter: ENDLESS });
    const answer = await quick.request('POST', `/api/triggers/${endless.id}/fire`, { body: {} });
    expect(answer.status, answer.text).toBe(409);
    expect(answer.body.message).toBe(`the eventFilter of trigger ${endless.slug} failed for this input: ${timeLimit(200)}`);

    // The next filter is evaluated as ever.
    const bounded = await trigger(planRow, { eventFilter: 'input.n > 1' });
    expect((await quick.request('POST', `/api/triggers/${bounded.id}/fire`, { body: { input: { n: 1 } } })).status).toBe(409);
    const started = await fire(bounded, { n: 2 }, quick);
    expect((await finished(started.id)).status).toBe('COMPLETED');
  });

  it('whose eventFilter runs past the limit on an event starts no activity, other triggers of the event still do', async () => {
    const own = await createProject(server, org.id);
    const planRow = await plan([script('"started"')]);
    const on = (eventFilter: string) =>
      created('/api/triggers', {
        name: unique('OnCreate'),
        projectId: own.id,
        eventKind: 'task_created',
        eventFilter,
        activityPlanRef: `activity-plan://${org.slug}/${planRow.slug}`,
      });
    const endless = await on(ENDLESS);
    const hungry = await on(HUNGRY);
    const plain = await on('task.title = "go"');
    await createTask(server, own.id, { title: 'go' });

    const activities = async () =>
      (await server.request('GET', `/api/activities?pageSize=100&filter=${encodeURIComponent(`projectId==${own.id}`)}`)).body.content as Row[];
    const [started] = await until(
      'the plain trigger to start its activity',
      activities,
      (rows) => rows.length > 0 && rows.every((a) => a.status === 'COMPLETED'),
    );
    expect(started.startedByTriggerId).toBe(plain.id);
    // Triggers are evaluated in order of creation in one job: the plain one comes after the failing ones.
    await until(
      'the queue to be empty',
      async () => Number((await server.orm.em.fork().getConnection().execute('select count(*) as n from graphile_worker._private_jobs'))[0].n),
      (n) => n === 0,
    );
    const all = await activities();
    expect(all.map((a) => a.startedByTriggerId)).toEqual([plain.id]);
    expect(all.some((a) => a.startedByTriggerId === endless.id || a.startedByTriggerId === hungry.id)).toBe(false);
  });

  it('whose inputMapping runs past the limit starts a FAILED activity saying so', async () => {
    const mapped = await trigger(await plan([script('inputs')]), { inputMapping: { fine: 'input.n', endless: ENDLESS } });
    const started = await fire(mapped, { n: 1 }, quick);
    expect(started).toMatchObject({ status: 'FAILED', errorDetails: { message: `inputMapping.endless: ${timeLimit(200)}` } });

    const fine = await trigger(await plan([script('inputs')]), { inputMapping: { doubled: 'input.n * 2' } });
    const ended = await finished((await fire(fine, { n: 4 }, quick)).id);
    expect(ended).toMatchObject({ status: 'COMPLETED', inputs: { doubled: 8 } });
    expect(ended.steps[0].output).toEqual({ doubled: 8 });
  });
});

describe('expression texts', () => {
  it(`are at most ${MAX_EXPRESSION_LENGTH} characters`, async () => {
    const long = `1${' + 1'.repeat(MAX_EXPRESSION_LENGTH / 4)}`;
    const refusedPlan = await server.request('POST', '/api/activity-plans', { body: { name: unique('Long'), organizationId: org.id, steps: [script(long)] } });
    expect(refusedPlan.status, refusedPlan.text).toBe(400);
    expect(refusedPlan.text).toContain('steps[0].options.expression');
    expect(refusedPlan.text).toContain(`must be at most ${MAX_EXPRESSION_LENGTH} characters`);

    const planRow = await plan([script('1')]);
    const refusedTrigger = await server.request('POST', '/api/triggers', {
      body: {
        name: unique('Long'),
        projectId: project.id,
        eventKind: 'manual',
        activityPlanRef: `activity-plan://${org.slug}/${planRow.slug}`,
        eventFilter: long,
      },
    });
    expect(refusedTrigger.status, refusedTrigger.text).toBe(400);
    expect(refusedTrigger.text).toContain('eventFilter');
    expect(refusedTrigger.text).toContain(`must be at most ${MAX_EXPRESSION_LENGTH} characters`);
  });
});

describe('the expression pool', () => {
  it('queues evaluations while its processes are busy, and replaces one past the time limit', async () => {
    const pool = new ExpressionPool({ timeoutMs: 300, size: 1 });
    try {
      const results = await Promise.allSettled([pool.evaluate(ENDLESS, {}), pool.evaluate('a + 1', { a: 1 }), pool.evaluate('$uppercase(b)', { b: 'x' })]);
      expect(results[0].status).toBe('rejected');
      const reason = (results[0] as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(ExpressionLimitError);
      expect(reason.message).toBe(timeLimit(300));
      expect(results.slice(1)).toEqual([
        { status: 'fulfilled', value: 2 },
        { status: 'fulfilled', value: 'X' },
      ]);
      // Dates cross as they are, and come back as JSON has them.
      expect(await pool.evaluate('when', { when: new Date(0) })).toBe('1970-01-01T00:00:00.000Z');
      expect(await pool.evaluate('nothing', {})).toBeUndefined();
    } finally {
      await pool.close();
    }
    await expect(pool.evaluate('1', {})).rejects.toThrow(/shutting down/);
  });

  it('runs its evaluators at a lower priority than the server (nice 10)', async () => {
    const pool = new ExpressionPool();
    pool.warm();
    try {
      await pool.evaluate('1', {});
      const evaluators = childProcessesOf(process.pid).filter((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--disallow-code-generation-from-strings'),
      );
      expect(evaluators.length).toBeGreaterThan(0);
      for (const pid of evaluators) expect(getPriority(pid)).toBe(getPriority(process.pid) + 10);
    } finally {
      await pool.close();
    }
  });

  it('started up front answers at once, and ends its processes when closed', async () => {
    const pool = new ExpressionPool();
    pool.warm();
    try {
      expect(await Promise.all([pool.evaluate('$sum(a)', { a: [1, 2] }), pool.evaluate('$sum(a)', { a: [3, 4] })])).toEqual([3, 7]);
    } finally {
      await pool.close();
    }
  });
});

/** The processes whose parent is `pid`, read from /proc. */
function childProcessesOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((child) => {
      try {
        // The field after the parenthesised command name is the state, then the parent's pid.
        return Number(readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1].split(' ')[1]) === pid;
      } catch {
        return false;
      }
    });
}
