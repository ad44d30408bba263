import pg from 'pg';

export interface SeedSizes {
  /** Small organizations, each with `projects` projects of `tasks` tasks. */
  organizations: number;
  projects: number;
  tasks: number;
  /** One more organization with `largeProjects` projects of `largeTasks` tasks (none when 0). */
  largeProjects: number;
  largeTasks: number;
  /** How many task ids the get-by-id and PUT cases go through. */
  sampleSize: number;
}

export interface SeedResult {
  /** The API key of the member who created everything (owner of every organization). */
  memberKey: string;
  organizationSlugs: string[];
  projectIds: string[];
  /** A random sample of task ids, from every organization. */
  taskIds: string[];
  organizations: number;
  projects: number;
  tasks: number;
  seconds: number;
}

/**
 * Seeds the scratch database behind the running server. A member (created by the administrator) creates
 * the organizations and projects through the API, so every rule runs (owners team, membership, slugs);
 * one task is created through the API too, and the rest, one set-based statement per project, are
 * written with exactly the column values the server writes, which is checked against that task.
 */
export async function seed(base: string, adminKey: string, databaseUrl: string, sizes: SeedSizes): Promise<SeedResult> {
  const started = performance.now();
  const user = await api(base, adminKey, 'POST', '/api/users', { email: 'bench-member@localhost', firstName: 'Bench', lastName: 'Member' });
  const token = await api(base, adminKey, 'POST', '/api/access-tokens', { name: 'bench', userId: user.id });
  const memberKey = token.token as string;

  const plan = Array.from({ length: sizes.organizations }, (_, o) => ({
    name: `Bench Org ${o}`,
    slug: `bench-org-${o}`,
    projects: sizes.projects,
    tasks: sizes.tasks,
  }));
  if (sizes.largeProjects > 0) plan.push({ name: 'Bench Large Org', slug: 'bench-org-large', projects: sizes.largeProjects, tasks: sizes.largeTasks });

  // Organizations one after the other (the default order is creation order), projects of each in parallel.
  const projects: { id: string; tasks: number }[] = [];
  for (const org of plan) {
    const created = await api(base, memberKey, 'POST', '/api/organizations', { name: org.name, slug: org.slug });
    const ids = await Promise.all(
      Array.from({ length: org.projects }, async (_, p) => (await api(base, memberKey, 'POST', '/api/projects', { name: `Project ${p}`, organizationId: created.id })).id as string),
    );
    projects.push(...ids.map((id) => ({ id, tasks: org.tasks })));
  }

  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    let reference: string | undefined;
    if (projects.length > 0 && projects[0].tasks > 0) {
      reference = (await api(base, memberKey, 'POST', '/api/tasks', { projectId: projects[0].id, title: 'Task 0', priority: 0 })).id as string;
    }
    // created_on: one second apart, interleaving the projects, all in the past; task g of project p is
    // the (g * projects + p)-th, so a page in the default order (created_on, id) spans projects.
    const longest = Math.max(0, ...projects.map((p) => p.tasks));
    const origin = new Date(Date.now() - (longest + 1) * projects.length * 1000);
    for (const [index, project] of projects.entries()) {
      const first = index === 0 && reference ? 1 : 0;
      if (project.tasks <= first) continue;
      await client.query(
        `insert into task (id, uuid, created_on, updated_on, change_sequence, deleted, deleted_date, delete_user_id, delete_user_email,
                           title, description, project_id, status_slug, assignee_id, priority, due_date, completed_date, task_group_id,
                           parent_task_id, template_id, locked, locked_at, locked_by_id, created_by_activity_id, properties, document_family_ids)
         select gen_random_uuid(), gen_random_uuid(), at, at, 0, false, null, null, null,
                'Task ' || g, '', $1, null, null, g % 5, null, null, null,
                null, null, false, null, null, null, '{}'::jsonb, '[]'::jsonb
           from generate_series($2::int, $3::int) as g,
                lateral (select $4::timestamptz + (g * $5::int + $6::int) * interval '1 second' as at) as created`,
        [project.id, first, project.tasks - 1, origin, projects.length, index],
      );
    }
    if (reference) await assertWrittenLikeTheServer(client, reference, projects[0].id);
    await client.query('analyze');
    const [{ count }] = (await client.query('select count(*)::int as count from task')).rows;
    const sample = await client.query('select id from task order by random() limit $1', [sizes.sampleSize]);
    return {
      memberKey,
      organizationSlugs: plan.map((o) => o.slug),
      projectIds: projects.map((p) => p.id),
      taskIds: sample.rows.map((r) => r.id as string),
      organizations: plan.length,
      projects: projects.length,
      tasks: count as number,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    await client.end();
  }
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
