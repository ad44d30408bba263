import { Migration } from '@mikro-orm/migrations';

export class Migration20261126034954 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "agent_runtime" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "image" text not null, "options" jsonb not null, "organization_id" uuid not null, constraint "agent_runtime_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "agent_runtime" add constraint "agent_runtime_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "agent_runtime_created_on_id_index" on "agent_runtime" ("created_on", "id");`);
    this.addSql(`create index "agent_runtime_organization_id_created_on_id_index" on "agent_runtime" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "agent_runtime" add constraint "agent_runtime_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "document_status" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "status" text not null, "slug" text not null, "color" text not null, "icon" text not null, "status_type" text not null, "project_id" uuid not null, constraint "document_status_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "document_status" add constraint "document_status_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "document_status_created_on_id_index" on "document_status" ("created_on", "id");`);
    this.addSql(`create index "document_status_project_id_created_on_id_index" on "document_status" ("project_id", "created_on", "id");`);
    this.addSql(`alter table "document_status" add constraint "document_status_project_id_slug_unique" unique ("project_id", "slug");`);

    this.addSql(
      `create table "agent" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "agent_runtime_id" uuid null, "project_id" uuid null, "options" jsonb not null, "organization_id" uuid not null, constraint "agent_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "agent" add constraint "agent_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "agent_created_on_id_index" on "agent" ("created_on", "id");`);
    this.addSql(`create index "agent_agent_runtime_id_created_on_id_index" on "agent" ("agent_runtime_id", "created_on", "id");`);
    this.addSql(`create index "agent_project_id_created_on_id_index" on "agent" ("project_id", "created_on", "id");`);
    this.addSql(`create index "agent_organization_id_created_on_id_index" on "agent" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "agent" add constraint "agent_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "prompt" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "metadata" jsonb not null, "organization_id" uuid not null, constraint "prompt_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "prompt" add constraint "prompt_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "prompt_created_on_id_index" on "prompt" ("created_on", "id");`);
    this.addSql(`create index "prompt_organization_id_created_on_id_index" on "prompt" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "prompt" add constraint "prompt_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "session" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "organization_id" uuid not null, "name" text not null, "state" text check ("state" in ('ACTIVE', 'COMPLETED', 'FAILED', 'CANCELLED')) not null, "user_id" uuid null, "project_id" uuid null, "context" jsonb not null, constraint "session_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "session" add constraint "session_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "session_created_on_id_index" on "session" ("created_on", "id");`);
    this.addSql(`create index "session_organization_id_created_on_id_index" on "session" ("organization_id", "created_on", "id");`);
    this.addSql(`create index "session_user_id_created_on_id_index" on "session" ("user_id", "created_on", "id");`);
    this.addSql(`create index "session_project_id_created_on_id_index" on "session" ("project_id", "created_on", "id");`);

    this.addSql(
      `create table "agent_session" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "agent_id" uuid not null, "project_id" uuid null, "task_id" uuid null, "user_id" uuid null, "state" text check ("state" in ('ACTIVE', 'COMPLETED', 'FAILED', 'CANCELLED')) not null, "started_at" timestamptz(3) null, "ended_at" timestamptz(3) null, constraint "agent_session_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "agent_session" add constraint "agent_session_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "agent_session_created_on_id_index" on "agent_session" ("created_on", "id");`);
    this.addSql(`create index "agent_session_agent_id_created_on_id_index" on "agent_session" ("agent_id", "created_on", "id");`);
    this.addSql(`create index "agent_session_project_id_created_on_id_index" on "agent_session" ("project_id", "created_on", "id");`);
    this.addSql(`create index "agent_session_task_id_created_on_id_index" on "agent_session" ("task_id", "created_on", "id");`);
    this.addSql(`create index "agent_session_user_id_created_on_id_index" on "agent_session" ("user_id", "created_on", "id");`);

    this.addSql(
      `create table "task_template" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "project_id" uuid not null, "metadata" jsonb not null, constraint "task_template_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "task_template" add constraint "task_template_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "task_template_created_on_id_index" on "task_template" ("created_on", "id");`);
    this.addSql(`create index "task_template_project_id_created_on_id_index" on "task_template" ("project_id", "created_on", "id");`);
    this.addSql(`alter table "task_template" add constraint "task_template_project_id_slug_unique" unique ("project_id", "slug");`);

    this.addSql(
      `alter table "agent_runtime" add constraint "agent_runtime_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "document_status" add constraint "document_status_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "agent" add constraint "agent_agent_runtime_id_foreign" foreign key ("agent_runtime_id") references "agent_runtime" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "agent" add constraint "agent_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "agent" add constraint "agent_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "prompt" add constraint "prompt_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "session" add constraint "session_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "session" add constraint "session_user_id_foreign" foreign key ("user_id") references "platform_user" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "session" add constraint "session_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "agent_session" add constraint "agent_session_agent_id_foreign" foreign key ("agent_id") references "agent" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "agent_session" add constraint "agent_session_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "agent_session" add constraint "agent_session_task_id_foreign" foreign key ("task_id") references "task" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "agent_session" add constraint "agent_session_user_id_foreign" foreign key ("user_id") references "platform_user" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "task_template" add constraint "task_template_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "agent" drop constraint "agent_agent_runtime_id_foreign";`);

    this.addSql(`alter table "agent_session" drop constraint "agent_session_agent_id_foreign";`);

    this.addSql(`drop table if exists "agent_runtime" cascade;`);

    this.addSql(`drop table if exists "document_status" cascade;`);

    this.addSql(`drop table if exists "agent" cascade;`);

    this.addSql(`drop table if exists "prompt" cascade;`);

    this.addSql(`drop table if exists "session" cascade;`);

    this.addSql(`drop table if exists "agent_session" cascade;`);

    this.addSql(`drop table if exists "task_template" cascade;`);
  }
}
