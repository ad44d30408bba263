import { Migration } from '@mikro-orm/migrations';

export class Migration20261126034300 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "knowledge_feature" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "organization_id" uuid not null, "feature_type_ref" text not null, "value" text not null, "properties" jsonb not null, constraint "knowledge_feature_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "knowledge_feature" add constraint "knowledge_feature_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "knowledge_feature_created_on_id_index" on "knowledge_feature" ("created_on", "id");`);
    this.addSql(`create index "knowledge_feature_organization_id_created_on_id_index" on "knowledge_feature" ("organization_id", "created_on", "id");`);

    this.addSql(
      `create table "data_definition" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "taxonomy_type" text not null, "enabled" boolean not null, "taxons" jsonb not null, "organization_id" uuid not null, constraint "data_definition_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "data_definition" add constraint "data_definition_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "data_definition_created_on_id_index" on "data_definition" ("created_on", "id");`);
    this.addSql(`create index "data_definition_organization_id_created_on_id_index" on "data_definition" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "data_definition" add constraint "data_definition_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "project_resource" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "project_id" uuid not null, "resource_type" text not null, "resource_id" text not null, "resource_uri" text not null, constraint "project_resource_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "project_resource" add constraint "project_resource_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "project_resource_created_on_id_index" on "project_resource" ("created_on", "id");`);
    this.addSql(`create index "project_resource_project_id_created_on_id_index" on "project_resource" ("project_id", "created_on", "id");`);
    this.addSql(
      `alter table "project_resource" add constraint "project_resource_project_id_resource_type_resource_id_unique" unique ("project_id", "resource_type", "resource_id");`,
    );

    this.addSql(
      `create table "knowledge_set" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "set_type" text not null, "status" text not null, "active" boolean not null, "organization_id" uuid not null, "project_id" uuid null, constraint "knowledge_set_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "knowledge_set" add constraint "knowledge_set_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "knowledge_set_created_on_id_index" on "knowledge_set" ("created_on", "id");`);
    this.addSql(`create index "knowledge_set_organization_id_created_on_id_index" on "knowledge_set" ("organization_id", "created_on", "id");`);
    this.addSql(`create index "knowledge_set_project_id_created_on_id_index" on "knowledge_set" ("project_id", "created_on", "id");`);

    this.addSql(
      `create table "knowledge_set_snapshot" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "knowledge_set_id" uuid not null, "change_reason" text not null, "content_hash" text not null, "created_by" text not null, "version" int not null, "created_at" timestamptz(3) null, "validated_at" timestamptz(3) null, "data" jsonb not null, "build_context" jsonb not null, "reproduction_score" double precision null, constraint "knowledge_set_snapshot_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "knowledge_set_snapshot" add constraint "knowledge_set_snapshot_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "knowledge_set_snapshot_created_on_id_index" on "knowledge_set_snapshot" ("created_on", "id");`);
    this.addSql(
      `create index "knowledge_set_snapshot_knowledge_set_id_created_on_id_index" on "knowledge_set_snapshot" ("knowledge_set_id", "created_on", "id");`,
    );

    this.addSql(
      `create table "knowledge_item" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "knowledge_set_id" uuid not null, "title" text not null, "description" text not null, "item_type_ref" text not null, "properties" jsonb not null, constraint "knowledge_item_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "knowledge_item" add constraint "knowledge_item_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "knowledge_item_created_on_id_index" on "knowledge_item" ("created_on", "id");`);
    this.addSql(`create index "knowledge_item_knowledge_set_id_created_on_id_index" on "knowledge_item" ("knowledge_set_id", "created_on", "id");`);

    this.addSql(
      `create table "knowledge_clause" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "knowledge_item_id" uuid not null, "text" text not null, "sequence" int not null, "properties" jsonb not null, constraint "knowledge_clause_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "knowledge_clause" add constraint "knowledge_clause_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "knowledge_clause_created_on_id_index" on "knowledge_clause" ("created_on", "id");`);
    this.addSql(`create index "knowledge_clause_knowledge_item_id_created_on_id_index" on "knowledge_clause" ("knowledge_item_id", "created_on", "id");`);

    this.addSql(
      `create table "workspace" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "description" text not null, "project_id" uuid not null, "storage" jsonb null, constraint "workspace_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "workspace" add constraint "workspace_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "workspace_created_on_id_index" on "workspace" ("created_on", "id");`);
    this.addSql(`create index "workspace_project_id_created_on_id_index" on "workspace" ("project_id", "created_on", "id");`);

    this.addSql(
      `alter table "knowledge_feature" add constraint "knowledge_feature_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "data_definition" add constraint "data_definition_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "project_resource" add constraint "project_resource_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "knowledge_set" add constraint "knowledge_set_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "knowledge_set" add constraint "knowledge_set_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "knowledge_set_snapshot" add constraint "knowledge_set_snapshot_knowledge_set_id_foreign" foreign key ("knowledge_set_id") references "knowledge_set" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "knowledge_item" add constraint "knowledge_item_knowledge_set_id_foreign" foreign key ("knowledge_set_id") references "knowledge_set" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "knowledge_clause" add constraint "knowledge_clause_knowledge_item_id_foreign" foreign key ("knowledge_item_id") references "knowledge_item" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "workspace" add constraint "workspace_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "knowledge_set_snapshot" drop constraint "knowledge_set_snapshot_knowledge_set_id_foreign";`);

    this.addSql(`alter table "knowledge_item" drop constraint "knowledge_item_knowledge_set_id_foreign";`);

    this.addSql(`alter table "knowledge_clause" drop constraint "knowledge_clause_knowledge_item_id_foreign";`);

    this.addSql(`drop table if exists "knowledge_feature" cascade;`);

    this.addSql(`drop table if exists "data_definition" cascade;`);

    this.addSql(`drop table if exists "project_resource" cascade;`);

    this.addSql(`drop table if exists "knowledge_set" cascade;`);

    this.addSql(`drop table if exists "knowledge_set_snapshot" cascade;`);

    this.addSql(`drop table if exists "knowledge_item" cascade;`);

    this.addSql(`drop table if exists "knowledge_clause" cascade;`);

    this.addSql(`drop table if exists "workspace" cascade;`);
  }
}
