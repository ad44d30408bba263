import { Migration } from '@mikro-orm/migrations';

/**
 * Every row below an organization carries the organization's id (its own `organization_id`, or a new
 * `tenant_id`) and whether a parent on its tenancy path hides it (`parent_hidden`), so that tenancy and
 * liveness are conditions on one table. Filled for existing rows, then kept by triggers: a row copies
 * both from its parent when inserted, cannot move to another organization, and its flag follows its
 * parent's delete, archive and restore in the same transaction.
 */
export class Migration20261126172917 extends Migration {
  override async up(): Promise<void> {
    // The columns.
    this.addSql(`alter table "label" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "knowledge_feature" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "document_store" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "data_store" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "data_form" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "data_definition" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "agent_runtime" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "activity_plan" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "organization_secret" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "project_status" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "project" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "project_resource" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "platform_event" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "knowledge_set" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "knowledge_set_snapshot" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "knowledge_item" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "knowledge_clause" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "document_status" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "document_family" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "linked_delta" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "data_object" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "content_object" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "applied_knowledge_set" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "assistant" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "execution" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "agent" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "project_template" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "prompt" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "service_bridge" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "session" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "step_execution" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "task_group_history_entry" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "task_status" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "task_template" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "team" add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "task_group" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "task" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "task_document_family" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "task_activity" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "agent_session" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "team_member" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "trigger" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "activity" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "workspace" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "channel" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    this.addSql(`alter table "message" add column "tenant_id" uuid null, add column "parent_hidden" boolean not null default false;`);
    // Existing rows, parents before children; then the triggers that keep them.
    this.addSql(`update "activity_plan" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* ActivityPlan */;`);
    this.addSql(`update "agent" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* Agent */;`);
    this.addSql(`update "agent_runtime" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* AgentRuntime */;`);
    this.addSql(`update "data_definition" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* DataDefinition */;`);
    this.addSql(`update "data_form" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* DataForm */;`);
    this.addSql(`update "data_store" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* DataStore */;`);
    this.addSql(`update "document_store" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* DocumentStore */;`);
    this.addSql(`update "execution" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* Execution */;`);
    this.addSql(
      `update "knowledge_feature" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* KnowledgeFeature */;`,
    );
    this.addSql(`update "knowledge_set" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* KnowledgeSet */;`);
    this.addSql(`update "label" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* Label */;`);
    this.addSql(
      `update "organization_secret" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* OrganizationSecret */;`,
    );
    this.addSql(`update "platform_event" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* PlatformEvent */;`);
    this.addSql(`update "project" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* Project */;`);
    this.addSql(`update "project_status" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* ProjectStatus */;`);
    this.addSql(
      `update "project_template" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* ProjectTemplate */;`,
    );
    this.addSql(`update "prompt" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* Prompt */;`);
    this.addSql(`update "service_bridge" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* ServiceBridge */;`);
    this.addSql(`update "session" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* Session */;`);
    this.addSql(`update "task_status" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* TaskStatus */;`);
    this.addSql(`update "team" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* Team */;`);
    this.addSql(
      `update "activity" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* Activity */;`,
    );
    this.addSql(
      `update "agent_session" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "agent" p where p."id" = c."agent_id" /* AgentSession */;`,
    );
    this.addSql(
      `update "assistant" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* Assistant */;`,
    );
    this.addSql(
      `update "channel" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* Channel */;`,
    );
    this.addSql(
      `update "document_family" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "document_store" p where p."id" = c."document_store_id" /* DocumentFamily */;`,
    );
    this.addSql(
      `update "document_status" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* DocumentStatus */;`,
    );
    this.addSql(
      `update "knowledge_item" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "knowledge_set" p where p."id" = c."knowledge_set_id" /* KnowledgeItem */;`,
    );
    this.addSql(
      `update "knowledge_set_snapshot" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "knowledge_set" p where p."id" = c."knowledge_set_id" /* KnowledgeSetSnapshot */;`,
    );
    this.addSql(
      `update "project_resource" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* ProjectResource */;`,
    );
    this.addSql(
      `update "step_execution" c set "parent_hidden" = p."parent_hidden", "tenant_id" = p."organization_id" from "execution" p where p."id" = c."execution_id" /* StepExecution */;`,
    );
    this.addSql(
      `update "task" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* Task */;`,
    );
    this.addSql(
      `update "task_group" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* TaskGroup */;`,
    );
    this.addSql(
      `update "task_group_history_entry" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* TaskGroupHistoryEntry */;`,
    );
    this.addSql(
      `update "task_template" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* TaskTemplate */;`,
    );
    this.addSql(
      `update "team_member" c set "parent_hidden" = p."parent_hidden", "tenant_id" = p."organization_id" from "team" p where p."id" = c."team_id" /* TeamMember */;`,
    );
    this.addSql(
      `update "trigger" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* Trigger */;`,
    );
    this.addSql(
      `update "workspace" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."organization_id" from "project" p where p."id" = c."project_id" /* Workspace */;`,
    );
    this.addSql(
      `update "applied_knowledge_set" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."tenant_id" from "document_family" p where p."id" = c."document_family_id" /* AppliedKnowledgeSet */;`,
    );
    this.addSql(
      `update "content_object" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."tenant_id" from "document_family" p where p."id" = c."document_family_id" /* ContentObject */;`,
    );
    this.addSql(
      `update "data_object" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."tenant_id" from "document_family" p where p."id" = c."document_family_id" /* DataObject */;`,
    );
    this.addSql(
      `update "knowledge_clause" c set "parent_hidden" = p."parent_hidden", "tenant_id" = p."tenant_id" from "knowledge_item" p where p."id" = c."knowledge_item_id" /* KnowledgeClause */;`,
    );
    this.addSql(
      `update "linked_delta" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."tenant_id" from "document_family" p where p."id" = c."document_family_id" /* LinkedDelta */;`,
    );
    this.addSql(
      `update "message" c set "parent_hidden" = p."parent_hidden", "tenant_id" = p."tenant_id" from "channel" p where p."id" = c."channel_id" /* Message */;`,
    );
    this.addSql(
      `update "task_activity" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."tenant_id" from "task" p where p."id" = c."task_id" /* TaskActivity */;`,
    );
    this.addSql(
      `update "task_document_family" c set "parent_hidden" = (p."deleted" or p."parent_hidden"), "tenant_id" = p."tenant_id" from "task" p where p."id" = c."task_id" /* TaskDocumentFamily */;`,
    );
    this.addSql(`create or replace function "activity_plan_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "activity_plan_tenant_key" before insert or update of "organization_id" on "activity_plan" for each row execute function "activity_plan_tenant_key"();`);
    this.addSql(`create or replace function "agent_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "agent_tenant_key" before insert or update of "organization_id" on "agent" for each row execute function "agent_tenant_key"();`);
    this.addSql(`create or replace function "agent_runtime_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "agent_runtime_tenant_key" before insert or update of "organization_id" on "agent_runtime" for each row execute function "agent_runtime_tenant_key"();`);
    this.addSql(`create or replace function "data_definition_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "data_definition_tenant_key" before insert or update of "organization_id" on "data_definition" for each row execute function "data_definition_tenant_key"();`);
    this.addSql(`create or replace function "data_form_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "data_form_tenant_key" before insert or update of "organization_id" on "data_form" for each row execute function "data_form_tenant_key"();`);
    this.addSql(`create or replace function "data_store_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "data_store_tenant_key" before insert or update of "organization_id" on "data_store" for each row execute function "data_store_tenant_key"();`);
    this.addSql(`create or replace function "document_store_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "document_store_tenant_key" before insert or update of "organization_id" on "document_store" for each row execute function "document_store_tenant_key"();`);
    this.addSql(`create or replace function "execution_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "execution_tenant_key" before insert or update of "organization_id" on "execution" for each row execute function "execution_tenant_key"();`);
    this.addSql(`create or replace function "knowledge_feature_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "knowledge_feature_tenant_key" before insert or update of "organization_id" on "knowledge_feature" for each row execute function "knowledge_feature_tenant_key"();`);
    this.addSql(`create or replace function "knowledge_set_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "knowledge_set_tenant_key" before insert or update of "organization_id" on "knowledge_set" for each row execute function "knowledge_set_tenant_key"();`);
    this.addSql(`create or replace function "label_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "label_tenant_key" before insert or update of "organization_id" on "label" for each row execute function "label_tenant_key"();`);
    this.addSql(`create or replace function "organization_secret_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "organization_secret_tenant_key" before insert or update of "organization_id" on "organization_secret" for each row execute function "organization_secret_tenant_key"();`);
    this.addSql(`create or replace function "platform_event_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "platform_event_tenant_key" before insert or update of "organization_id" on "platform_event" for each row execute function "platform_event_tenant_key"();`);
    this.addSql(`create or replace function "project_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "project_tenant_key" before insert or update of "organization_id" on "project" for each row execute function "project_tenant_key"();`);
    this.addSql(`create or replace function "project_status_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "project_status_tenant_key" before insert or update of "organization_id" on "project_status" for each row execute function "project_status_tenant_key"();`);
    this.addSql(`create or replace function "project_template_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "project_template_tenant_key" before insert or update of "organization_id" on "project_template" for each row execute function "project_template_tenant_key"();`);
    this.addSql(`create or replace function "prompt_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "prompt_tenant_key" before insert or update of "organization_id" on "prompt" for each row execute function "prompt_tenant_key"();`);
    this.addSql(`create or replace function "service_bridge_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "service_bridge_tenant_key" before insert or update of "organization_id" on "service_bridge" for each row execute function "service_bridge_tenant_key"();`);
    this.addSql(`create or replace function "session_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "session_tenant_key" before insert or update of "organization_id" on "session" for each row execute function "session_tenant_key"();`);
    this.addSql(`create or replace function "task_status_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "task_status_tenant_key" before insert or update of "organization_id" on "task_status" for each row execute function "task_status_tenant_key"();`);
    this.addSql(`create or replace function "team_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."organization_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."id", p."archived" into parent_tenant, hidden from "organization" p where p."id" = new."organization_id" for share;
  end if;
  if tg_op = 'UPDATE' and new."organization_id" <> old."organization_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "team_tenant_key" before insert or update of "organization_id" on "team" for each row execute function "team_tenant_key"();`);
    this.addSql(`create or replace function "activity_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "activity_tenant_key" before insert or update of "project_id" on "activity" for each row execute function "activity_tenant_key"();`);
    this.addSql(`create or replace function "agent_session_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."agent_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "agent" p where p."id" = new."agent_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "agent_session_tenant_key" before insert or update of "agent_id" on "agent_session" for each row execute function "agent_session_tenant_key"();`);
    this.addSql(`create or replace function "assistant_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "assistant_tenant_key" before insert or update of "project_id" on "assistant" for each row execute function "assistant_tenant_key"();`);
    this.addSql(`create or replace function "channel_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "channel_tenant_key" before insert or update of "project_id" on "channel" for each row execute function "channel_tenant_key"();`);
    this.addSql(`create or replace function "document_family_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."document_store_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "document_store" p where p."id" = new."document_store_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "document_family_tenant_key" before insert or update of "document_store_id" on "document_family" for each row execute function "document_family_tenant_key"();`);
    this.addSql(`create or replace function "document_status_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "document_status_tenant_key" before insert or update of "project_id" on "document_status" for each row execute function "document_status_tenant_key"();`);
    this.addSql(`create or replace function "knowledge_item_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."knowledge_set_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "knowledge_set" p where p."id" = new."knowledge_set_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "knowledge_item_tenant_key" before insert or update of "knowledge_set_id" on "knowledge_item" for each row execute function "knowledge_item_tenant_key"();`);
    this.addSql(`create or replace function "knowledge_set_snapshot_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."knowledge_set_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "knowledge_set" p where p."id" = new."knowledge_set_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "knowledge_set_snapshot_tenant_key" before insert or update of "knowledge_set_id" on "knowledge_set_snapshot" for each row execute function "knowledge_set_snapshot_tenant_key"();`);
    this.addSql(`create or replace function "project_resource_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "project_resource_tenant_key" before insert or update of "project_id" on "project_resource" for each row execute function "project_resource_tenant_key"();`);
    this.addSql(`create or replace function "step_execution_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."execution_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", p."parent_hidden" into parent_tenant, hidden from "execution" p where p."id" = new."execution_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "step_execution_tenant_key" before insert or update of "execution_id" on "step_execution" for each row execute function "step_execution_tenant_key"();`);
    this.addSql(`create or replace function "task_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "task_tenant_key" before insert or update of "project_id" on "task" for each row execute function "task_tenant_key"();`);
    this.addSql(`create or replace function "task_group_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "task_group_tenant_key" before insert or update of "project_id" on "task_group" for each row execute function "task_group_tenant_key"();`);
    this.addSql(`create or replace function "task_group_history_entry_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "task_group_history_entry_tenant_key" before insert or update of "project_id" on "task_group_history_entry" for each row execute function "task_group_history_entry_tenant_key"();`);
    this.addSql(`create or replace function "task_template_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "task_template_tenant_key" before insert or update of "project_id" on "task_template" for each row execute function "task_template_tenant_key"();`);
    this.addSql(`create or replace function "team_member_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."team_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", p."parent_hidden" into parent_tenant, hidden from "team" p where p."id" = new."team_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "team_member_tenant_key" before insert or update of "team_id" on "team_member" for each row execute function "team_member_tenant_key"();`);
    this.addSql(`create or replace function "trigger_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "trigger_tenant_key" before insert or update of "project_id" on "trigger" for each row execute function "trigger_tenant_key"();`);
    this.addSql(`create or replace function "workspace_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."project_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."organization_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "project" p where p."id" = new."project_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "workspace_tenant_key" before insert or update of "project_id" on "workspace" for each row execute function "workspace_tenant_key"();`);
    this.addSql(`create or replace function "applied_knowledge_set_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."document_family_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "document_family" p where p."id" = new."document_family_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "applied_knowledge_set_tenant_key" before insert or update of "document_family_id" on "applied_knowledge_set" for each row execute function "applied_knowledge_set_tenant_key"();`);
    this.addSql(`create or replace function "content_object_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."document_family_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "document_family" p where p."id" = new."document_family_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "content_object_tenant_key" before insert or update of "document_family_id" on "content_object" for each row execute function "content_object_tenant_key"();`);
    this.addSql(`create or replace function "data_object_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."document_family_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "document_family" p where p."id" = new."document_family_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "data_object_tenant_key" before insert or update of "document_family_id" on "data_object" for each row execute function "data_object_tenant_key"();`);
    this.addSql(`create or replace function "knowledge_clause_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."knowledge_item_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", p."parent_hidden" into parent_tenant, hidden from "knowledge_item" p where p."id" = new."knowledge_item_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "knowledge_clause_tenant_key" before insert or update of "knowledge_item_id" on "knowledge_clause" for each row execute function "knowledge_clause_tenant_key"();`);
    this.addSql(`create or replace function "linked_delta_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."document_family_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "document_family" p where p."id" = new."document_family_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "linked_delta_tenant_key" before insert or update of "document_family_id" on "linked_delta" for each row execute function "linked_delta_tenant_key"();`);
    this.addSql(`create or replace function "message_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."channel_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", p."parent_hidden" into parent_tenant, hidden from "channel" p where p."id" = new."channel_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "message_tenant_key" before insert or update of "channel_id" on "message" for each row execute function "message_tenant_key"();`);
    this.addSql(`create or replace function "task_activity_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."task_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "task" p where p."id" = new."task_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "task_activity_tenant_key" before insert or update of "task_id" on "task_activity" for each row execute function "task_activity_tenant_key"();`);
    this.addSql(`create or replace function "task_document_family_tenant_key"() returns trigger language plpgsql as $$
declare parent_tenant uuid; hidden boolean;
begin
  if new."task_id" is null then
    parent_tenant := null; hidden := false;
  else
    select p."tenant_id", (p."deleted" or p."parent_hidden") into parent_tenant, hidden from "task" p where p."id" = new."task_id" for share;
  end if;
  if tg_op = 'UPDATE' and parent_tenant <> old."tenant_id" then raise exception 'a % row cannot move to another organization', tg_table_name using errcode = '23514'; end if;
  new."tenant_id" := parent_tenant;
  new."parent_hidden" := coalesce(hidden, false);
  return new;
end $$;
create or replace trigger "task_document_family_tenant_key" before insert or update of "task_id" on "task_document_family" for each row execute function "task_document_family_tenant_key"();`);
    this.addSql(`create or replace function "organization_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") then return null; end if;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "activity_plan" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "agent" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "agent_runtime" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "data_definition" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "data_form" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "data_store" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "document_store" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "execution" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "knowledge_feature" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "knowledge_set" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "label" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "organization_secret" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "platform_event" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "project" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "project_status" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "project_template" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "prompt" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "service_bridge" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "session" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "task_status" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "team" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "organization_hide_children" after update on "organization" referencing new table as new_rows old table as old_rows for each statement execute function "organization_hide_children"();`);
    this.addSql(`create or replace function "project_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) then return null; end if;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "activity" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "assistant" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "channel" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "document_status" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "project_resource" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "task" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "task_group" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "task_group_history_entry" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "task_template" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "trigger" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "workspace" c set "parent_hidden" = h.hidden from h where c."project_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "project_hide_children" after update on "project" referencing new table as new_rows old table as old_rows for each statement execute function "project_hide_children"();`);
    this.addSql(`create or replace function "agent_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) then return null; end if;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "agent_session" c set "parent_hidden" = h.hidden from h where c."agent_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "agent_hide_children" after update on "agent" referencing new table as new_rows old table as old_rows for each statement execute function "agent_hide_children"();`);
    this.addSql(`create or replace function "document_store_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) then return null; end if;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "document_family" c set "parent_hidden" = h.hidden from h where c."document_store_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "document_store_hide_children" after update on "document_store" referencing new table as new_rows old table as old_rows for each statement execute function "document_store_hide_children"();`);
    this.addSql(`create or replace function "knowledge_set_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) then return null; end if;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "knowledge_item" c set "parent_hidden" = h.hidden from h where c."knowledge_set_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "knowledge_set_snapshot" c set "parent_hidden" = h.hidden from h where c."knowledge_set_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "knowledge_set_hide_children" after update on "knowledge_set" referencing new table as new_rows old table as old_rows for each statement execute function "knowledge_set_hide_children"();`);
    this.addSql(`create or replace function "execution_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") then return null; end if;
  with h as (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") update "step_execution" c set "parent_hidden" = h.hidden from h where c."execution_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "execution_hide_children" after update on "execution" referencing new table as new_rows old table as old_rows for each statement execute function "execution_hide_children"();`);
    this.addSql(`create or replace function "team_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") then return null; end if;
  with h as (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") update "team_member" c set "parent_hidden" = h.hidden from h where c."team_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "team_hide_children" after update on "team" referencing new table as new_rows old table as old_rows for each statement execute function "team_hide_children"();`);
    this.addSql(`create or replace function "document_family_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) then return null; end if;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "applied_knowledge_set" c set "parent_hidden" = h.hidden from h where c."document_family_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "content_object" c set "parent_hidden" = h.hidden from h where c."document_family_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "data_object" c set "parent_hidden" = h.hidden from h where c."document_family_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "linked_delta" c set "parent_hidden" = h.hidden from h where c."document_family_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "document_family_hide_children" after update on "document_family" referencing new table as new_rows old table as old_rows for each statement execute function "document_family_hide_children"();`);
    this.addSql(`create or replace function "knowledge_item_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") then return null; end if;
  with h as (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") update "knowledge_clause" c set "parent_hidden" = h.hidden from h where c."knowledge_item_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "knowledge_item_hide_children" after update on "knowledge_item" referencing new table as new_rows old table as old_rows for each statement execute function "knowledge_item_hide_children"();`);
    this.addSql(`create or replace function "channel_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") then return null; end if;
  with h as (select n."id", n."parent_hidden" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."parent_hidden" <> o."parent_hidden") update "message" c set "parent_hidden" = h.hidden from h where c."channel_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "channel_hide_children" after update on "channel" referencing new table as new_rows old table as old_rows for each statement execute function "channel_hide_children"();`);
    this.addSql(`create or replace function "task_hide_children"() returns trigger language plpgsql as $$
begin
  if not exists (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) then return null; end if;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "task_activity" c set "parent_hidden" = h.hidden from h where c."task_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", (n."deleted" or n."parent_hidden") as hidden from new_rows n join old_rows o on o."id" = n."id" where (n."deleted" or n."parent_hidden") <> (o."deleted" or o."parent_hidden")) update "task_document_family" c set "parent_hidden" = h.hidden from h where c."task_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "task_hide_children" after update on "task" referencing new table as new_rows old table as old_rows for each statement execute function "task_hide_children"();`);
    // A tenant's live rows in the default order.
    this.addSql(`create index "label_organization_id_parent_hidden_created_on_id_index" on "label" ("organization_id", "parent_hidden", "created_on", "id");`);

    this.addSql(
      `create index "knowledge_feature_organization_id_parent_hidden_cr_1a2a1_index" on "knowledge_feature" ("organization_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "document_store_organization_id_deleted_parent_hidd_6a042_index" on "document_store" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "data_store_organization_id_deleted_parent_hidden_c_85c05_index" on "data_store" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "data_form_organization_id_deleted_parent_hidden_cr_b5f56_index" on "data_form" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "data_definition_organization_id_deleted_parent_hid_2a269_index" on "data_definition" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "agent_runtime_organization_id_deleted_parent_hidde_a4e64_index" on "agent_runtime" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "activity_plan_organization_id_deleted_parent_hidde_96207_index" on "activity_plan" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "organization_secret_organization_id_parent_hidden__079ea_index" on "organization_secret" ("organization_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "project_status_organization_id_parent_hidden_creat_3090b_index" on "project_status" ("organization_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "project_organization_id_deleted_parent_hidden_crea_da79c_index" on "project" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "project_resource_tenant_id_parent_hidden_created_on_id_index" on "project_resource" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "platform_event_organization_id_parent_hidden_creat_03b5b_index" on "platform_event" ("organization_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "knowledge_set_organization_id_deleted_parent_hidde_1784b_index" on "knowledge_set" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "knowledge_set_snapshot_tenant_id_parent_hidden_cre_42a97_index" on "knowledge_set_snapshot" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "knowledge_item_tenant_id_parent_hidden_created_on_id_index" on "knowledge_item" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "knowledge_clause_tenant_id_parent_hidden_created_on_id_index" on "knowledge_clause" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "document_status_tenant_id_parent_hidden_created_on_id_index" on "document_status" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "document_family_tenant_id_deleted_parent_hidden_cr_82a5c_index" on "document_family" ("tenant_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "linked_delta_tenant_id_parent_hidden_created_on_id_index" on "linked_delta" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(`create index "data_object_tenant_id_parent_hidden_created_on_id_index" on "data_object" ("tenant_id", "parent_hidden", "created_on", "id");`);

    this.addSql(
      `create index "content_object_tenant_id_deleted_parent_hidden_cre_185b4_index" on "content_object" ("tenant_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "applied_knowledge_set_tenant_id_parent_hidden_crea_957fd_index" on "applied_knowledge_set" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "assistant_tenant_id_deleted_parent_hidden_created_on_id_index" on "assistant" ("tenant_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "execution_organization_id_parent_hidden_created_on_id_index" on "execution" ("organization_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "agent_organization_id_deleted_parent_hidden_created_on_id_index" on "agent" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "project_template_organization_id_deleted_parent_hi_ff19a_index" on "project_template" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "prompt_organization_id_deleted_parent_hidden_creat_eefdc_index" on "prompt" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "service_bridge_organization_id_deleted_parent_hidd_01b78_index" on "service_bridge" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "session_organization_id_parent_hidden_created_on_id_index" on "session" ("organization_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "step_execution_tenant_id_parent_hidden_created_on_id_index" on "step_execution" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "task_group_history_entry_tenant_id_parent_hidden_c_1b5d9_index" on "task_group_history_entry" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "task_status_organization_id_deleted_parent_hidden__b2d1c_index" on "task_status" ("organization_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "task_template_tenant_id_deleted_parent_hidden_crea_4c45a_index" on "task_template" ("tenant_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(`create index "team_organization_id_parent_hidden_created_on_id_index" on "team" ("organization_id", "parent_hidden", "created_on", "id");`);

    this.addSql(
      `create index "task_group_tenant_id_deleted_parent_hidden_created_on_id_index" on "task_group" ("tenant_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "task_tenant_id_deleted_parent_hidden_created_on_id_index" on "task" ("tenant_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "task_document_family_tenant_id_parent_hidden_creat_efe87_index" on "task_document_family" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "task_activity_tenant_id_parent_hidden_created_on_id_index" on "task_activity" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create index "agent_session_tenant_id_parent_hidden_created_on_id_index" on "agent_session" ("tenant_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(`create index "team_member_tenant_id_parent_hidden_created_on_id_index" on "team_member" ("tenant_id", "parent_hidden", "created_on", "id");`);

    this.addSql(`create index "trigger_tenant_id_parent_hidden_created_on_id_index" on "trigger" ("tenant_id", "parent_hidden", "created_on", "id");`);

    this.addSql(`create index "activity_tenant_id_parent_hidden_created_on_id_index" on "activity" ("tenant_id", "parent_hidden", "created_on", "id");`);

    this.addSql(
      `create index "workspace_tenant_id_deleted_parent_hidden_created_on_id_index" on "workspace" ("tenant_id", "deleted", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(`create index "channel_tenant_id_parent_hidden_created_on_id_index" on "channel" ("tenant_id", "parent_hidden", "created_on", "id");`);

    this.addSql(`create index "message_tenant_id_parent_hidden_created_on_id_index" on "message" ("tenant_id", "parent_hidden", "created_on", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists "activity_plan_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "activity_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "agent_hide_children"() cascade;`);
    this.addSql(`drop function if exists "agent_runtime_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "agent_session_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "agent_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "applied_knowledge_set_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "assistant_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "channel_hide_children"() cascade;`);
    this.addSql(`drop function if exists "channel_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "content_object_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "data_definition_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "data_form_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "data_object_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "data_store_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "document_family_hide_children"() cascade;`);
    this.addSql(`drop function if exists "document_family_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "document_status_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "document_store_hide_children"() cascade;`);
    this.addSql(`drop function if exists "document_store_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "execution_hide_children"() cascade;`);
    this.addSql(`drop function if exists "execution_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "knowledge_clause_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "knowledge_feature_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "knowledge_item_hide_children"() cascade;`);
    this.addSql(`drop function if exists "knowledge_item_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "knowledge_set_hide_children"() cascade;`);
    this.addSql(`drop function if exists "knowledge_set_snapshot_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "knowledge_set_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "label_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "linked_delta_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "message_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "organization_hide_children"() cascade;`);
    this.addSql(`drop function if exists "organization_secret_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "platform_event_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "project_hide_children"() cascade;`);
    this.addSql(`drop function if exists "project_resource_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "project_status_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "project_template_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "project_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "prompt_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "service_bridge_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "session_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "step_execution_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "task_activity_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "task_document_family_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "task_group_history_entry_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "task_group_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "task_hide_children"() cascade;`);
    this.addSql(`drop function if exists "task_status_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "task_template_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "task_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "team_hide_children"() cascade;`);
    this.addSql(`drop function if exists "team_member_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "team_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "trigger_tenant_key"() cascade;`);
    this.addSql(`drop function if exists "workspace_tenant_key"() cascade;`);
    this.addSql(`drop index "activity_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "activity" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "activity_plan_organization_id_deleted_parent_hidde_96207_index";`);
    this.addSql(`alter table "activity_plan" drop column "parent_hidden";`);

    this.addSql(`drop index "agent_organization_id_deleted_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "agent" drop column "parent_hidden";`);

    this.addSql(`drop index "agent_runtime_organization_id_deleted_parent_hidde_a4e64_index";`);
    this.addSql(`alter table "agent_runtime" drop column "parent_hidden";`);

    this.addSql(`drop index "agent_session_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "agent_session" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "applied_knowledge_set_tenant_id_parent_hidden_crea_957fd_index";`);
    this.addSql(`alter table "applied_knowledge_set" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "assistant_tenant_id_deleted_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "assistant" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "channel_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "channel" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "content_object_tenant_id_deleted_parent_hidden_cre_185b4_index";`);
    this.addSql(`alter table "content_object" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "data_definition_organization_id_deleted_parent_hid_2a269_index";`);
    this.addSql(`alter table "data_definition" drop column "parent_hidden";`);

    this.addSql(`drop index "data_form_organization_id_deleted_parent_hidden_cr_b5f56_index";`);
    this.addSql(`alter table "data_form" drop column "parent_hidden";`);

    this.addSql(`drop index "data_object_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "data_object" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "data_store_organization_id_deleted_parent_hidden_c_85c05_index";`);
    this.addSql(`alter table "data_store" drop column "parent_hidden";`);

    this.addSql(`drop index "document_family_tenant_id_deleted_parent_hidden_cr_82a5c_index";`);
    this.addSql(`alter table "document_family" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "document_status_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "document_status" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "document_store_organization_id_deleted_parent_hidd_6a042_index";`);
    this.addSql(`alter table "document_store" drop column "parent_hidden";`);

    this.addSql(`drop index "execution_organization_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "execution" drop column "parent_hidden";`);

    this.addSql(`drop index "knowledge_clause_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "knowledge_clause" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "knowledge_feature_organization_id_parent_hidden_cr_1a2a1_index";`);
    this.addSql(`alter table "knowledge_feature" drop column "parent_hidden";`);

    this.addSql(`drop index "knowledge_item_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "knowledge_item" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "knowledge_set_organization_id_deleted_parent_hidde_1784b_index";`);
    this.addSql(`alter table "knowledge_set" drop column "parent_hidden";`);

    this.addSql(`drop index "knowledge_set_snapshot_tenant_id_parent_hidden_cre_42a97_index";`);
    this.addSql(`alter table "knowledge_set_snapshot" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "label_organization_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "label" drop column "parent_hidden";`);

    this.addSql(`drop index "linked_delta_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "linked_delta" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "message_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "message" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "organization_secret_organization_id_parent_hidden__079ea_index";`);
    this.addSql(`alter table "organization_secret" drop column "parent_hidden";`);

    this.addSql(`drop index "platform_event_organization_id_parent_hidden_creat_03b5b_index";`);
    this.addSql(`alter table "platform_event" drop column "parent_hidden";`);

    this.addSql(`drop index "project_organization_id_deleted_parent_hidden_crea_da79c_index";`);
    this.addSql(`alter table "project" drop column "parent_hidden";`);

    this.addSql(`drop index "project_resource_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "project_resource" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "project_status_organization_id_parent_hidden_creat_3090b_index";`);
    this.addSql(`alter table "project_status" drop column "parent_hidden";`);

    this.addSql(`drop index "project_template_organization_id_deleted_parent_hi_ff19a_index";`);
    this.addSql(`alter table "project_template" drop column "parent_hidden";`);

    this.addSql(`drop index "prompt_organization_id_deleted_parent_hidden_creat_eefdc_index";`);
    this.addSql(`alter table "prompt" drop column "parent_hidden";`);

    this.addSql(`drop index "service_bridge_organization_id_deleted_parent_hidd_01b78_index";`);
    this.addSql(`alter table "service_bridge" drop column "parent_hidden";`);

    this.addSql(`drop index "session_organization_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "session" drop column "parent_hidden";`);

    this.addSql(`drop index "step_execution_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "step_execution" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "task_tenant_id_deleted_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "task" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "task_activity_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "task_activity" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "task_document_family_tenant_id_parent_hidden_creat_efe87_index";`);
    this.addSql(`alter table "task_document_family" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "task_group_tenant_id_deleted_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "task_group" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "task_group_history_entry_tenant_id_parent_hidden_c_1b5d9_index";`);
    this.addSql(`alter table "task_group_history_entry" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "task_status_organization_id_deleted_parent_hidden__b2d1c_index";`);
    this.addSql(`alter table "task_status" drop column "parent_hidden";`);

    this.addSql(`drop index "task_template_tenant_id_deleted_parent_hidden_crea_4c45a_index";`);
    this.addSql(`alter table "task_template" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "team_organization_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "team" drop column "parent_hidden";`);

    this.addSql(`drop index "team_member_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "team_member" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "trigger_tenant_id_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "trigger" drop column "tenant_id", drop column "parent_hidden";`);

    this.addSql(`drop index "workspace_tenant_id_deleted_parent_hidden_created_on_id_index";`);
    this.addSql(`alter table "workspace" drop column "tenant_id", drop column "parent_hidden";`);
  }
}
