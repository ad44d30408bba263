import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, unique, type TestServer } from './support/server';

let server: TestServer;
beforeAll(async () => {
  // The trees are seeded with one mutation document per level.
  server = await startServer({ graphqlMaxRootMutations: 1_000 });
});
afterAll(() => server.close());

/** Runs a GraphQL operation that must succeed and returns its data. */
const gql = <T = any>(query: string, variables?: Record<string, unknown>): Promise<T> => server.graphqlData<T>(query, variables);

/** Runs `query` and returns its data together with the number of SQL statements it cost. */
/** The statements of one query, credentials already cached (as they are on every request but the first). */
async function measured<T = any>(query: string, variables?: Record<string, unknown>): Promise<{ data: T; statements: number }> {
  await gql('{ me { id } }');
  let data: T | undefined;
  const recorded = await server.fewestQueries(async () => {
    data = await gql<T>(query, variables);
  });
  return { data: data!, statements: recorded.length };
}

interface TaskData {
  id: string;
  title: string;
}
interface ProjectData {
  id: string;
  name: string;
  tasks: TaskData[];
}
interface OrganizationData {
  id: string;
  name: string;
  projects: ProjectData[];
}

/**
 * Organizations `${prefix}-o<i>`, each with projects `${prefix}-o<i>-p<j>`, each with tasks `t<k>`, made with one
 * batched mutation per level. Returns the tree in name order.
 */
async function createTree(prefix: string, organizations: number, projectsEach: number, tasksEach: number): Promise<OrganizationData[]> {
  const orgNames = Array.from({ length: organizations }, (_, i) => `${prefix}-o${i}`);
  const orgData = await gql(`mutation { ${orgNames.map((n, i) => `o${i}: createOrganization(input: { name: "${n}" }) { id name }`).join('\n')} }`);
  const tree: OrganizationData[] = orgNames.map((_, i) => ({ ...orgData[`o${i}`], projects: [] }));

  const projectSpecs = tree.flatMap((org, i) => Array.from({ length: projectsEach }, (_, j) => ({ org, name: `${org.name}-p${j}`, alias: `p${i}_${j}` })));
  const projectData = await gql(
    `mutation { ${projectSpecs.map((p) => `${p.alias}: createProject(input: { organizationId: "${p.org.id}", name: "${p.name}" }) { id name }`).join('\n')} }`,
  );
  for (const spec of projectSpecs) spec.org.projects.push({ ...projectData[spec.alias], tasks: [] });

  const taskSpecs = tree.flatMap((org) =>
    org.projects.flatMap((project, j) =>
      Array.from({ length: tasksEach }, (_, k) => ({ project, title: `t${k}`, alias: `t${project.id.replace(/-/g, '')}_${k}`, j })),
    ),
  );
  if (taskSpecs.length === 0) return tree;
  const taskData = await gql(
    `mutation { ${taskSpecs.map((t) => `${t.alias}: createTask(input: { projectId: "${t.project.id}", title: "${t.title}", priority: ${t.j} }) { id title }`).join('\n')} }`,
  );
  for (const spec of taskSpecs) spec.project.tasks.push(taskData[spec.alias]);
  return tree;
}

const TREE_QUERY = `query($filter: String!) {
  organizations(filter: $filter, pageSize: 10, sort: "name:asc") {
    totalElements
    content {
      id name
      projects(pageSize: 10, sort: "name:asc") {
        totalElements
        content {
          id name organizationId
          organization { id name }
          tasks(pageSize: 10, sort: "title:asc") {
            totalElements
            content {
              id title projectId
              project { id name organization { id name } }
            }
          }
        }
      }
    }
  }
}`;

/** What TREE_QUERY must answer for `tree`. */
function expectedTree(tree: OrganizationData[]) {
  return {
    totalElements: tree.length,
    content: tree.map((org) => ({
      id: org.id,
      name: org.name,
      projects: {
        totalElements: org.projects.length,
        content: org.projects.map((project) => ({
          id: project.id,
          name: project.name,
          organizationId: org.id,
          organization: { id: org.id, name: org.name },
          tasks: {
            totalElements: project.tasks.length,
            content: project.tasks.map((task) => ({
              id: task.id,
              title: task.title,
              projectId: project.id,
              project: { id: project.id, name: project.name, organization: { id: org.id, name: org.name } },
            })),
          },
        })),
      },
    })),
  };
}

const byPrefix = (prefix: string) => `name=like='${prefix}-*'`;

