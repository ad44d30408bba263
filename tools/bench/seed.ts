import pg from 'pg';
import { resources } from '../../src/catalog/registry';
import { countedTables, recountSql } from '../../src/database/live-counts-sql';
import { Task } from '../../src/entities/task';

export interface SeedSizes {
  /** Small organizations, each with `projects` projects of `tasks` tasks. */
  organizations: number;
  projects: number;
  tasks: number;
  /** One more organization with `largeProjects` projects sharing `largeTasks` tasks (none when either is 0). */
  largeProjects: number;
  largeTasks: number;
  /** How many task ids the get-by-id and PUT cases go through. */
  sampleSize: number;
}

export interface SeedResult {
  /** The API key of the member who created everything (owner of every organization). */
  memberKey: string;
  /** The API key of a member of the first small organization only. */
  smallMemberKey: string;
  organizationSlugs: string[];
  projectIds: string[];
  /** A random sample of task ids, from every organization. */
  taskIds: string[];
  organizations: number;
  projects: number;
  tasks: number;
  /** Tasks the small member sees. */
  smallTasks: number;
  seconds: number;
}

interface SeededProject {
  id: string;
  tasks: number;
}

/**
 * Seeds the scratch database behind the running server. A member (created by the administrator) creates
 * the organizations and projects through the API, so every rule runs (owners team, membership, slugs),
 * and adds a second user to a team of the first organization; one task is created through the API too,
 * and all the others by one set-based statement written with exactly the column values the server
 * writes, which is checked against that task.
 */
export async function seed(base: string, adminKey: string, databaseUrl: string, sizes: SeedSizes): Promise<SeedResult> {
  const started = performance.now();
  const { key: memberKey } = await newUser(base, adminKey, 'bench-member@localhost');
  const plan = Array.from({ length: sizes.organizations }, (_, o) => ({
    name: `Bench Org ${o}`,
    slug: `bench-org-${o}`,
    projects: sizes.projects,
    tasks: (_p: number) => sizes.tasks,
  }));
  if (sizes.largeProjects > 0 && sizes.largeTasks > 0) {
    // The large organization's tasks spread evenly over its projects, the first ones taking the remainder.
    const share = (p: number) => Math.floor(sizes.largeTasks / sizes.largeProjects) + (p < sizes.largeTasks % sizes.largeProjects ? 1 : 0);
    plan.push({ name: 'Bench Large Org', slug: 'bench-org-large', projects: sizes.largeProjects, tasks: share });
  }

  // Organizations one after the other (the default order is creation order), projects of each in parallel.
  const projects: SeededProject[] = [];
  const organizationIds: string[] = [];
  for (const org of plan) {
    const created = await api(base, memberKey, 'POST', '/api/organizations', { name: org.name, slug: org.slug });
    organizationIds.push(created.id as string);
    const ids = await Promise.all(
      Array.from(
        { length: org.projects },
        async (_, p) => (await api(base, memberKey, 'POST', '/api/projects', { name: `Project ${p}`, organizationId: created.id })).id as string,
      ),
    );
    projects.push(...ids.map((id, p) => ({ id, tasks: org.tasks(p) })));
  }
  const small = await newUser(base, adminKey, 'bench-small-member@localhost');
  if (organizationIds.length > 0) await joinOrganization(base, memberKey, small.userId, organizationIds[0]);

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let reference: string | undefined;
    if (projects.length > 0 && projects[0].tasks > 0) {
      reference = (await api(base, memberKey, 'POST', '/api/tasks', { projectId: projects[0].id, title: 'Task 0', priority: 0 })).id as string;
    }
    await insertTasks(client, projects, reference ? 1 : 0);
    if (reference) await assertWrittenLikeTheServer(client, reference, projects[0].id);
    // As a database in use would be after autovacuum: statistics for the planner, the visibility map for
    // index-only counts. Without it, autovacuum would start in the middle of a measured phase.
    await client.query('vacuum (analyze)');
    // The seeded pages are written out now, not by a checkpoint during the first measured phase (the
    // server's, which goes first). A superuser's right: without it, the checkpoint comes when it comes.
    await client.query('checkpoint').catch(() => undefined);
    const [{ count }] = (await client.query('select count(*)::int as count from task')).rows;
    const sample = await client.query('select id from task order by random() limit $1', [sizes.sampleSize]);
    return {
      memberKey,
      smallMemberKey: small.key,
      organizationSlugs: plan.map((o) => o.slug),
      projectIds: projects.map((p) => p.id),
      taskIds: sample.rows.map((r) => r.id as string),
      organizations: plan.length,
      projects: projects.length,
      tasks: count as number,
      smallTasks: sizes.organizations > 0 ? sizes.projects * sizes.tasks : 0,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await client.end();
  }
}

