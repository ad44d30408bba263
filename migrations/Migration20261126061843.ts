import { Migration } from '@mikro-orm/migrations';

export class Migration20261126061843 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index "task_group_history_entry_task_group_id_index";`);

    this.addSql(
      `create index "task_group_history_entry_task_group_id_created_on_id_index" on "task_group_history_entry" ("task_group_id", "created_on", "id");`,
    );

    this.addSql(
      `alter table "task" add constraint "task_task_group_id_foreign" foreign key ("task_group_id") references "task_group" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "task_task_group_id_created_on_id_index" on "task" ("task_group_id", "created_on", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "task" drop constraint "task_task_group_id_foreign";`);

    this.addSql(`drop index "task_task_group_id_created_on_id_index";`);

    this.addSql(`drop index "task_group_history_entry_task_group_id_created_on_id_index";`);

    this.addSql(`create index "task_group_history_entry_task_group_id_index" on "task_group_history_entry" ("task_group_id");`);
  }
}
