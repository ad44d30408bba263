import { Migration } from '@mikro-orm/migrations';

/**
 * Live updates (GraphQL subscriptions): every insert, update and delete of a task, a platform event or
 * an activity NOTIFYs `platform_row_changed` with `{entity, id, projectId, op}`, from a row trigger, so
 * in the transaction of the change whatever wrote it: the notification is sent when that transaction
 * commits and never when it rolls back. A task's soft delete (deleted turning true) is op `delete`.
 */
export class Migration20261126093000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function "platform_announce_row_change"() returns trigger language plpgsql as $$
declare
  changed record;
  op text := lower(tg_op);
begin
  if tg_op = 'DELETE' then
    changed := old;
  else
    changed := new;
  end if;
  if op = 'insert' then
    op := 'create';
  elsif op = 'update' and tg_table_name = 'task' then
    -- Only the task table has the column: the test above keeps other tables from reading it.
    if new.deleted and not old.deleted then
      op := 'delete';
    end if;
  end if;
  perform pg_notify('platform_row_changed', json_build_object('entity', tg_table_name, 'id', changed.id, 'projectId', changed.project_id, 'op', op)::text);
  return null;
end
$$;`);
    for (const table of ['task', 'platform_event', 'activity']) {
      this.addSql(
        `create trigger "${table}_announce_change" after insert or update or delete on "${table}" for each row execute function "platform_announce_row_change"();`,
      );
    }
  }

  override async down(): Promise<void> {
    for (const table of ['task', 'platform_event', 'activity']) {
      this.addSql(`drop trigger if exists "${table}_announce_change" on "${table}";`);
    }
    this.addSql(`drop function if exists "platform_announce_row_change"();`);
  }
}
