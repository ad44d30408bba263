import { Migration } from '@mikro-orm/migrations';

export class Migration20261126041341 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "platform_event" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "project_id" uuid not null, "event_type" text not null, "event_detail" jsonb null, "notified" boolean not null, "date_time" timestamptz(3) not null, constraint "platform_event_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "platform_event" add constraint "platform_event_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "platform_event_created_on_id_index" on "platform_event" ("created_on", "id");`);
    this.addSql(`create index "platform_event_project_id_created_on_id_index" on "platform_event" ("project_id", "created_on", "id");`);

    this.addSql(
      `create table "linked_delta" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "document_family_id" uuid not null, "operations" jsonb not null, "state" text not null, "error_message" text null, constraint "linked_delta_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "linked_delta" add constraint "linked_delta_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "linked_delta_created_on_id_index" on "linked_delta" ("created_on", "id");`);
    this.addSql(`create index "linked_delta_document_family_id_created_on_id_index" on "linked_delta" ("document_family_id", "created_on", "id");`);

    this.addSql(
      `create table "data_object" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "document_family_id" uuid not null, "parent_id" uuid null, "path" text not null, "taxonomy_ref" text not null, "attributes" jsonb not null, constraint "data_object_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "data_object" add constraint "data_object_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "data_object_created_on_id_index" on "data_object" ("created_on", "id");`);
    this.addSql(`create index "data_object_document_family_id_created_on_id_index" on "data_object" ("document_family_id", "created_on", "id");`);
    this.addSql(`create index "data_object_parent_id_created_on_id_index" on "data_object" ("parent_id", "created_on", "id");`);

    this.addSql(
      `create table "applied_knowledge_set" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "document_family_id" uuid not null, "knowledge_set_id" uuid null, "snapshot_id" uuid null, "applied_at" timestamptz(3) null, "superseded_at" timestamptz(3) null, "applied_by" text not null, "source_content_object_id" text null, "superseded_by_id" text null, "status" text not null, "trigger" text not null, "confidence" double precision null, constraint "applied_knowledge_set_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "applied_knowledge_set" add constraint "applied_knowledge_set_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "applied_knowledge_set_created_on_id_index" on "applied_knowledge_set" ("created_on", "id");`);
    this.addSql(
      `create index "applied_knowledge_set_document_family_id_created_on_id_index" on "applied_knowledge_set" ("document_family_id", "created_on", "id");`,
    );
    this.addSql(
      `create index "applied_knowledge_set_knowledge_set_id_created_on_id_index" on "applied_knowledge_set" ("knowledge_set_id", "created_on", "id");`,
    );
    this.addSql(`create index "applied_knowledge_set_snapshot_id_created_on_id_index" on "applied_knowledge_set" ("snapshot_id", "created_on", "id");`);

    this.addSql(
      `create table "task_document_family" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "task_id" uuid not null, "document_family_id" uuid not null, "role" text not null, constraint "task_document_family_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "task_document_family" add constraint "task_document_family_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "task_document_family_created_on_id_index" on "task_document_family" ("created_on", "id");`);
    this.addSql(`create index "task_document_family_task_id_created_on_id_index" on "task_document_family" ("task_id", "created_on", "id");`);
    this.addSql(
      `create index "task_document_family_document_family_id_created_on_id_index" on "task_document_family" ("document_family_id", "created_on", "id");`,
    );
    this.addSql(
      `alter table "task_document_family" add constraint "task_document_family_task_id_document_family_id_unique" unique ("task_id", "document_family_id");`,
    );

    this.addSql(
      `create table "channel" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "name" text not null, "project_id" uuid not null, "task_id" uuid null, "workspace_id" uuid null, "owner_id" uuid null, "is_private" boolean not null, constraint "channel_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "channel" add constraint "channel_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "channel_created_on_id_index" on "channel" ("created_on", "id");`);
    this.addSql(`create index "channel_project_id_created_on_id_index" on "channel" ("project_id", "created_on", "id");`);
    this.addSql(`create index "channel_task_id_created_on_id_index" on "channel" ("task_id", "created_on", "id");`);
    this.addSql(`create index "channel_workspace_id_created_on_id_index" on "channel" ("workspace_id", "created_on", "id");`);
    this.addSql(`create index "channel_owner_id_created_on_id_index" on "channel" ("owner_id", "created_on", "id");`);

    this.addSql(
      `create table "message" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "channel_id" uuid not null, "role" text check ("role" in ('USER', 'ASSISTANT', 'SYSTEM', 'TOOL')) not null, "content" text not null, "user_id" uuid null, "assistant_id" uuid null, "context" jsonb not null, constraint "message_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "message" add constraint "message_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "message_created_on_id_index" on "message" ("created_on", "id");`);
    this.addSql(`create index "message_channel_id_created_on_id_index" on "message" ("channel_id", "created_on", "id");`);
    this.addSql(`create index "message_user_id_created_on_id_index" on "message" ("user_id", "created_on", "id");`);
    this.addSql(`create index "message_assistant_id_created_on_id_index" on "message" ("assistant_id", "created_on", "id");`);

    this.addSql(
      `alter table "platform_event" add constraint "platform_event_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "linked_delta" add constraint "linked_delta_document_family_id_foreign" foreign key ("document_family_id") references "document_family" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "data_object" add constraint "data_object_document_family_id_foreign" foreign key ("document_family_id") references "document_family" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "data_object" add constraint "data_object_parent_id_foreign" foreign key ("parent_id") references "data_object" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "applied_knowledge_set" add constraint "applied_knowledge_set_document_family_id_foreign" foreign key ("document_family_id") references "document_family" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "applied_knowledge_set" add constraint "applied_knowledge_set_knowledge_set_id_foreign" foreign key ("knowledge_set_id") references "knowledge_set" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "applied_knowledge_set" add constraint "applied_knowledge_set_snapshot_id_foreign" foreign key ("snapshot_id") references "knowledge_set_snapshot" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "task_document_family" add constraint "task_document_family_task_id_foreign" foreign key ("task_id") references "task" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "task_document_family" add constraint "task_document_family_document_family_id_foreign" foreign key ("document_family_id") references "document_family" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `alter table "channel" add constraint "channel_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "channel" add constraint "channel_task_id_foreign" foreign key ("task_id") references "task" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "channel" add constraint "channel_workspace_id_foreign" foreign key ("workspace_id") references "workspace" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "channel" add constraint "channel_owner_id_foreign" foreign key ("owner_id") references "platform_user" ("id") on update cascade on delete set null;`,
    );

    this.addSql(
      `alter table "message" add constraint "message_channel_id_foreign" foreign key ("channel_id") references "channel" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "message" add constraint "message_user_id_foreign" foreign key ("user_id") references "platform_user" ("id") on update cascade on delete set null;`,
    );
    this.addSql(
      `alter table "message" add constraint "message_assistant_id_foreign" foreign key ("assistant_id") references "assistant" ("id") on update cascade on delete set null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "data_object" drop constraint "data_object_parent_id_foreign";`);

    this.addSql(`alter table "message" drop constraint "message_channel_id_foreign";`);

    this.addSql(`drop table if exists "platform_event" cascade;`);

    this.addSql(`drop table if exists "linked_delta" cascade;`);

    this.addSql(`drop table if exists "data_object" cascade;`);

    this.addSql(`drop table if exists "applied_knowledge_set" cascade;`);

    this.addSql(`drop table if exists "task_document_family" cascade;`);

    this.addSql(`drop table if exists "channel" cascade;`);

    this.addSql(`drop table if exists "message" cascade;`);
  }
}
