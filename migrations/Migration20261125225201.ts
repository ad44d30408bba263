import { Migration } from '@mikro-orm/migrations';

export class Migration20261125225201 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "team_member" alter column "team_id" drop default;`);
    this.addSql(`alter table "team_member" alter column "team_id" type uuid using ("team_id"::text::uuid);`);
    this.addSql(`alter table "team_member" alter column "team_id" drop not null;`);
    this.addSql(`alter table "team_member" alter column "user_id" drop default;`);
    this.addSql(`alter table "team_member" alter column "user_id" type uuid using ("user_id"::text::uuid);`);
    this.addSql(`alter table "team_member" alter column "user_id" drop not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "team_member" alter column "team_id" drop default;`);
    this.addSql(`alter table "team_member" alter column "team_id" type uuid using ("team_id"::text::uuid);`);
    this.addSql(`alter table "team_member" alter column "team_id" set not null;`);
    this.addSql(`alter table "team_member" alter column "user_id" drop default;`);
    this.addSql(`alter table "team_member" alter column "user_id" type uuid using ("user_id"::text::uuid);`);
    this.addSql(`alter table "team_member" alter column "user_id" set not null;`);
  }

}
