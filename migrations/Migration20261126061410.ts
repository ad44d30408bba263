import { Migration } from '@mikro-orm/migrations';

export class Migration20261126061410 extends Migration {
  override async up(): Promise<void> {
    // Keys were stored, not honoured, before this index: of executions sharing one, the earliest keeps it.
    this.addSql(
      `update "execution" e set "idempotency_key" = null where "idempotency_key" is not null and exists (select 1 from "execution" f where f."organization_id" = e."organization_id" and f."idempotency_key" = e."idempotency_key" and (f."created_on", f."id") < (e."created_on", e."id"));`,
    );
    this.addSql(
      `create unique index "execution_organization_id_idempotency_key_unique" on "execution" ("organization_id", "idempotency_key") where "idempotency_key" is not null;`,
    );
  }

  override async down(): Promise<void> {
    // A partial unique index is an index, not a constraint.
    this.addSql(`drop index if exists "execution_organization_id_idempotency_key_unique";`);
  }
}