describe('nested reads organizations -> projects -> tasks', () => {
  let smallPrefix: string;
  let largePrefix: string;
  let small: OrganizationData[];
  let large: OrganizationData[];

  beforeAll(async () => {
    smallPrefix = unique('NestS');
    largePrefix = unique('NestL');
    small = await createTree(smallPrefix, 2, 2, 2);
    large = await createTree(largePrefix, 6, 5, 4);
  });

  it('answers the nested tree with its back-references correctly', async () => {
    const data = await gql(TREE_QUERY, { filter: byPrefix(smallPrefix) });
    expect(data.organizations).toEqual(expectedTree(small));
    const bigger = await gql(TREE_QUERY, { filter: byPrefix(largePrefix) });
    expect(bigger.organizations).toEqual(expectedTree(large));
    expect(bigger.organizations.content.flatMap((o: any) => o.projects.content.flatMap((p: any) => p.tasks.content))).toHaveLength(120);
  });

  it('sends the same number of SQL statements for a data set several times larger', async () => {
    const smallRun = await measured(TREE_QUERY, { filter: byPrefix(smallPrefix) });
    const largeRun = await measured(TREE_QUERY, { filter: byPrefix(largePrefix) });
    expect(smallRun.data.organizations).toEqual(expectedTree(small));
    expect(largeRun.data.organizations).toEqual(expectedTree(large));
    expect(smallRun.statements).toBeGreaterThan(0);
    expect(largeRun.statements).toBe(smallRun.statements);
  });

  it('costs one statement per nested level when the resolvers answer (a directive sends a query to them)', async () => {
    const levels = [
      `organizations(filter: $filter, pageSize: 100) @include(if: true) { content { id } }`,
      `organizations(filter: $filter, pageSize: 10) @include(if: true) { content { id projects(pageSize: 10) { content { id } } } }`,
      `organizations(filter: $filter, pageSize: 10) @include(if: true) { content { id projects(pageSize: 10) { content { id tasks(pageSize: 10) { content { id } } } } } }`,
      `organizations(filter: $filter, pageSize: 10) @include(if: true) { content { id projects(pageSize: 10) { content { id tasks(pageSize: 10) { content { id project { id } } } } } } }`,
    ];
    for (const prefix of [smallPrefix, largePrefix]) {
      const counts: number[] = [];
      for (const selection of levels) counts.push((await measured(`query($filter: String!) { ${selection} }`, { filter: byPrefix(prefix) })).statements);
      expect(
        counts.slice(1).map((count, i) => count - counts[i]),
        `statements per level for ${prefix}: ${counts}`,
      ).toEqual([1, 1, 1]);
    }
  });

  it('batches a to-one reference over a list into one statement whatever the number of rows', async () => {
    // Read by the resolvers (a directive sends a query to them; without one the database answers it alone, in one statement).
    const query = `query($filter: String!) { tasks(filter: $filter, pageSize: 100) @include(if: true) { content { id project { id organization { id } } } } }`;
    const plain = `query($filter: String!) { tasks(filter: $filter, pageSize: 100) @include(if: true) { content { id } } }`;
    const smallFilter = `project.organization.name=like='${smallPrefix}-*'`;
    const largeFilter = `project.organization.name=like='${largePrefix}-*'`;
    const smallRun = await measured(query, { filter: smallFilter });
    const largeRun = await measured(query, { filter: largeFilter });
    expect(smallRun.data.tasks.content).toHaveLength(8);
    expect(largeRun.data.tasks.content).toHaveLength(100);
    // The references cost the same two statements over 8 rows and over 100 (whether the page needed a
    // separate count is the same with and without them).
    expect(smallRun.statements - (await measured(plain, { filter: smallFilter })).statements).toBe(2);
    expect(largeRun.statements - (await measured(plain, { filter: largeFilter })).statements).toBe(2);
  });
});

