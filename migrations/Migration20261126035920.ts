import { Migration } from '@mikro-orm/migrations';

export class Migration20261126035920 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "document_store" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "store_purpose" text null, "content_metadata" jsonb not null, "indexed" boolean not null, "document_properties" jsonb not null, "label_expressions" jsonb not null, "organization_id" uuid not null, constraint "document_store_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "document_store" add constraint "document_store_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "document_store_created_on_id_index" on "document_store" ("created_on", "id");`);
    this.addSql(`create index "document_store_organization_id_created_on_id_index" on "document_store" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "document_store" add constraint "document_store_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "data_store" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text not null, "slug" text not null, "description" text not null, "store_purpose" text null, "content_metadata" jsonb not null, "indexed" boolean not null, "document_properties" jsonb not null, "label_expressions" jsonb not null, "organization_id" uuid not null, constraint "data_store_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "data_store" add constraint "data_store_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "data_store_created_on_id_index" on "data_store" ("created_on", "id");`);
    this.addSql(`create index "data_store_organization_id_created_on_id_index" on "data_store" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "data_store" add constraint "data_store_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(
      `create table "document_family" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "document_store_id" uuid not null, "store_ref" text not null, "path" text null, "original_path" text null, "summary" text null, "size" int null, "locked" boolean not null, "locked_at" timestamptz(3) null, "locked_by_id" text null, "pending_processing" boolean not null, "mixins" jsonb not null, "metadata" jsonb not null, "metadata_source" jsonb not null, "created" timestamptz(3) null, "modified" timestamptz(3) null, "document_status_id" uuid null, "document_taxon_validations" jsonb not null, "execution_targets" jsonb not null, "statistics" jsonb not null, "labels" jsonb not null, "features" jsonb not null, constraint "document_family_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "document_family" add constraint "document_family_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "document_family_created_on_id_index" on "document_family" ("created_on", "id");`);
    this.addSql(`create index "document_family_document_store_id_created_on_id_index" on "document_family" ("document_store_id", "created_on", "id");`);
    this.addSql(`create index "document_family_document_status_id_created_on_id_index" on "document_family" ("document_status_id", "created_on", "id");`);

    this.addSql(
      `create table "content_object" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "deleted" boolean not null, "deleted_date" timestamptz(3) null, "delete_user_id" text null, "delete_user_email" text null, "name" text null, "document_family_id" uuid not null, "document_version" text null, "store_ref" text null, "summary" text null, "doc_transition_type" text null, "source_content_object_id" text null, "index" int not null, "content_type" int null, "size" int null, "created" timestamptz(3) null, "modified" timestamptz(3) null, "mixins" jsonb not null, "metadata" jsonb not null, "content_metadata" jsonb not null, "document_taxon_validations" jsonb not null, "source" jsonb not null, constraint "content_object_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "content_object" add constraint "content_object_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "content_object_created_on_id_index" on "content_object" ("created_on", "id");`);
    this.addSql(`create index "content_object_document_family_id_created_on_id_index" on "content_object" ("document_family_id", "created_on", "id");`);

    this.addSql(
      `alter table "document_store" add constraint "document_store_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "data_store" add constraint "data_store_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "document_family" add constraint "document_family_document_store_id_foreign" foreign key ("document_store_id") references "document_store" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "document_family" add constraint "document_family_document_status_id_foreign" foreign key ("document_status_id") references "document_status" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "content_object" add constraint "content_object_document_family_id_foreign" foreign key ("document_family_id") references "document_family" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "document_family" drop constraint "document_family_document_store_id_foreign";`);

    this.addSql(`alter table "content_object" drop constraint "content_object_document_family_id_foreign";`);

    this.addSql(`drop table if exists "document_store" cascade;`);

    this.addSql(`drop table if exists "data_store" cascade;`);

    this.addSql(`drop table if exists "document_family" cascade;`);

    this.addSql(`drop table if exists "content_object" cascade;`);
  }
}
