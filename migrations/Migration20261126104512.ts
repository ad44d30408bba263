import { Migration } from '@mikro-orm/migrations';

/**
 * Platform events carry their organization, and may belong to no project (a document family locked
 * outside every project): `organization_id` is added, filled from each existing event's project, then
 * required and indexed for the organization's lists; `project_id` becomes optional.
 */
export class Migration20261126104512 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "platform_event" add column "organization_id" uuid null;`);
    this.addSql(`update "platform_event" e set "organization_id" = p."organization_id" from "project" p where p."id" = e."project_id";`);
    this.addSql(`alter table "platform_event" alter column "organization_id" set not null;`);
    this.addSql(`alter table "platform_event" alter column "project_id" drop not null;`);
    this.addSql(`create index "platform_event_organization_id_created_on_id_index" on "platform_event" ("organization_id", "created_on", "id");`);

    this.addSql(
      `alter table "platform_event" add constraint "platform_event_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "platform_event" drop constraint "platform_event_organization_id_foreign";`);

    this.addSql(`drop index "platform_event_organization_id_created_on_id_index";`);
    // Events of no project have no place in the older shape.
    this.addSql(`delete from "platform_event" where "project_id" is null;`);
    this.addSql(`alter table "platform_event" alter column "project_id" set not null;`);
    this.addSql(`alter table "platform_event" drop column "organization_id";`);
  }
}
