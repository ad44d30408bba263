import { Migration } from '@mikro-orm/migrations';

export class Migration20261126041928 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "model_catalog_entry" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "name" text not null, "provider" text not null, "upstream_model" text not null, "supports_tools" boolean not null, "supports_vision" boolean not null, "supports_documents" boolean not null, "reasoning_output" boolean not null, "enabled" boolean not null, constraint "model_catalog_entry_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "model_catalog_entry" add constraint "model_catalog_entry_uuid_unique" unique ("uuid");`);
    this.addSql(`alter table "model_catalog_entry" add constraint "model_catalog_entry_name_unique" unique ("name");`);
    this.addSql(`create index "model_catalog_entry_created_on_id_index" on "model_catalog_entry" ("created_on", "id");`);

    this.addSql(
      `create table "activity_plan" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "steps" jsonb not null, "organization_id" uuid not null, constraint "activity_plan_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "activity_plan" add constraint "activity_plan_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "activity_plan_created_on_id_index" on "activity_plan" ("created_on", "id");`);
    this.addSql(`create index "activity_plan_organization_id_created_on_id_index" on "activity_plan" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "activity_plan" add constraint "activity_plan_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "activity" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "activity_plan_id" uuid null, "project_id" uuid not null, "title" text not null, "status" text not null, "inputs" jsonb not null, "steps" jsonb not null, "started_by_trigger_id" uuid null, "started_on" timestamptz(3) null, "completed_on" timestamptz(3) null, "error_details" jsonb null, constraint "activity_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "activity" add constraint "activity_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "activity_created_on_id_index" on "activity" ("created_on", "id");`);
    this.addSql(`create index "activity_activity_plan_id_created_on_id_index" on "activity" ("activity_plan_id", "created_on", "id");`);
    this.addSql(`create index "activity_project_id_created_on_id_index" on "activity" ("project_id", "created_on", "id");`);

    this.addSql(
      `create table "project_template" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "options" jsonb not null, "task_statuses" jsonb not null, "document_statuses" jsonb not null, "activity_plans" jsonb not null, "triggers" jsonb not null, "public_access" boolean not null, "organization_id" uuid not null, constraint "project_template_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "project_template" add constraint "project_template_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "project_template_created_on_id_index" on "project_template" ("created_on", "id");`);
    this.addSql(`create index "project_template_organization_id_created_on_id_index" on "project_template" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "project_template" add constraint "project_template_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "service_bridge" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "base_url" text not null, "agent_callable" boolean not null, "default_headers" jsonb not null, "endpoints" jsonb not null, "organization_id" uuid not null, constraint "service_bridge_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "service_bridge" add constraint "service_bridge_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "service_bridge_created_on_id_index" on "service_bridge" ("created_on", "id");`);
    this.addSql(`create index "service_bridge_organization_id_created_on_id_index" on "service_bridge" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "service_bridge" add constraint "service_bridge_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "task_activity" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "task_id" uuid not null, "type" text check ("type" in ('CREATED', 'UPDATED', 'STATUS_CHANGED', 'ASSIGNED', 'LOCKED', 'UNLOCKED', 'COMMENT')) not null, "text" text not null, "actor_id" text null, "actor_type" text check ("actor_type" in ('USER', 'API_KEY', 'SYSTEM', 'AGENT')) null, "details" jsonb not null, constraint "task_activity_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "task_activity" add constraint "task_activity_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "task_activity_created_on_id_index" on "task_activity" ("created_on", "id");`);
    this.addSql(`create index "task_activity_task_id_created_on_id_index" on "task_activity" ("task_id", "created_on", "id");`);

    this.addSql(
      `create table "task_group_history_entry" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "task_group_id" uuid not null, "project_id" uuid not null, "action" text check ("action" in ('CREATE', 'UPDATE', 'DELETE')) not null, "changes" jsonb not null, "actor_id" text null, "occurred_at" timestamptz(3) not null, constraint "task_group_history_entry_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "task_group_history_entry" add constraint "task_group_history_entry_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "task_group_history_entry_task_group_id_index" on "task_group_history_entry" ("task_group_id");`);
    this.addSql(`create index "task_group_history_entry_created_on_id_index" on "task_group_history_entry" ("created_on", "id");`);
    this.addSql(`create index "task_group_history_entry_project_id_created_on_id_index" on "task_group_history_entry" ("project_id", "created_on", "id");`);

    this.addSql(
      `create table "task_group" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "description" text not null, "project_id" uuid not null, "status_slug" text null, "priority" int not null, "team_id" uuid null, "assignee_id" uuid null, "metadata" jsonb not null, constraint "task_group_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "task_group" add constraint "task_group_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "task_group_created_on_id_index" on "task_group" ("created_on", "id");`);
    this.addSql(`create index "task_group_project_id_created_on_id_index" on "task_group" ("project_id", "created_on", "id");`);
    this.addSql(`create index "task_group_team_id_created_on_id_index" on "task_group" ("team_id", "created_on", "id");`);
    this.addSql(`create index "task_group_assignee_id_created_on_id_index" on "task_group" ("assignee_id", "created_on", "id");`);

    this.addSql(
      `create table "trigger" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "slug" text not null, "name" text not null, "project_id" uuid not null, "event_kind" text not null, "event_filter" text null, "input_mapping" jsonb null, "activity_plan_ref" text not null, "enabled" boolean not null, constraint "trigger_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "trigger" add constraint "trigger_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "trigger_created_on_id_index" on "trigger" ("created_on", "id");`);
    this.addSql(`create index "trigger_project_id_created_on_id_index" on "trigger" ("project_id", "created_on", "id");`);
    this.addSql(`alter table "trigger" add constraint "trigger_project_id_slug_unique" unique ("project_id", "slug");`);

    this.addSql(
      `alter table "activity_plan" add constraint "activity_plan_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "activity" add constraint "activity_activity_plan_id_foreign" foreign key ("activity_plan_id") references "activity_plan" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "activity" add constraint "activity_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "project_template" add constraint "project_template_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "service_bridge" add constraint "service_bridge_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "task_activity" add constraint "task_activity_task_id_foreign" foreign key ("task_id") references "task" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "task_group_history_entry" add constraint "task_group_history_entry_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "task_group" add constraint "task_group_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "task_group" add constraint "task_group_team_id_foreign" foreign key ("team_id") references "team" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "task_group" add constraint "task_group_assignee_id_foreign" foreign key ("assignee_id") references "platform_user" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "trigger" add constraint "trigger_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "activity" drop constraint "activity_activity_plan_id_foreign";`);

    this.addSql(`drop table if exists "model_catalog_entry" cascade;`);

    this.addSql(`drop table if exists "activity_plan" cascade;`);

    this.addSql(`drop table if exists "activity" cascade;`);

    this.addSql(`drop table if exists "project_template" cascade;`);

    this.addSql(`drop table if exists "service_bridge" cascade;`);

    this.addSql(`drop table if exists "task_activity" cascade;`);

    this.addSql(`drop table if exists "task_group_history_entry" cascade;`);

    this.addSql(`drop table if exists "task_group" cascade;`);

    this.addSql(`drop table if exists "trigger" cascade;`);
  }
}