describe('nested pages with their own arguments', () => {
  let prefix: string;
  let tree: OrganizationData[];

  beforeAll(async () => {
    prefix = unique('NestArgs');
    tree = await createTree(prefix, 1, 3, 0);
    const second = await createTree(`${prefix}-z`, 1, 1, 0);
    tree.push(...second);
    // Project 0 of the first organization gets 5 tasks with distinct priorities; project 1 gets 2.
    const [p0, p1] = tree[0].projects;
    const data = await gql(
      `mutation($p0: ID!, $p1: ID!) {
      a: createTask(input: { projectId: $p0, title: "alpha", priority: 3 }) { id title }
      b: createTask(input: { projectId: $p0, title: "bravo", priority: 1 }) { id title }
      c: createTask(input: { projectId: $p0, title: "charlie", priority: 5 }) { id title }
      d: createTask(input: { projectId: $p0, title: "delta", priority: 4, description: "needle" }) { id title }
      e: createTask(input: { projectId: $p0, title: "echo", priority: 2 }) { id title }
      f: createTask(input: { projectId: $p1, title: "foxtrot", priority: 9 }) { id title }
      g: createTask(input: { projectId: $p1, title: "golf", priority: 1 }) { id title }
    }`,
      { p0: p0.id, p1: p1.id },
    );
    p0.tasks = ['a', 'b', 'c', 'd', 'e'].map((k) => data[k]);
    p1.tasks = ['f', 'g'].map((k) => data[k]);
  });

  it('reports each parent its own totalElements', async () => {
    const data = await gql(
      `query($filter: String!) { organizations(filter: $filter, sort: "name:asc") { content { name projects(pageSize: 1, sort: "name:asc") {
        totalElements totalPages size numberOfElements first last number content { name tasks(pageSize: 2) { totalElements numberOfElements totalPages } } } } } }`,
      { filter: `name=like='${prefix}*'` },
    );
    const [first, second] = data.organizations.content;
    expect(first.projects).toMatchObject({ totalElements: 3, totalPages: 3, size: 1, numberOfElements: 1, first: true, last: false, number: 0 });
    expect(first.projects.content[0]).toEqual({ name: tree[0].projects[0].name, tasks: { totalElements: 5, numberOfElements: 2, totalPages: 3 } });
    expect(second.projects).toMatchObject({ totalElements: 1, totalPages: 1, numberOfElements: 1, first: true, last: true });
    expect(second.projects.content[0].tasks).toEqual({ totalElements: 0, numberOfElements: 0, totalPages: 0 });
  });

  it('applies a to-many field its own filter, sort, query, page and pageSize, per parent', async () => {
    const query = `query($filter: String!, $tf: String, $ts: String, $tq: String, $page: Int, $size: Int) {
      organizations(filter: $filter) { content { projects(sort: "name:asc") { content { name
        tasks(filter: $tf, sort: $ts, query: $tq, page: $page, pageSize: $size) { totalElements numberOfElements number content { title priority } }
      } } } }
    }`;
    const tasksOf = async (variables: Record<string, unknown>) => {
      const data = await gql(query, { filter: `name=='${tree[0].name}'`, ...variables });
      return data.organizations.content[0].projects.content.map((p: any) => p.tasks);
    };

    const sorted = await tasksOf({ ts: 'priority:desc', size: 2 });
    expect(sorted[0]).toEqual({
      totalElements: 5,
      numberOfElements: 2,
      number: 0,
      content: [
        { title: 'charlie', priority: 5 },
        { title: 'delta', priority: 4 },
      ],
    });
    expect(sorted[1]).toEqual({
      totalElements: 2,
      numberOfElements: 2,
      number: 0,
      content: [
        { title: 'foxtrot', priority: 9 },
        { title: 'golf', priority: 1 },
      ],
    });
    expect(sorted[2]).toEqual({ totalElements: 0, numberOfElements: 0, number: 0, content: [] });

    const secondPage = await tasksOf({ ts: 'priority:desc', size: 2, page: 1 });
    expect(secondPage[0]).toEqual({
      totalElements: 5,
      numberOfElements: 2,
      number: 1,
      content: [
        { title: 'alpha', priority: 3 },
        { title: 'echo', priority: 2 },
      ],
    });
    expect(secondPage[1]).toEqual({ totalElements: 2, numberOfElements: 0, number: 1, content: [] });

    const filtered = await tasksOf({ tf: 'priority<=2', ts: 'title:desc' });
    expect(filtered[0]).toMatchObject({ totalElements: 2, content: [{ title: 'echo' }, { title: 'bravo' }] });
    expect(filtered[1]).toMatchObject({ totalElements: 1, content: [{ title: 'golf' }] });

    const searched = await tasksOf({ tq: 'needle' });
    expect(searched.map((page: any) => page.totalElements)).toEqual([1, 0, 0]);
    expect(searched[0].content).toEqual([{ title: 'delta', priority: 4 }]);
  });

  it('hides deleted children from a nested page and its totalElements', async () => {
    const project = tree[0].projects[1];
    const golf = project.tasks.find((t) => t.title === 'golf')!;
    const query = `query($id: ID!) { project(id: $id) { tasks { totalElements content { id } } } }`;
    expect((await gql(query, { id: project.id })).project.tasks.totalElements).toBe(2);
    expect((await gql(`mutation($id: ID!) { deleteTask(id: $id) }`, { id: golf.id })).deleteTask).toBe(true);
    const after = (await gql(query, { id: project.id })).project.tasks;
    expect(after.totalElements).toBe(1);
    expect(after.content.map((t: any) => t.id)).not.toContain(golf.id);
  });

  it('refuses bad arguments of a nested field with BAD_REQUEST (400)', async () => {
    for (const args of [`pageSize: 101`, `page: -1`, `filter: "nonsense=='x'"`, `sort: "nonsense:asc"`]) {
      const answer = await server.graphql(`query($id: ID!) { organization(id: $id) { projects(${args}) { totalElements } } }`, { id: tree[0].id });
      expect(answer.body.errors?.[0]?.extensions, `${args}: ${answer.text}`).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    }
  });
});

