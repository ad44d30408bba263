import { Migration } from '@mikro-orm/migrations';

export class Migration20261126082137 extends Migration {
  override async up(): Promise<void> {
    // The column held any UUID before it referenced triggers: ids of no trigger are let go.
    this.addSql(
      `update "activity" set "started_by_trigger_id" = null where "started_by_trigger_id" is not null and not exists (select 1 from "trigger" t where t."id" = "activity"."started_by_trigger_id");`,
    );
    this.addSql(
      `alter table "activity" add constraint "activity_started_by_trigger_id_foreign" foreign key ("started_by_trigger_id") references "trigger" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "activity_started_by_trigger_id_created_on_id_index" on "activity" ("started_by_trigger_id", "created_on", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "activity" drop constraint "activity_started_by_trigger_id_foreign";`);

    this.addSql(`drop index "activity_started_by_trigger_id_created_on_id_index";`);
  }
}
