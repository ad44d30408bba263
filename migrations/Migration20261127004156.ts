import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook endpoints (an organization's signed receivers of platform events, their signing secrets
 * sealed) and the delivery log (one row per event and endpoint, unique together, so that a dispatch
 * run twice delivers once).
 */
export class Migration20261127004156 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "webhook_endpoint" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "organization_id" uuid not null, "project_id" uuid null, "url" text not null, "event_types" jsonb not null, "enabled" boolean not null, "description" text not null, "consecutive_failures" int not null, "disabled_at" timestamptz(3) null, "sealed_secret" text not null, "search_text" text not null, "parent_hidden" boolean not null default false, constraint "webhook_endpoint_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "webhook_endpoint" add constraint "webhook_endpoint_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "webhook_endpoint_created_on_id_index" on "webhook_endpoint" ("created_on", "id");`);
    this.addSql(`create index "webhook_endpoint_organization_id_created_on_id_index" on "webhook_endpoint" ("organization_id", "created_on", "id");`);
    this.addSql(`create index "webhook_endpoint_project_id_created_on_id_index" on "webhook_endpoint" ("project_id", "created_on", "id");`);
    this.addSql(
      `create index "webhook_endpoint_organization_id_parent_hidden_cre_b7849_index" on "webhook_endpoint" ("organization_id", "parent_hidden", "created_on", "id");`,
    );

    this.addSql(
      `create table "webhook_delivery" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "organization_id" uuid not null, "endpoint_id" uuid not null, "event_id" uuid null, "event_type" text not null, "status" text check ("status" in ('PENDING', 'SUCCEEDED', 'RETRYING', 'FAILED')) not null, "attempts" int not null, "last_status_code" int null, "last_error" text null, "last_duration_ms" int null, "next_attempt_at" timestamptz(3) null, "delivered_at" timestamptz(3) null, "round_attempts" int not null default 0, "payload" text not null default '{}', "parent_hidden" boolean not null default false, constraint "webhook_delivery_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "webhook_delivery_created_on_index" on "webhook_delivery" ("created_on");`);
    this.addSql(`create index "webhook_delivery_created_on_id_index" on "webhook_delivery" ("created_on", "id");`);
    this.addSql(`create index "webhook_delivery_organization_id_created_on_id_index" on "webhook_delivery" ("organization_id", "created_on", "id");`);
    this.addSql(`create index "webhook_delivery_endpoint_id_created_on_id_index" on "webhook_delivery" ("endpoint_id", "created_on", "id");`);
    this.addSql(`create index "webhook_delivery_event_id_created_on_id_index" on "webhook_delivery" ("event_id", "created_on", "id");`);
    this.addSql(
      `create index "webhook_delivery_organization_id_parent_hidden_cre_b404c_index" on "webhook_delivery" ("organization_id", "parent_hidden", "created_on", "id");`,
    );
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_event_id_unique" unique ("endpoint_id", "event_id");`);

    this.addSql(
      `alter table "webhook_endpoint" add constraint "webhook_endpoint_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_endpoint" add constraint "webhook_endpoint_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "webhook_delivery" add constraint "webhook_delivery_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_delivery" add constraint "webhook_delivery_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoint" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "webhook_delivery" add constraint "webhook_delivery_event_id_foreign" foreign key ("event_id") references "platform_event" ("id") on update cascade on delete cascade;`,
    );
    // Tenant keys and liveness flags of the tables below an organization, kept by the database.
    this.addSql(
      `update "webhook_delivery" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* WebhookDelivery */;`,
    );
    this.addSql(
      `update "webhook_endpoint" c set "parent_hidden" = p."archived" from "organization" p where p."id" = c."organization_id" /* WebhookEndpoint */;`,
    );
    this.addSql(`create or replace function "webhook_delivery_tenant_key"() returns trigger language plpgsql as $$
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
create or replace trigger "webhook_delivery_tenant_key" before insert or update of "organization_id" on "webhook_delivery" for each row execute function "webhook_delivery_tenant_key"();`);
    this.addSql(`create or replace function "webhook_endpoint_tenant_key"() returns trigger language plpgsql as $$
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
create or replace trigger "webhook_endpoint_tenant_key" before insert or update of "organization_id" on "webhook_endpoint" for each row execute function "webhook_endpoint_tenant_key"();`);
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
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "webhook_delivery" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  with h as (select n."id", n."archived" as hidden from new_rows n join old_rows o on o."id" = n."id" where n."archived" <> o."archived") update "webhook_endpoint" c set "parent_hidden" = h.hidden from h where c."organization_id" = h."id" and c."parent_hidden" <> h.hidden;
  return null;
end $$;
create or replace trigger "organization_hide_children" after update on "organization" referencing new table as new_rows old table as old_rows for each statement execute function "organization_hide_children"();`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "webhook_delivery" drop constraint "webhook_delivery_endpoint_id_foreign";`);

    this.addSql(`drop table if exists "webhook_endpoint" cascade;`);

    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
  }
}
