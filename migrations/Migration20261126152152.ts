import { Migration } from '@mikro-orm/migrations';

/**
 * An organization's `archived` is false until it is deleted: rows written while the column allowed
 * null (every organization never deleted) become false, and the column is required from now on.
 */
export class Migration20261126152152 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`update "organization" set "archived" = false where "archived" is null;`);
    this.addSql(`alter table "organization" alter column "archived" set not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "organization" alter column "archived" drop not null;`);
  }
}