/** A user created by the administrator, and its new API key. */
async function newUser(base: string, adminKey: string, email: string): Promise<{ userId: string; key: string }> {
  const user = await api(base, adminKey, 'POST', '/api/users', { email, firstName: 'Bench', lastName: 'Member' });
  const token = await api(base, adminKey, 'POST', '/api/access-tokens', { name: 'bench', userId: user.id });
  return { userId: user.id as string, key: token.token as string };
}

/** Makes the user a member of the organization, through a team its owner creates. */
async function joinOrganization(base: string, ownerKey: string, userId: string, organizationId: string): Promise<void> {
  const team = await api(base, ownerKey, 'POST', '/api/teams', { name: 'Bench readers', organizationId });
  await api(base, ownerKey, 'POST', '/api/team-members', { teamId: team.id, userId });
}

/**
 * Every task but the reference one, in one `insert … select` over `generate_series`: task g of project p
 * is created (g × projects + p) seconds after a point in the past, so that a page in the default order
 * (created_on, id) spans projects and organizations. Triggers are off for the statement
 * (`session_replication_role = replica`, a superuser's right): a million row triggers would take
 * minutes and NOTIFY the server of every row; the statement writes the tenant key and the liveness flag
 * those triggers would (the organization of the live project, not hidden), and the check against the
 * reference task proves it. Without the right, the triggers run.
 */
async function insertTasks(client: pg.Client, projects: SeededProject[], skipFirst: number): Promise<void> {
  const longest = Math.max(0, ...projects.map((p) => p.tasks));
  const origin = new Date(Date.now() - (longest + 1) * projects.length * 1000);
  await client.query('begin');
  try {
    await client.query('savepoint triggers');
    await client.query('set local session_replication_role = replica').catch(() => client.query('rollback to savepoint triggers'));
    await client.query(
      `insert into task (id, uuid, created_on, updated_on, change_sequence, deleted, deleted_date, delete_user_id, delete_user_email,
                         title, description, project_id, status_slug, assignee_id, priority, due_date, completed_date, task_group_id,
                         parent_task_id, template_id, locked, locked_at, locked_by_id, created_by_activity_id, properties, document_family_ids,
                         tenant_id, parent_hidden)
       select gen_random_uuid(), gen_random_uuid(), at, at, 0, false, null, null, null,
              'Task ' || g, '', p.id, null, null, g % 5, null, null, null,
              null, null, false, null, null, null, '{}'::jsonb, '[]'::jsonb,
              p.organization_id, false
         from unnest($1::uuid[], $2::int[], $3::int[], $4::int[]) as planned(id, first, last, position)
         join project p on p.id = planned.id
         cross join lateral generate_series(planned.first, planned.last) as g
         cross join lateral (select $5::timestamptz + (g::bigint * $6::int + planned.position) * interval '1 second' as at) as created`,
      [
        projects.map((p) => p.id),
        projects.map((_, i) => (i === 0 ? skipFirst : 0)),
        projects.map((p) => p.tasks - 1),
        projects.map((_, i) => i),
        origin,
        projects.length,
      ],
    );
    // The count triggers were off too: the tasks' live counts are recounted, as a bulk load's are.
    for (const statement of taskRecount()) await client.query(statement);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback');
    throw error;
  }
}

/** The statements that recount the live tasks of every organization. */
function taskRecount(): string[] {
  const [tasks] = countedTables(resources, (entity) => (entity === Task ? 'task' : '')).filter((counted) => counted.table === 'task');
  return recountSql(tasks);
}

/** A task written by the seeding statement holds what the server writes, apart from ids, times and the body's fields. */
async function assertWrittenLikeTheServer(client: pg.Client, referenceId: string, projectId: string): Promise<void> {
  const own = new Set(['id', 'uuid', 'created_on', 'updated_on', 'title', 'priority']);
  const [byServer] = (await client.query('select * from task where id = $1', [referenceId])).rows;
  const [bySeed] = (await client.query('select * from task where project_id = $1 and id <> $2 limit 1', [projectId, referenceId])).rows;
  if (!bySeed) return;
  const differing = Object.keys(byServer).filter((c) => !own.has(c) && JSON.stringify(byServer[c]) !== JSON.stringify(bySeed[c]));
  if (differing.length) throw new Error(`seeded tasks differ from one the server wrote in ${differing.join(', ')}`);
}

async function api(base: string, key: string, method: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`seeding: ${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as Record<string, unknown>;
}
