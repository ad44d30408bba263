import { Migration } from '@mikro-orm/migrations';

export class Migration20261125225659 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "organization" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "name" text not null, "slug" text not null, "description" text not null, "search_text" text not null, "organization_status" text not null, "public_access" boolean not null, "auth_group_link" jsonb not null, "has_image" boolean not null, "default_to_private_templates" boolean not null, "memory" jsonb not null, "support_access" boolean not null, "support_access_expires_at" timestamptz(3) null, "billing_customer_id" text not null, "enterprise_organization" boolean null, "properties" jsonb null, "features" jsonb null, "archived" boolean null, constraint "organization_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "organization" add constraint "organization_uuid_unique" unique ("uuid");`);
    this.addSql(`alter table "organization" add constraint "organization_slug_unique" unique ("slug");`);

    this.addSql(
      `create table "label" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "name" text not null, "label" text not null, "color" text not null, "organization_id" uuid not null, constraint "label_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "label" add constraint "label_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "label_organization_id_index" on "label" ("organization_id");`);
    this.addSql(`alter table "label" add constraint "label_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(
      `create table "platform_user" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "email" text not null, "first_name" text not null, "last_name" text not null, "bio" text not null, "title" text not null, "business_group" text not null, "image" text not null, "user_hash" text not null, "user_type" text not null, "search_text" text not null, "groups_json" text not null, "roles_json" text not null, "active" boolean not null, "invited" boolean not null, "is_externally_managed" boolean not null, "show_developer_tools" boolean not null, "preferences" jsonb not null, "security" jsonb not null, "user_storage" jsonb not null, "auth_subject" text null, constraint "platform_user_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "platform_user" add constraint "platform_user_uuid_unique" unique ("uuid");`);
    this.addSql(`alter table "platform_user" add constraint "platform_user_email_unique" unique ("email");`);
    this.addSql(`alter table "platform_user" add constraint "platform_user_auth_subject_unique" unique ("auth_subject");`);

    this.addSql(
      `create table "access_token" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "name" text not null, "user_id" uuid not null, "expires_at" timestamptz(3) null, "last_used_at" timestamptz(3) null, "token_prefix" text not null, "token_hash" text not null, constraint "access_token_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "access_token" add constraint "access_token_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "access_token_user_id_index" on "access_token" ("user_id");`);
    this.addSql(`alter table "access_token" add constraint "access_token_token_hash_unique" unique ("token_hash");`);

    this.addSql(
      `create table "project_status" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "status" text not null, "color" text not null, "icon" text not null, "production" boolean not null, "organization_id" uuid not null, constraint "project_status_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "project_status" add constraint "project_status_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "project_status_organization_id_index" on "project_status" ("organization_id");`);

    this.addSql(
      `create table "project" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "notes" text not null, "color" text not null, "search_text" text not null, "organization_id" uuid not null, "owner_id" uuid null, "status_id" uuid null, "project_template_ref" text null, "template_article_id" text null, "status_type" text not null, "memory" jsonb not null, "data_flow" jsonb not null, "options" jsonb not null, constraint "project_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "project" add constraint "project_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "project_organization_id_index" on "project" ("organization_id");`);
    this.addSql(`create index "project_owner_id_index" on "project" ("owner_id");`);
    this.addSql(`create index "project_status_id_index" on "project" ("status_id");`);
    this.addSql(`alter table "project" add constraint "project_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "task" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "title" text not null, "description" text not null, "project_id" uuid not null, "status_slug" text null, "assignee_id" uuid null, "priority" int not null, "due_date" timestamptz(3) null, "completed_date" timestamptz(3) null, "task_group_id" uuid null, "parent_task_id" uuid null, "template_id" uuid null, "locked" boolean not null, "locked_at" timestamptz(3) null, "locked_by_id" text null, "created_by_activity_id" text null, "properties" jsonb not null, "document_family_ids" jsonb not null, constraint "task_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "task" add constraint "task_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "task_project_id_index" on "task" ("project_id");`);
    this.addSql(`create index "task_assignee_id_index" on "task" ("assignee_id");`);
    this.addSql(`create index "task_parent_task_id_index" on "task" ("parent_task_id");`);

    this.addSql(
      `create table "task_status" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "slug" text not null, "label" text not null, "color" text not null, "icon" text not null, "status_type" text check ("status_type" in ('OPEN', 'IN_PROGRESS', 'DONE', 'BLOCKED', 'PENDING')) not null, "sequence" int not null, "organization_id" uuid not null, constraint "task_status_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "task_status" add constraint "task_status_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "task_status_organization_id_index" on "task_status" ("organization_id");`);

    this.addSql(
      `create table "team" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "name" text not null, "description" text not null, "slug" text not null, "organization_id" uuid not null, "search_text" text not null, constraint "team_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "team" add constraint "team_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "team_organization_id_index" on "team" ("organization_id");`);
    this.addSql(`alter table "team" add constraint "team_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "team_member" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "team_id" uuid null, "user_id" uuid null, constraint "team_member_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "team_member" add constraint "team_member_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "team_member_team_id_index" on "team_member" ("team_id");`);
    this.addSql(`create index "team_member_user_id_index" on "team_member" ("user_id");`);
    this.addSql(`alter table "team_member" add constraint "team_member_team_id_user_id_unique" unique ("team_id", "user_id");`);

    this.addSql(
      `alter table "label" add constraint "label_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "access_token" add constraint "access_token_user_id_foreign" foreign key ("user_id") references "platform_user" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "project_status" add constraint "project_status_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "project" add constraint "project_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "project" add constraint "project_owner_id_foreign" foreign key ("owner_id") references "platform_user" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "project" add constraint "project_status_id_foreign" foreign key ("status_id") references "project_status" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "task" add constraint "task_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "task" add constraint "task_assignee_id_foreign" foreign key ("assignee_id") references "platform_user" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "task" add constraint "task_parent_task_id_foreign" foreign key ("parent_task_id") references "task" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "task_status" add constraint "task_status_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "team" add constraint "team_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "team_member" add constraint "team_member_team_id_foreign" foreign key ("team_id") references "team" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "team_member" add constraint "team_member_user_id_foreign" foreign key ("user_id") references "platform_user" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "label" drop constraint "label_organization_id_foreign";`);

    this.addSql(`alter table "project_status" drop constraint "project_status_organization_id_foreign";`);

    this.addSql(`alter table "project" drop constraint "project_organization_id_foreign";`);

    this.addSql(`alter table "task_status" drop constraint "task_status_organization_id_foreign";`);

    this.addSql(`alter table "team" drop constraint "team_organization_id_foreign";`);

    this.addSql(`alter table "access_token" drop constraint "access_token_user_id_foreign";`);

    this.addSql(`alter table "project" drop constraint "project_owner_id_foreign";`);

    this.addSql(`alter table "task" drop constraint "task_assignee_id_foreign";`);

    this.addSql(`alter table "team_member" drop constraint "team_member_user_id_foreign";`);

    this.addSql(`alter table "project" drop constraint "project_status_id_foreign";`);

    this.addSql(`alter table "task" drop constraint "task_project_id_foreign";`);

    this.addSql(`alter table "task" drop constraint "task_parent_task_id_foreign";`);

    this.addSql(`alter table "team_member" drop constraint "team_member_team_id_foreign";`);

    this.addSql(`drop table if exists "organization" cascade;`);

    this.addSql(`drop table if exists "label" cascade;`);

    this.addSql(`drop table if exists "platform_user" cascade;`);

    this.addSql(`drop table if exists "access_token" cascade;`);

    this.addSql(`drop table if exists "project_status" cascade;`);

    this.addSql(`drop table if exists "project" cascade;`);

    this.addSql(`drop table if exists "task" cascade;`);

    this.addSql(`drop table if exists "task_status" cascade;`);

    this.addSql(`drop table if exists "team" cascade;`);

    this.addSql(`drop table if exists "team_member" cascade;`);
  }
}
