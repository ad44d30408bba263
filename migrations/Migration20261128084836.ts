import { Migration } from '@mikro-orm/migrations';

export class Migration20261128084836 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "live_row_count" ("table_name" text not null, "tenant_id" uuid not null, "slot" smallint not null, "rows" bigint not null, constraint "live_row_count_pkey" primary key ("table_name", "tenant_id", "slot"));`,
    );
    // Tenant keys, liveness flags and live-row counts of the tables below an organization, kept by the database.
    this.addSql(`create or replace function "activity_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'activity', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'activity', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'activity', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "activity_live_rows_i" after insert on "activity" referencing new table as new_rows for each statement execute function "activity_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "activity_live_rows_d" after delete on "activity" referencing old table as old_rows for each statement execute function "activity_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "activity_live_rows_u" after update on "activity" referencing new table as new_rows old table as old_rows for each statement execute function "activity_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'activity';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'activity', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "activity" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "activity_plan_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'activity_plan', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'activity_plan', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'activity_plan', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "activity_plan_live_rows_i" after insert on "activity_plan" referencing new table as new_rows for each statement execute function "activity_plan_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "activity_plan_live_rows_d" after delete on "activity_plan" referencing old table as old_rows for each statement execute function "activity_plan_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "activity_plan_live_rows_u" after update on "activity_plan" referencing new table as new_rows old table as old_rows for each statement execute function "activity_plan_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'activity_plan';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'activity_plan', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "activity_plan" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "agent_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "agent_live_rows_i" after insert on "agent" referencing new table as new_rows for each statement execute function "agent_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "agent_live_rows_d" after delete on "agent" referencing old table as old_rows for each statement execute function "agent_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "agent_live_rows_u" after update on "agent" referencing new table as new_rows old table as old_rows for each statement execute function "agent_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'agent';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'agent', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "agent" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "agent_runtime_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent_runtime', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent_runtime', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent_runtime', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "agent_runtime_live_rows_i" after insert on "agent_runtime" referencing new table as new_rows for each statement execute function "agent_runtime_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "agent_runtime_live_rows_d" after delete on "agent_runtime" referencing old table as old_rows for each statement execute function "agent_runtime_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "agent_runtime_live_rows_u" after update on "agent_runtime" referencing new table as new_rows old table as old_rows for each statement execute function "agent_runtime_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'agent_runtime';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'agent_runtime', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "agent_runtime" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "agent_session_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent_session', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent_session', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'agent_session', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "agent_session_live_rows_i" after insert on "agent_session" referencing new table as new_rows for each statement execute function "agent_session_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "agent_session_live_rows_d" after delete on "agent_session" referencing old table as old_rows for each statement execute function "agent_session_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "agent_session_live_rows_u" after update on "agent_session" referencing new table as new_rows old table as old_rows for each statement execute function "agent_session_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'agent_session';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'agent_session', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "agent_session" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "applied_knowledge_set_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'applied_knowledge_set', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'applied_knowledge_set', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'applied_knowledge_set', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "applied_knowledge_set_live_rows_i" after insert on "applied_knowledge_set" referencing new table as new_rows for each statement execute function "applied_knowledge_set_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "applied_knowledge_set_live_rows_d" after delete on "applied_knowledge_set" referencing old table as old_rows for each statement execute function "applied_knowledge_set_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "applied_knowledge_set_live_rows_u" after update on "applied_knowledge_set" referencing new table as new_rows old table as old_rows for each statement execute function "applied_knowledge_set_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'applied_knowledge_set';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'applied_knowledge_set', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "applied_knowledge_set" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "assistant_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'assistant', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'assistant', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'assistant', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "assistant_live_rows_i" after insert on "assistant" referencing new table as new_rows for each statement execute function "assistant_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "assistant_live_rows_d" after delete on "assistant" referencing old table as old_rows for each statement execute function "assistant_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "assistant_live_rows_u" after update on "assistant" referencing new table as new_rows old table as old_rows for each statement execute function "assistant_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'assistant';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'assistant', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "assistant" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "channel_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'channel', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'channel', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'channel', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "channel_live_rows_i" after insert on "channel" referencing new table as new_rows for each statement execute function "channel_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "channel_live_rows_d" after delete on "channel" referencing old table as old_rows for each statement execute function "channel_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "channel_live_rows_u" after update on "channel" referencing new table as new_rows old table as old_rows for each statement execute function "channel_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'channel';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'channel', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "channel" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "content_object_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'content_object', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'content_object', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'content_object', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "content_object_live_rows_i" after insert on "content_object" referencing new table as new_rows for each statement execute function "content_object_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "content_object_live_rows_d" after delete on "content_object" referencing old table as old_rows for each statement execute function "content_object_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "content_object_live_rows_u" after update on "content_object" referencing new table as new_rows old table as old_rows for each statement execute function "content_object_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'content_object';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'content_object', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "content_object" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "data_definition_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_definition', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_definition', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_definition', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "data_definition_live_rows_i" after insert on "data_definition" referencing new table as new_rows for each statement execute function "data_definition_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_definition_live_rows_d" after delete on "data_definition" referencing old table as old_rows for each statement execute function "data_definition_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_definition_live_rows_u" after update on "data_definition" referencing new table as new_rows old table as old_rows for each statement execute function "data_definition_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'data_definition';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'data_definition', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "data_definition" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "data_form_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_form', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_form', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_form', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "data_form_live_rows_i" after insert on "data_form" referencing new table as new_rows for each statement execute function "data_form_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_form_live_rows_d" after delete on "data_form" referencing old table as old_rows for each statement execute function "data_form_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_form_live_rows_u" after update on "data_form" referencing new table as new_rows old table as old_rows for each statement execute function "data_form_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'data_form';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'data_form', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "data_form" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "data_object_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_object', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_object', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_object', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "data_object_live_rows_i" after insert on "data_object" referencing new table as new_rows for each statement execute function "data_object_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_object_live_rows_d" after delete on "data_object" referencing old table as old_rows for each statement execute function "data_object_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_object_live_rows_u" after update on "data_object" referencing new table as new_rows old table as old_rows for each statement execute function "data_object_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'data_object';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'data_object', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "data_object" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "data_store_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_store', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_store', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'data_store', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "data_store_live_rows_i" after insert on "data_store" referencing new table as new_rows for each statement execute function "data_store_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_store_live_rows_d" after delete on "data_store" referencing old table as old_rows for each statement execute function "data_store_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "data_store_live_rows_u" after update on "data_store" referencing new table as new_rows old table as old_rows for each statement execute function "data_store_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'data_store';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'data_store', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "data_store" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "document_family_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_family', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_family', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_family', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "document_family_live_rows_i" after insert on "document_family" referencing new table as new_rows for each statement execute function "document_family_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "document_family_live_rows_d" after delete on "document_family" referencing old table as old_rows for each statement execute function "document_family_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "document_family_live_rows_u" after update on "document_family" referencing new table as new_rows old table as old_rows for each statement execute function "document_family_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'document_family';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'document_family', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "document_family" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "document_status_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "document_status_live_rows_i" after insert on "document_status" referencing new table as new_rows for each statement execute function "document_status_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "document_status_live_rows_d" after delete on "document_status" referencing old table as old_rows for each statement execute function "document_status_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "document_status_live_rows_u" after update on "document_status" referencing new table as new_rows old table as old_rows for each statement execute function "document_status_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'document_status';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'document_status', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "document_status" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "document_store_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_store', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_store', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'document_store', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "document_store_live_rows_i" after insert on "document_store" referencing new table as new_rows for each statement execute function "document_store_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "document_store_live_rows_d" after delete on "document_store" referencing old table as old_rows for each statement execute function "document_store_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "document_store_live_rows_u" after update on "document_store" referencing new table as new_rows old table as old_rows for each statement execute function "document_store_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'document_store';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'document_store', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "document_store" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "execution_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'execution', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'execution', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'execution', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "execution_live_rows_i" after insert on "execution" referencing new table as new_rows for each statement execute function "execution_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "execution_live_rows_d" after delete on "execution" referencing old table as old_rows for each statement execute function "execution_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "execution_live_rows_u" after update on "execution" referencing new table as new_rows old table as old_rows for each statement execute function "execution_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'execution';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'execution', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "execution" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "knowledge_clause_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_clause', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_clause', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_clause', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "knowledge_clause_live_rows_i" after insert on "knowledge_clause" referencing new table as new_rows for each statement execute function "knowledge_clause_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_clause_live_rows_d" after delete on "knowledge_clause" referencing old table as old_rows for each statement execute function "knowledge_clause_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_clause_live_rows_u" after update on "knowledge_clause" referencing new table as new_rows old table as old_rows for each statement execute function "knowledge_clause_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'knowledge_clause';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'knowledge_clause', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "knowledge_clause" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "knowledge_feature_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_feature', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_feature', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_feature', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "knowledge_feature_live_rows_i" after insert on "knowledge_feature" referencing new table as new_rows for each statement execute function "knowledge_feature_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_feature_live_rows_d" after delete on "knowledge_feature" referencing old table as old_rows for each statement execute function "knowledge_feature_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_feature_live_rows_u" after update on "knowledge_feature" referencing new table as new_rows old table as old_rows for each statement execute function "knowledge_feature_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'knowledge_feature';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'knowledge_feature', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "knowledge_feature" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "knowledge_item_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_item', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_item', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_item', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "knowledge_item_live_rows_i" after insert on "knowledge_item" referencing new table as new_rows for each statement execute function "knowledge_item_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_item_live_rows_d" after delete on "knowledge_item" referencing old table as old_rows for each statement execute function "knowledge_item_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_item_live_rows_u" after update on "knowledge_item" referencing new table as new_rows old table as old_rows for each statement execute function "knowledge_item_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'knowledge_item';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'knowledge_item', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "knowledge_item" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "knowledge_set_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_set', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_set', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_set', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "knowledge_set_live_rows_i" after insert on "knowledge_set" referencing new table as new_rows for each statement execute function "knowledge_set_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_set_live_rows_d" after delete on "knowledge_set" referencing old table as old_rows for each statement execute function "knowledge_set_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_set_live_rows_u" after update on "knowledge_set" referencing new table as new_rows old table as old_rows for each statement execute function "knowledge_set_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'knowledge_set';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'knowledge_set', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "knowledge_set" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "knowledge_set_snapshot_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_set_snapshot', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_set_snapshot', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'knowledge_set_snapshot', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "knowledge_set_snapshot_live_rows_i" after insert on "knowledge_set_snapshot" referencing new table as new_rows for each statement execute function "knowledge_set_snapshot_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_set_snapshot_live_rows_d" after delete on "knowledge_set_snapshot" referencing old table as old_rows for each statement execute function "knowledge_set_snapshot_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "knowledge_set_snapshot_live_rows_u" after update on "knowledge_set_snapshot" referencing new table as new_rows old table as old_rows for each statement execute function "knowledge_set_snapshot_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'knowledge_set_snapshot';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'knowledge_set_snapshot', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "knowledge_set_snapshot" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "label_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'label', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'label', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'label', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "label_live_rows_i" after insert on "label" referencing new table as new_rows for each statement execute function "label_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "label_live_rows_d" after delete on "label" referencing old table as old_rows for each statement execute function "label_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "label_live_rows_u" after update on "label" referencing new table as new_rows old table as old_rows for each statement execute function "label_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'label';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'label', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "label" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "linked_delta_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'linked_delta', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'linked_delta', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'linked_delta', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "linked_delta_live_rows_i" after insert on "linked_delta" referencing new table as new_rows for each statement execute function "linked_delta_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "linked_delta_live_rows_d" after delete on "linked_delta" referencing old table as old_rows for each statement execute function "linked_delta_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "linked_delta_live_rows_u" after update on "linked_delta" referencing new table as new_rows old table as old_rows for each statement execute function "linked_delta_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'linked_delta';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'linked_delta', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "linked_delta" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "message_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'message', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'message', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'message', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "message_live_rows_i" after insert on "message" referencing new table as new_rows for each statement execute function "message_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "message_live_rows_d" after delete on "message" referencing old table as old_rows for each statement execute function "message_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "message_live_rows_u" after update on "message" referencing new table as new_rows old table as old_rows for each statement execute function "message_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'message';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'message', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "message" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "organization_secret_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'organization_secret', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'organization_secret', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'organization_secret', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "organization_secret_live_rows_i" after insert on "organization_secret" referencing new table as new_rows for each statement execute function "organization_secret_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "organization_secret_live_rows_d" after delete on "organization_secret" referencing old table as old_rows for each statement execute function "organization_secret_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "organization_secret_live_rows_u" after update on "organization_secret" referencing new table as new_rows old table as old_rows for each statement execute function "organization_secret_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'organization_secret';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'organization_secret', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "organization_secret" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "platform_event_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'platform_event', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'platform_event', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'platform_event', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "platform_event_live_rows_i" after insert on "platform_event" referencing new table as new_rows for each statement execute function "platform_event_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "platform_event_live_rows_d" after delete on "platform_event" referencing old table as old_rows for each statement execute function "platform_event_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "platform_event_live_rows_u" after update on "platform_event" referencing new table as new_rows old table as old_rows for each statement execute function "platform_event_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'platform_event';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'platform_event', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "platform_event" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "project_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "project_live_rows_i" after insert on "project" referencing new table as new_rows for each statement execute function "project_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_live_rows_d" after delete on "project" referencing old table as old_rows for each statement execute function "project_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_live_rows_u" after update on "project" referencing new table as new_rows old table as old_rows for each statement execute function "project_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'project';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'project', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "project" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "project_resource_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_resource', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_resource', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_resource', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "project_resource_live_rows_i" after insert on "project_resource" referencing new table as new_rows for each statement execute function "project_resource_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_resource_live_rows_d" after delete on "project_resource" referencing old table as old_rows for each statement execute function "project_resource_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_resource_live_rows_u" after update on "project_resource" referencing new table as new_rows old table as old_rows for each statement execute function "project_resource_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'project_resource';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'project_resource', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "project_resource" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "project_status_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "project_status_live_rows_i" after insert on "project_status" referencing new table as new_rows for each statement execute function "project_status_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_status_live_rows_d" after delete on "project_status" referencing old table as old_rows for each statement execute function "project_status_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_status_live_rows_u" after update on "project_status" referencing new table as new_rows old table as old_rows for each statement execute function "project_status_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'project_status';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'project_status', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "project_status" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "project_template_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_template', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_template', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'project_template', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "project_template_live_rows_i" after insert on "project_template" referencing new table as new_rows for each statement execute function "project_template_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_template_live_rows_d" after delete on "project_template" referencing old table as old_rows for each statement execute function "project_template_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "project_template_live_rows_u" after update on "project_template" referencing new table as new_rows old table as old_rows for each statement execute function "project_template_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'project_template';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'project_template', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "project_template" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "prompt_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'prompt', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'prompt', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'prompt', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "prompt_live_rows_i" after insert on "prompt" referencing new table as new_rows for each statement execute function "prompt_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "prompt_live_rows_d" after delete on "prompt" referencing old table as old_rows for each statement execute function "prompt_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "prompt_live_rows_u" after update on "prompt" referencing new table as new_rows old table as old_rows for each statement execute function "prompt_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'prompt';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'prompt', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "prompt" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "service_bridge_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'service_bridge', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'service_bridge', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'service_bridge', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "service_bridge_live_rows_i" after insert on "service_bridge" referencing new table as new_rows for each statement execute function "service_bridge_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "service_bridge_live_rows_d" after delete on "service_bridge" referencing old table as old_rows for each statement execute function "service_bridge_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "service_bridge_live_rows_u" after update on "service_bridge" referencing new table as new_rows old table as old_rows for each statement execute function "service_bridge_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'service_bridge';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'service_bridge', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "service_bridge" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "session_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'session', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'session', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'session', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "session_live_rows_i" after insert on "session" referencing new table as new_rows for each statement execute function "session_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "session_live_rows_d" after delete on "session" referencing old table as old_rows for each statement execute function "session_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "session_live_rows_u" after update on "session" referencing new table as new_rows old table as old_rows for each statement execute function "session_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'session';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'session', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "session" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "step_execution_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'step_execution', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'step_execution', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'step_execution', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "step_execution_live_rows_i" after insert on "step_execution" referencing new table as new_rows for each statement execute function "step_execution_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "step_execution_live_rows_d" after delete on "step_execution" referencing old table as old_rows for each statement execute function "step_execution_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "step_execution_live_rows_u" after update on "step_execution" referencing new table as new_rows old table as old_rows for each statement execute function "step_execution_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'step_execution';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'step_execution', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "step_execution" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "task_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "task_live_rows_i" after insert on "task" referencing new table as new_rows for each statement execute function "task_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_live_rows_d" after delete on "task" referencing old table as old_rows for each statement execute function "task_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_live_rows_u" after update on "task" referencing new table as new_rows old table as old_rows for each statement execute function "task_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'task';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'task', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "task" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "task_activity_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_activity', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_activity', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_activity', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "task_activity_live_rows_i" after insert on "task_activity" referencing new table as new_rows for each statement execute function "task_activity_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_activity_live_rows_d" after delete on "task_activity" referencing old table as old_rows for each statement execute function "task_activity_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_activity_live_rows_u" after update on "task_activity" referencing new table as new_rows old table as old_rows for each statement execute function "task_activity_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'task_activity';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'task_activity', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "task_activity" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "task_document_family_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_document_family', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_document_family', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_document_family', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "task_document_family_live_rows_i" after insert on "task_document_family" referencing new table as new_rows for each statement execute function "task_document_family_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_document_family_live_rows_d" after delete on "task_document_family" referencing old table as old_rows for each statement execute function "task_document_family_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_document_family_live_rows_u" after update on "task_document_family" referencing new table as new_rows old table as old_rows for each statement execute function "task_document_family_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'task_document_family';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'task_document_family', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "task_document_family" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "task_group_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_group', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_group', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_group', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "task_group_live_rows_i" after insert on "task_group" referencing new table as new_rows for each statement execute function "task_group_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_group_live_rows_d" after delete on "task_group" referencing old table as old_rows for each statement execute function "task_group_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_group_live_rows_u" after update on "task_group" referencing new table as new_rows old table as old_rows for each statement execute function "task_group_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'task_group';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'task_group', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "task_group" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "task_group_history_entry_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_group_history_entry', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_group_history_entry', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_group_history_entry', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "task_group_history_entry_live_rows_i" after insert on "task_group_history_entry" referencing new table as new_rows for each statement execute function "task_group_history_entry_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_group_history_entry_live_rows_d" after delete on "task_group_history_entry" referencing old table as old_rows for each statement execute function "task_group_history_entry_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_group_history_entry_live_rows_u" after update on "task_group_history_entry" referencing new table as new_rows old table as old_rows for each statement execute function "task_group_history_entry_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'task_group_history_entry';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'task_group_history_entry', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "task_group_history_entry" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "task_status_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_status', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "task_status_live_rows_i" after insert on "task_status" referencing new table as new_rows for each statement execute function "task_status_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_status_live_rows_d" after delete on "task_status" referencing old table as old_rows for each statement execute function "task_status_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_status_live_rows_u" after update on "task_status" referencing new table as new_rows old table as old_rows for each statement execute function "task_status_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'task_status';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'task_status', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "task_status" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "task_template_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_template', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_template', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'task_template', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "task_template_live_rows_i" after insert on "task_template" referencing new table as new_rows for each statement execute function "task_template_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_template_live_rows_d" after delete on "task_template" referencing old table as old_rows for each statement execute function "task_template_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "task_template_live_rows_u" after update on "task_template" referencing new table as new_rows old table as old_rows for each statement execute function "task_template_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'task_template';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'task_template', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "task_template" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "team_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'team', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'team', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'team', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "team_live_rows_i" after insert on "team" referencing new table as new_rows for each statement execute function "team_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "team_live_rows_d" after delete on "team" referencing old table as old_rows for each statement execute function "team_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "team_live_rows_u" after update on "team" referencing new table as new_rows old table as old_rows for each statement execute function "team_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'team';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'team', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "team" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "team_member_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'team_member', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'team_member', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'team_member', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "team_member_live_rows_i" after insert on "team_member" referencing new table as new_rows for each statement execute function "team_member_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "team_member_live_rows_d" after delete on "team_member" referencing old table as old_rows for each statement execute function "team_member_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "team_member_live_rows_u" after update on "team_member" referencing new table as new_rows old table as old_rows for each statement execute function "team_member_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'team_member';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'team_member', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "team_member" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "trigger_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'trigger', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'trigger', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'trigger', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "trigger_live_rows_i" after insert on "trigger" referencing new table as new_rows for each statement execute function "trigger_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "trigger_live_rows_d" after delete on "trigger" referencing old table as old_rows for each statement execute function "trigger_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "trigger_live_rows_u" after update on "trigger" referencing new table as new_rows old table as old_rows for each statement execute function "trigger_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'trigger';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'trigger', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "trigger" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "webhook_delivery_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'webhook_delivery', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'webhook_delivery', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'webhook_delivery', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "webhook_delivery_live_rows_i" after insert on "webhook_delivery" referencing new table as new_rows for each statement execute function "webhook_delivery_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "webhook_delivery_live_rows_d" after delete on "webhook_delivery" referencing old table as old_rows for each statement execute function "webhook_delivery_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "webhook_delivery_live_rows_u" after update on "webhook_delivery" referencing new table as new_rows old table as old_rows for each statement execute function "webhook_delivery_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'webhook_delivery';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'webhook_delivery', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "webhook_delivery" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "webhook_endpoint_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'webhook_endpoint', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'webhook_endpoint', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'webhook_endpoint', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."organization_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."parent_hidden") is distinct from (not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "webhook_endpoint_live_rows_i" after insert on "webhook_endpoint" referencing new table as new_rows for each statement execute function "webhook_endpoint_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "webhook_endpoint_live_rows_d" after delete on "webhook_endpoint" referencing old table as old_rows for each statement execute function "webhook_endpoint_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "webhook_endpoint_live_rows_u" after update on "webhook_endpoint" referencing new table as new_rows old table as old_rows for each statement execute function "webhook_endpoint_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'webhook_endpoint';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'webhook_endpoint', coalesce(r."organization_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "webhook_endpoint" r where not r."parent_hidden" group by 2;`,
    );
    this.addSql(`create or replace function "workspace_live_rows"() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'workspace', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, count(*) as delta from new_rows n where not n."deleted" and not n."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  elsif tg_op = 'DELETE' then
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'workspace', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(o."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, -count(*) as delta from old_rows o where not o."deleted" and not o."parent_hidden" group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  else
    insert into live_row_count as c ("table_name", "tenant_id", "slot", "rows")
      select 'workspace', d.tenant, pg_backend_pid() % 8, d.delta from (select coalesce(n."tenant_id", '00000000-0000-0000-0000-000000000000') as tenant, sum(case when not n."deleted" and not n."parent_hidden" then 1 else -1 end) as delta from new_rows n join old_rows o on o."id" = n."id" where (not n."deleted" and not n."parent_hidden") is distinct from (not o."deleted" and not o."parent_hidden") group by 1) d where d.delta <> 0 order by d.tenant
      on conflict ("table_name", "tenant_id", "slot") do update set "rows" = c."rows" + excluded."rows";
  end if;
  return null;
end $$;`);
    this.addSql(
      `create or replace trigger "workspace_live_rows_i" after insert on "workspace" referencing new table as new_rows for each statement execute function "workspace_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "workspace_live_rows_d" after delete on "workspace" referencing old table as old_rows for each statement execute function "workspace_live_rows"();`,
    );
    this.addSql(
      `create or replace trigger "workspace_live_rows_u" after update on "workspace" referencing new table as new_rows old table as old_rows for each statement execute function "workspace_live_rows"();`,
    );
    this.addSql(`delete from live_row_count where "table_name" = 'workspace';`);
    this.addSql(
      `insert into live_row_count ("table_name", "tenant_id", "slot", "rows") select 'workspace', coalesce(r."tenant_id", '00000000-0000-0000-0000-000000000000'), 0, count(*) from "workspace" r where not r."deleted" and not r."parent_hidden" group by 2;`,
    );
  }

  override async down(): Promise<void> {
    // The triggers that keep the counts go first: left behind, they would write to a table that is gone.
    this.addSql(`drop trigger if exists "activity_live_rows_i" on "activity";`);
    this.addSql(`drop trigger if exists "activity_live_rows_d" on "activity";`);
    this.addSql(`drop trigger if exists "activity_live_rows_u" on "activity";`);
    this.addSql(`drop trigger if exists "activity_plan_live_rows_i" on "activity_plan";`);
    this.addSql(`drop trigger if exists "activity_plan_live_rows_d" on "activity_plan";`);
    this.addSql(`drop trigger if exists "activity_plan_live_rows_u" on "activity_plan";`);
    this.addSql(`drop trigger if exists "agent_live_rows_i" on "agent";`);
    this.addSql(`drop trigger if exists "agent_live_rows_d" on "agent";`);
    this.addSql(`drop trigger if exists "agent_live_rows_u" on "agent";`);
    this.addSql(`drop trigger if exists "agent_runtime_live_rows_i" on "agent_runtime";`);
    this.addSql(`drop trigger if exists "agent_runtime_live_rows_d" on "agent_runtime";`);
    this.addSql(`drop trigger if exists "agent_runtime_live_rows_u" on "agent_runtime";`);
    this.addSql(`drop trigger if exists "agent_session_live_rows_i" on "agent_session";`);
    this.addSql(`drop trigger if exists "agent_session_live_rows_d" on "agent_session";`);
    this.addSql(`drop trigger if exists "agent_session_live_rows_u" on "agent_session";`);
    this.addSql(`drop trigger if exists "applied_knowledge_set_live_rows_i" on "applied_knowledge_set";`);
    this.addSql(`drop trigger if exists "applied_knowledge_set_live_rows_d" on "applied_knowledge_set";`);
    this.addSql(`drop trigger if exists "applied_knowledge_set_live_rows_u" on "applied_knowledge_set";`);
    this.addSql(`drop trigger if exists "assistant_live_rows_i" on "assistant";`);
    this.addSql(`drop trigger if exists "assistant_live_rows_d" on "assistant";`);
    this.addSql(`drop trigger if exists "assistant_live_rows_u" on "assistant";`);
    this.addSql(`drop trigger if exists "channel_live_rows_i" on "channel";`);
    this.addSql(`drop trigger if exists "channel_live_rows_d" on "channel";`);
    this.addSql(`drop trigger if exists "channel_live_rows_u" on "channel";`);
    this.addSql(`drop trigger if exists "content_object_live_rows_i" on "content_object";`);
    this.addSql(`drop trigger if exists "content_object_live_rows_d" on "content_object";`);
    this.addSql(`drop trigger if exists "content_object_live_rows_u" on "content_object";`);
    this.addSql(`drop trigger if exists "data_definition_live_rows_i" on "data_definition";`);
    this.addSql(`drop trigger if exists "data_definition_live_rows_d" on "data_definition";`);
    this.addSql(`drop trigger if exists "data_definition_live_rows_u" on "data_definition";`);
    this.addSql(`drop trigger if exists "data_form_live_rows_i" on "data_form";`);
    this.addSql(`drop trigger if exists "data_form_live_rows_d" on "data_form";`);
    this.addSql(`drop trigger if exists "data_form_live_rows_u" on "data_form";`);
    this.addSql(`drop trigger if exists "data_object_live_rows_i" on "data_object";`);
    this.addSql(`drop trigger if exists "data_object_live_rows_d" on "data_object";`);
    this.addSql(`drop trigger if exists "data_object_live_rows_u" on "data_object";`);
    this.addSql(`drop trigger if exists "data_store_live_rows_i" on "data_store";`);
    this.addSql(`drop trigger if exists "data_store_live_rows_d" on "data_store";`);
    this.addSql(`drop trigger if exists "data_store_live_rows_u" on "data_store";`);
    this.addSql(`drop trigger if exists "document_family_live_rows_i" on "document_family";`);
    this.addSql(`drop trigger if exists "document_family_live_rows_d" on "document_family";`);
    this.addSql(`drop trigger if exists "document_family_live_rows_u" on "document_family";`);
    this.addSql(`drop trigger if exists "document_status_live_rows_i" on "document_status";`);
    this.addSql(`drop trigger if exists "document_status_live_rows_d" on "document_status";`);
    this.addSql(`drop trigger if exists "document_status_live_rows_u" on "document_status";`);
    this.addSql(`drop trigger if exists "document_store_live_rows_i" on "document_store";`);
    this.addSql(`drop trigger if exists "document_store_live_rows_d" on "document_store";`);
    this.addSql(`drop trigger if exists "document_store_live_rows_u" on "document_store";`);
    this.addSql(`drop trigger if exists "execution_live_rows_i" on "execution";`);
    this.addSql(`drop trigger if exists "execution_live_rows_d" on "execution";`);
    this.addSql(`drop trigger if exists "execution_live_rows_u" on "execution";`);
    this.addSql(`drop trigger if exists "knowledge_clause_live_rows_i" on "knowledge_clause";`);
    this.addSql(`drop trigger if exists "knowledge_clause_live_rows_d" on "knowledge_clause";`);
    this.addSql(`drop trigger if exists "knowledge_clause_live_rows_u" on "knowledge_clause";`);
    this.addSql(`drop trigger if exists "knowledge_feature_live_rows_i" on "knowledge_feature";`);
    this.addSql(`drop trigger if exists "knowledge_feature_live_rows_d" on "knowledge_feature";`);
    this.addSql(`drop trigger if exists "knowledge_feature_live_rows_u" on "knowledge_feature";`);
    this.addSql(`drop trigger if exists "knowledge_item_live_rows_i" on "knowledge_item";`);
    this.addSql(`drop trigger if exists "knowledge_item_live_rows_d" on "knowledge_item";`);
    this.addSql(`drop trigger if exists "knowledge_item_live_rows_u" on "knowledge_item";`);
    this.addSql(`drop trigger if exists "knowledge_set_live_rows_i" on "knowledge_set";`);
    this.addSql(`drop trigger if exists "knowledge_set_live_rows_d" on "knowledge_set";`);
    this.addSql(`drop trigger if exists "knowledge_set_live_rows_u" on "knowledge_set";`);
    this.addSql(`drop trigger if exists "knowledge_set_snapshot_live_rows_i" on "knowledge_set_snapshot";`);
    this.addSql(`drop trigger if exists "knowledge_set_snapshot_live_rows_d" on "knowledge_set_snapshot";`);
    this.addSql(`drop trigger if exists "knowledge_set_snapshot_live_rows_u" on "knowledge_set_snapshot";`);
    this.addSql(`drop trigger if exists "label_live_rows_i" on "label";`);
    this.addSql(`drop trigger if exists "label_live_rows_d" on "label";`);
    this.addSql(`drop trigger if exists "label_live_rows_u" on "label";`);
    this.addSql(`drop trigger if exists "linked_delta_live_rows_i" on "linked_delta";`);
    this.addSql(`drop trigger if exists "linked_delta_live_rows_d" on "linked_delta";`);
    this.addSql(`drop trigger if exists "linked_delta_live_rows_u" on "linked_delta";`);
    this.addSql(`drop trigger if exists "message_live_rows_i" on "message";`);
    this.addSql(`drop trigger if exists "message_live_rows_d" on "message";`);
    this.addSql(`drop trigger if exists "message_live_rows_u" on "message";`);
    this.addSql(`drop trigger if exists "organization_secret_live_rows_i" on "organization_secret";`);
    this.addSql(`drop trigger if exists "organization_secret_live_rows_d" on "organization_secret";`);
    this.addSql(`drop trigger if exists "organization_secret_live_rows_u" on "organization_secret";`);
    this.addSql(`drop trigger if exists "platform_event_live_rows_i" on "platform_event";`);
    this.addSql(`drop trigger if exists "platform_event_live_rows_d" on "platform_event";`);
    this.addSql(`drop trigger if exists "platform_event_live_rows_u" on "platform_event";`);
    this.addSql(`drop trigger if exists "project_live_rows_i" on "project";`);
    this.addSql(`drop trigger if exists "project_live_rows_d" on "project";`);
    this.addSql(`drop trigger if exists "project_live_rows_u" on "project";`);
    this.addSql(`drop trigger if exists "project_resource_live_rows_i" on "project_resource";`);
    this.addSql(`drop trigger if exists "project_resource_live_rows_d" on "project_resource";`);
    this.addSql(`drop trigger if exists "project_resource_live_rows_u" on "project_resource";`);
    this.addSql(`drop trigger if exists "project_status_live_rows_i" on "project_status";`);
    this.addSql(`drop trigger if exists "project_status_live_rows_d" on "project_status";`);
    this.addSql(`drop trigger if exists "project_status_live_rows_u" on "project_status";`);
    this.addSql(`drop trigger if exists "project_template_live_rows_i" on "project_template";`);
    this.addSql(`drop trigger if exists "project_template_live_rows_d" on "project_template";`);
    this.addSql(`drop trigger if exists "project_template_live_rows_u" on "project_template";`);
    this.addSql(`drop trigger if exists "prompt_live_rows_i" on "prompt";`);
    this.addSql(`drop trigger if exists "prompt_live_rows_d" on "prompt";`);
    this.addSql(`drop trigger if exists "prompt_live_rows_u" on "prompt";`);
    this.addSql(`drop trigger if exists "service_bridge_live_rows_i" on "service_bridge";`);
    this.addSql(`drop trigger if exists "service_bridge_live_rows_d" on "service_bridge";`);
    this.addSql(`drop trigger if exists "service_bridge_live_rows_u" on "service_bridge";`);
    this.addSql(`drop trigger if exists "session_live_rows_i" on "session";`);
    this.addSql(`drop trigger if exists "session_live_rows_d" on "session";`);
    this.addSql(`drop trigger if exists "session_live_rows_u" on "session";`);
    this.addSql(`drop trigger if exists "step_execution_live_rows_i" on "step_execution";`);
    this.addSql(`drop trigger if exists "step_execution_live_rows_d" on "step_execution";`);
    this.addSql(`drop trigger if exists "step_execution_live_rows_u" on "step_execution";`);
    this.addSql(`drop trigger if exists "task_live_rows_i" on "task";`);
    this.addSql(`drop trigger if exists "task_live_rows_d" on "task";`);
    this.addSql(`drop trigger if exists "task_live_rows_u" on "task";`);
    this.addSql(`drop trigger if exists "task_activity_live_rows_i" on "task_activity";`);
    this.addSql(`drop trigger if exists "task_activity_live_rows_d" on "task_activity";`);
    this.addSql(`drop trigger if exists "task_activity_live_rows_u" on "task_activity";`);
    this.addSql(`drop trigger if exists "task_document_family_live_rows_i" on "task_document_family";`);
    this.addSql(`drop trigger if exists "task_document_family_live_rows_d" on "task_document_family";`);
    this.addSql(`drop trigger if exists "task_document_family_live_rows_u" on "task_document_family";`);
    this.addSql(`drop trigger if exists "task_group_live_rows_i" on "task_group";`);
    this.addSql(`drop trigger if exists "task_group_live_rows_d" on "task_group";`);
    this.addSql(`drop trigger if exists "task_group_live_rows_u" on "task_group";`);
    this.addSql(`drop trigger if exists "task_group_history_entry_live_rows_i" on "task_group_history_entry";`);
    this.addSql(`drop trigger if exists "task_group_history_entry_live_rows_d" on "task_group_history_entry";`);
    this.addSql(`drop trigger if exists "task_group_history_entry_live_rows_u" on "task_group_history_entry";`);
    this.addSql(`drop trigger if exists "task_status_live_rows_i" on "task_status";`);
    this.addSql(`drop trigger if exists "task_status_live_rows_d" on "task_status";`);
    this.addSql(`drop trigger if exists "task_status_live_rows_u" on "task_status";`);
    this.addSql(`drop trigger if exists "task_template_live_rows_i" on "task_template";`);
    this.addSql(`drop trigger if exists "task_template_live_rows_d" on "task_template";`);
    this.addSql(`drop trigger if exists "task_template_live_rows_u" on "task_template";`);
    this.addSql(`drop trigger if exists "team_live_rows_i" on "team";`);
    this.addSql(`drop trigger if exists "team_live_rows_d" on "team";`);
    this.addSql(`drop trigger if exists "team_live_rows_u" on "team";`);
    this.addSql(`drop trigger if exists "team_member_live_rows_i" on "team_member";`);
    this.addSql(`drop trigger if exists "team_member_live_rows_d" on "team_member";`);
    this.addSql(`drop trigger if exists "team_member_live_rows_u" on "team_member";`);
    this.addSql(`drop trigger if exists "trigger_live_rows_i" on "trigger";`);
    this.addSql(`drop trigger if exists "trigger_live_rows_d" on "trigger";`);
    this.addSql(`drop trigger if exists "trigger_live_rows_u" on "trigger";`);
    this.addSql(`drop trigger if exists "webhook_delivery_live_rows_i" on "webhook_delivery";`);
    this.addSql(`drop trigger if exists "webhook_delivery_live_rows_d" on "webhook_delivery";`);
    this.addSql(`drop trigger if exists "webhook_delivery_live_rows_u" on "webhook_delivery";`);
    this.addSql(`drop trigger if exists "webhook_endpoint_live_rows_i" on "webhook_endpoint";`);
    this.addSql(`drop trigger if exists "webhook_endpoint_live_rows_d" on "webhook_endpoint";`);
    this.addSql(`drop trigger if exists "webhook_endpoint_live_rows_u" on "webhook_endpoint";`);
    this.addSql(`drop trigger if exists "workspace_live_rows_i" on "workspace";`);
    this.addSql(`drop trigger if exists "workspace_live_rows_d" on "workspace";`);
    this.addSql(`drop trigger if exists "workspace_live_rows_u" on "workspace";`);
    this.addSql(`drop function if exists "activity_live_rows"();`);
    this.addSql(`drop function if exists "activity_plan_live_rows"();`);
    this.addSql(`drop function if exists "agent_live_rows"();`);
    this.addSql(`drop function if exists "agent_runtime_live_rows"();`);
    this.addSql(`drop function if exists "agent_session_live_rows"();`);
    this.addSql(`drop function if exists "applied_knowledge_set_live_rows"();`);
    this.addSql(`drop function if exists "assistant_live_rows"();`);
    this.addSql(`drop function if exists "channel_live_rows"();`);
    this.addSql(`drop function if exists "content_object_live_rows"();`);
    this.addSql(`drop function if exists "data_definition_live_rows"();`);
    this.addSql(`drop function if exists "data_form_live_rows"();`);
    this.addSql(`drop function if exists "data_object_live_rows"();`);
    this.addSql(`drop function if exists "data_store_live_rows"();`);
    this.addSql(`drop function if exists "document_family_live_rows"();`);
    this.addSql(`drop function if exists "document_status_live_rows"();`);
    this.addSql(`drop function if exists "document_store_live_rows"();`);
    this.addSql(`drop function if exists "execution_live_rows"();`);
    this.addSql(`drop function if exists "knowledge_clause_live_rows"();`);
    this.addSql(`drop function if exists "knowledge_feature_live_rows"();`);
    this.addSql(`drop function if exists "knowledge_item_live_rows"();`);
    this.addSql(`drop function if exists "knowledge_set_live_rows"();`);
    this.addSql(`drop function if exists "knowledge_set_snapshot_live_rows"();`);
    this.addSql(`drop function if exists "label_live_rows"();`);
    this.addSql(`drop function if exists "linked_delta_live_rows"();`);
    this.addSql(`drop function if exists "message_live_rows"();`);
    this.addSql(`drop function if exists "organization_secret_live_rows"();`);
    this.addSql(`drop function if exists "platform_event_live_rows"();`);
    this.addSql(`drop function if exists "project_live_rows"();`);
    this.addSql(`drop function if exists "project_resource_live_rows"();`);
    this.addSql(`drop function if exists "project_status_live_rows"();`);
    this.addSql(`drop function if exists "project_template_live_rows"();`);
    this.addSql(`drop function if exists "prompt_live_rows"();`);
    this.addSql(`drop function if exists "service_bridge_live_rows"();`);
    this.addSql(`drop function if exists "session_live_rows"();`);
    this.addSql(`drop function if exists "step_execution_live_rows"();`);
    this.addSql(`drop function if exists "task_live_rows"();`);
    this.addSql(`drop function if exists "task_activity_live_rows"();`);
    this.addSql(`drop function if exists "task_document_family_live_rows"();`);
    this.addSql(`drop function if exists "task_group_live_rows"();`);
    this.addSql(`drop function if exists "task_group_history_entry_live_rows"();`);
    this.addSql(`drop function if exists "task_status_live_rows"();`);
    this.addSql(`drop function if exists "task_template_live_rows"();`);
    this.addSql(`drop function if exists "team_live_rows"();`);
    this.addSql(`drop function if exists "team_member_live_rows"();`);
    this.addSql(`drop function if exists "trigger_live_rows"();`);
    this.addSql(`drop function if exists "webhook_delivery_live_rows"();`);
    this.addSql(`drop function if exists "webhook_endpoint_live_rows"();`);
    this.addSql(`drop function if exists "workspace_live_rows"();`);
    this.addSql(`drop table if exists "live_row_count" cascade;`);
  }
}
