import pg from 'pg';

/** The tables PostGraphile reads for a member, and the column that holds each row's organization. */
const TENANT_COLUMNS = { organization: 'id', project: 'organization_id', task: 'tenant_id' } as const;

/**
 * Row-level security for PostGraphile's member requests, on the scratch database: a role of this run
 * (roles belong to the whole server: `dropRlsRole` removes it, also after a failure here) that may read
 * the three tables, and one policy per table letting it see the rows of the organizations
 * in the `jwt.claims.organizations` setting (comma-separated ids), which PostGraphile sets per request.
 * The setting is read once per statement (a sub-select), not once per row. The server and the other
 * baselines connect as the tables' owner (or a superuser), whom the policies do not restrict.
 */
export async function createRlsRole(databaseUrl: string, role: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`create role "${role}" nologin`);
    // The pool's user switches to it (`set role`): a superuser may anyway, anyone else needs the membership.
    await client.query(`grant "${role}" to current_user`).catch(() => undefined);
    await client.query(`grant usage on schema public to "${role}"`);
    // The cast outside the sub-select makes it an array expression (`any (select …)` would compare with each row of a subquery).
    const organizations = `(select string_to_array(current_setting('jwt.claims.organizations', true), ','))::uuid[]`;
    for (const [table, tenantColumn] of Object.entries(TENANT_COLUMNS)) {
      await client.query(`grant select on "${table}" to "${role}"`);
      await client.query(`alter table "${table}" enable row level security`);
      await client.query(`create policy bench_member_reads on "${table}" for select to "${role}" using ("${tenantColumn}" = any(${organizations}))`);
    }
  } finally {
    await client.end();
  }
}

/** The role of this run: roles belong to the whole database server, so its name carries the process id. */
export const rlsRoleName = () => `platform_bench_member_${process.pid}`;

/** Drops the role (if it was created) once the scratch database, which holds its grants and policies, is gone. */
export async function dropRlsRole(serverUrl: string, role: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`drop role if exists "${role}"`);
  } finally {
    await client.end();
  }
}
