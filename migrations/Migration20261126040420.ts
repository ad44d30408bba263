import { Migration } from '@mikro-orm/migrations';

export class Migration20261126040420 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "data_form" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "type" text not null, "ref" text not null, "uri" text not null, "org_slug" text not null, "organization_id" uuid not null, "extension_pack_ref" text not null, "yaml_source" text not null, "deprecated" boolean not null, "public_access" boolean not null, "template" boolean not null, "metadata" jsonb not null, constraint "data_form_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "data_form" add constraint "data_form_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "data_form_created_on_id_index" on "data_form" ("created_on", "id");`);
    this.addSql(`create index "data_form_organization_id_created_on_id_index" on "data_form" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "data_form" add constraint "data_form_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "assistant" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "color" text not null, "assistant_role" text not null, "subscription" text not null, "project_id" uuid not null, "active" boolean not null, "chat_enabled" boolean not null, "run_on_existing_content" boolean not null, "show_in_training" boolean not null, "priority_hint" int null, "test_options" jsonb not null, "options" jsonb not null, "validation_errors" jsonb not null, constraint "assistant_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "assistant" add constraint "assistant_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "assistant_created_on_id_index" on "assistant" ("created_on", "id");`);
    this.addSql(`create index "assistant_project_id_created_on_id_index" on "assistant" ("project_id", "created_on", "id");`);
    this.addSql(`alter table "assistant" add constraint "assistant_project_id_slug_unique" unique ("project_id", "slug");`);

    this.addSql(
      `create table "execution" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "organization_id" uuid not null, "status" text check ("status" in ('PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED')) not null, "assistant_id" uuid null, "document_family_id" uuid null, "parent_execution_id" uuid null, "session_id" text null, "document_family_path" text null, "description" text not null, "idempotency_key" text null, "priority" int not null, "processing_time" int not null, "start_date" timestamptz(3) null, "end_date" timestamptz(3) null, "context" jsonb not null, "exception_details" jsonb not null, "status_details" jsonb not null, "targets" jsonb not null, "pipeline" jsonb not null, constraint "execution_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "execution" add constraint "execution_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "execution_created_on_id_index" on "execution" ("created_on", "id");`);
    this.addSql(`create index "execution_organization_id_created_on_id_index" on "execution" ("organization_id", "created_on", "id");`);
    this.addSql(`create index "execution_assistant_id_created_on_id_index" on "execution" ("assistant_id", "created_on", "id");`);
    this.addSql(`create index "execution_document_family_id_created_on_id_index" on "execution" ("document_family_id", "created_on", "id");`);
    this.addSql(`create index "execution_parent_execution_id_created_on_id_index" on "execution" ("parent_execution_id", "created_on", "id");`);

    this.addSql(
      `create table "step_execution" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "execution_id" uuid not null, "ref" text not null, "name" text not null, "input_id" text null, "output_id" text null, "output_ids" jsonb not null, "start" timestamptz(3) null, "end" timestamptz(3) null, "status" text not null, "status_message" text null, "step_type" text not null, "processing_time" int not null, "progress" int not null, "progress_max" int not null, "conditional" text null, "context" jsonb not null, "options" jsonb not null, "option_types" jsonb not null, "execution_policy" jsonb not null, "extension_pack_ref" text null, "exception_details" jsonb not null, constraint "step_execution_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "step_execution" add constraint "step_execution_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "step_execution_created_on_id_index" on "step_execution" ("created_on", "id");`);
    this.addSql(`create index "step_execution_execution_id_created_on_id_index" on "step_execution" ("execution_id", "created_on", "id");`);

    this.addSql(
      `alter table "data_form" add constraint "data_form_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "assistant" add constraint "assistant_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "execution" add constraint "execution_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "execution" add constraint "execution_assistant_id_foreign" foreign key ("assistant_id") references "assistant" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "execution" add constraint "execution_document_family_id_foreign" foreign key ("document_family_id") references "document_family" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "execution" add constraint "execution_parent_execution_id_foreign" foreign key ("parent_execution_id") references "execution" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "step_execution" add constraint "step_execution_execution_id_foreign" foreign key ("execution_id") references "execution" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "execution" drop constraint "execution_assistant_id_foreign";`);

    this.addSql(`alter table "execution" drop constraint "execution_parent_execution_id_foreign";`);

    this.addSql(`alter table "step_execution" drop constraint "step_execution_execution_id_foreign";`);

    this.addSql(`drop table if exists "data_form" cascade;`);

    this.addSql(`drop table if exists "assistant" cascade;`);

    this.addSql(`drop table if exists "execution" cascade;`);

    this.addSql(`drop table if exists "step_execution" cascade;`);
  }
}
