import { Migration } from '@mikro-orm/migrations';

export class Migration20261126052206 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "organization_secret" ("id" uuid not null, "uuid" uuid not null, "created_on" timestamptz(3) not null, "updated_on" timestamptz(3) not null, "change_sequence" int not null, "organization_id" uuid not null, "name" text not null, "description" text not null, "sealed_value" text not null, "search_text" text not null, constraint "organization_secret_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "organization_secret" add constraint "organization_secret_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "organization_secret_created_on_id_index" on "organization_secret" ("created_on", "id");`);
    this.addSql(`create index "organization_secret_organization_id_created_on_id_index" on "organization_secret" ("organization_id", "created_on", "id");`);
    this.addSql(`alter table "organization_secret" add constraint "organization_secret_organization_id_name_unique" unique ("organization_id", "name");`);

    this.addSql(
      `alter table "organization_secret" add constraint "organization_secret_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "organization_secret" cascade;`);
  }
}
