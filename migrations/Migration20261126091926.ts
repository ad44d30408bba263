import { Migration } from '@mikro-orm/migrations';

export class Migration20261126091926 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "idempotency_key" ("user_id" uuid not null, "key" text not null, "request_hash" text not null, "state" text check ("state" in ('running', 'done')) not null, "created_on" timestamptz(3) not null, "status" int null, "headers" jsonb null, "body" bytea null, constraint "idempotency_key_pkey" primary key ("user_id", "key"));`,
    );
    this.addSql(`create index "idempotency_key_created_on_index" on "idempotency_key" ("created_on");`);

    this.addSql(
      `alter table "idempotency_key" add constraint "idempotency_key_user_id_foreign" foreign key ("user_id") references "platform_user" ("id") on update cascade on delete cascade;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "idempotency_key" cascade;`);
  }
}