describe('teams and members', () => {
  interface TeamTree {
    organization: { id: string; name: string };
    teams: { id: string; name: string; members: { id: string; user: { id: string; email: string } }[] }[];
  }

  /** One organization with `teams` teams of `membersEach` new users each. */
  async function createTeams(prefix: string, teams: number, membersEach: number): Promise<TeamTree> {
    const organization = (await gql(`mutation { createOrganization(input: { name: "${prefix}" }) { id name } }`)).createOrganization;
    const teamData = await gql(
      `mutation { ${Array.from({ length: teams }, (_, i) => `t${i}: createTeam(input: { organizationId: "${organization.id}", name: "${prefix}-team${i}" }) { id name }`).join('\n')} }`,
    );
    const tree: TeamTree = { organization, teams: Array.from({ length: teams }, (_, i) => ({ ...teamData[`t${i}`], members: [] })) };
    const emails = tree.teams.flatMap((_, i) => Array.from({ length: membersEach }, (_, j) => `${prefix}-u${i}-${j}@example.com`.toLowerCase()));
    const userData = await gql(`mutation { ${emails.map((e, n) => `u${n}: createPlatformUser(input: { email: "${e}" }) { id email }`).join('\n')} }`);
    const memberData = await gql(
      `mutation { ${tree.teams
        .flatMap((team, i) =>
          Array.from(
            { length: membersEach },
            (_, j) => `m${i}_${j}: createTeamMember(input: { teamId: "${team.id}", userId: "${userData[`u${i * membersEach + j}`].id}" }) { id }`,
          ),
        )
        .join('\n')} }`,
    );
    tree.teams.forEach((team, i) => {
      for (let j = 0; j < membersEach; j += 1) team.members.push({ id: memberData[`m${i}_${j}`].id, user: userData[`u${i * membersEach + j}`] });
    });
    return tree;
  }

  const MEMBERS_QUERY = `query($filter: String!) {
    teamMembers(filter: $filter, pageSize: 100, sort: "user.email:asc") {
      totalElements
      content { id teamId userId team { id name organizationId organization { id name } } user { id email } }
    }
  }`;

  function expectedMembers(tree: TeamTree) {
    const rows = tree.teams.flatMap((team) =>
      team.members.map((member) => ({
        id: member.id,
        teamId: team.id,
        userId: member.user.id,
        team: { id: team.id, name: team.name, organizationId: tree.organization.id, organization: tree.organization },
        user: member.user,
      })),
    );
    rows.sort((a, b) => a.user.email.localeCompare(b.user.email));
    return { totalElements: rows.length, content: rows };
  }

  let small: TeamTree;
  let large: TeamTree;
  beforeAll(async () => {
    small = await createTeams(unique('TeamsS'), 1, 2);
    large = await createTeams(unique('TeamsL'), 4, 5);
  });

  it('resolves TeamMember.team, TeamMember.user and Team.organization, with the same statements for more rows', async () => {
    // Every organization also has its `owners` team (its creator is the member): left out here.
    const smallRun = await measured(MEMBERS_QUERY, { filter: `team.organizationId==${small.organization.id};team.slug!='owners'` });
    const largeRun = await measured(MEMBERS_QUERY, { filter: `team.organizationId==${large.organization.id};team.slug!='owners'` });
    expect(smallRun.data.teamMembers).toEqual(expectedMembers(small));
    expect(largeRun.data.teamMembers).toEqual(expectedMembers(large));
    expect(largeRun.data.teamMembers.totalElements).toBe(20);
    expect(largeRun.statements).toBe(smallRun.statements);
  });

  it('lists Organization.teams -> Team.members -> TeamMember.user with one statement per level', async () => {
    const query = `query($id: ID!) { organization(id: $id) { id teams(sort: "name:asc", filter: "slug!='owners'") { totalElements content { id name organization { id }
      members(pageSize: 100, sort: "user.email:asc") { totalElements content { id user { id email } } } } } } }`;
    const smallRun = await measured(query, { id: small.organization.id });
    const largeRun = await measured(query, { id: large.organization.id });
    for (const [run, tree] of [
      [smallRun, small],
      [largeRun, large],
    ] as const) {
      expect(run.data.organization.teams).toEqual({
        totalElements: tree.teams.length,
        content: tree.teams.map((team) => ({
          id: team.id,
          name: team.name,
          organization: { id: tree.organization.id },
          members: {
            totalElements: team.members.length,
            content: [...team.members].sort((a, b) => a.user.email.localeCompare(b.user.email)).map((m) => ({ id: m.id, user: m.user })),
          },
        })),
      });
    }
    expect(largeRun.statements).toBe(smallRun.statements);
  });
});

describe('abusive queries', () => {
  it('refuses a query nested over 40 levels deep with BAD_REQUEST (400) before running it', async () => {
    const organization = (await gql(`mutation { createOrganization(input: { name: "${unique('Deep')}" }) { id } }`)).createOrganization;
    let selection = 'id';
    for (let level = 0; level < 15; level += 1) selection = `projects { content { organization { ${selection} } } }`;
    let answer: any;
    const statements = await server.countQueries(async () => {
      answer = await server.graphql(`query($id: ID!) { organization(id: $id) { ${selection} } }`, { id: organization.id });
    });
    expect(answer.body.errors?.[0]?.extensions, answer.text).toMatchObject({ code: 'BAD_REQUEST', status: 400 });
    expect(answer.body.data ?? null).toBeNull();
    // Only authentication may have touched the database.
    expect(statements).toBeLessThanOrEqual(2);
  });
});

describe('compiled queries', () => {
  it('treat list arguments whose variables were not sent as absent (defaults apply)', async () => {
    const data = await gql(`query($f: String, $size: Int, $sort: String) { organizations(filter: $f, pageSize: $size, sort: $sort) { size number } }`, {});
    expect(data.organizations).toEqual({ size: 10, number: 0 });
  });

  it('answer a second request of the same document from the compiled form, with its own variables', async () => {
    const query = `query($size: Int) { organizations(pageSize: $size) { size } }`;
    expect((await gql(query, { size: 3 })).organizations.size).toBe(3);
    expect((await gql(query, { size: 7 })).organizations.size).toBe(7);
  });
});

describe('project → tasks → task activities', () => {
  /** A project with `tasks` tasks of `activities` activities each, created as the administrator. */
  async function projectWith(tasks: number, activities: number): Promise<string> {
    const org = await gql(`mutation { createOrganization(input: { name: "${unique('Acts')}" }) { id } }`);
    const project = await gql(`mutation($o: ID!) { createProject(input: { organizationId: $o, name: "With activities" }) { id } }`, {
      o: org.createOrganization.id,
    });
    for (let t = 0; t < tasks; t++) {
      const task = await gql(`mutation($p: ID!) { createTask(input: { projectId: $p, title: "T${t}" }) { id } }`, { p: project.createProject.id });
      for (let a = 0; a < activities; a++) {
        await gql(`mutation($t: ID!) { createTaskActivity(input: { taskId: $t, type: COMMENT, text: "A${a}" }) { id } }`, { t: task.createTask.id });
      }
    }
    return project.createProject.id;
  }

  it('reads each level in one statement, the same for more rows', async () => {
    // Read by the resolvers (a directive sends a query to them; without one the database answers it alone, in one statement).
    const query = `query($id: ID!) { project(id: $id) @include(if: true) { tasks(pageSize: 10) { totalElements content { title activities(pageSize: 10) { totalElements content { text type } } } } } }`;
    const small = await projectWith(1, 1);
    const large = await projectWith(4, 3);
    const smallRun = await measured(query, { id: small });
    const largeRun = await measured(query, { id: large });
    // Each task also has the CREATED activity the server wrote when it was created.
    const comments = (activities: { content: { type: string; text: string }[] }) => activities.content.filter((a) => a.type === 'COMMENT');
    expect(smallRun.data.project.tasks.content[0].activities.totalElements).toBe(2);
    expect(comments(smallRun.data.project.tasks.content[0].activities)).toEqual([{ text: 'A0', type: 'COMMENT' }]);
    expect(largeRun.data.project.tasks.totalElements).toBe(4);
    expect(largeRun.data.project.tasks.content.map((t: { activities: { totalElements: number } }) => t.activities.totalElements)).toEqual([4, 4, 4, 4]);
    // The project, its tasks' level and their activities' level: one statement each.
    expect(largeRun.statements).toBe(smallRun.statements);
    expect(smallRun.statements).toBe(3);
  });
});
