import { Migration } from '@mikro-orm/migrations';

export class Migration20261126021808 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "organization_created_on_id_index" on "organization" ("created_on", "id");`);

    this.addSql(`drop index "label_organization_id_index";`);

    this.addSql(`create index "label_created_on_id_index" on "label" ("created_on", "id");`);
    this.addSql(`create index "label_organization_id_created_on_id_index" on "label" ("organization_id", "created_on", "id");`);

    this.addSql(`create index "platform_user_created_on_id_index" on "platform_user" ("created_on", "id");`);

    this.addSql(`drop index "access_token_user_id_index";`);

    this.addSql(`create index "access_token_created_on_id_index" on "access_token" ("created_on", "id");`);
    this.addSql(`create index "access_token_user_id_created_on_id_index" on "access_token" ("user_id", "created_on", "id");`);

    this.addSql(`drop index "project_status_organization_id_index";`);

    this.addSql(`create index "project_status_created_on_id_index" on "project_status" ("created_on", "id");`);
    this.addSql(`create index "project_status_organization_id_created_on_id_index" on "project_status" ("organization_id", "created_on", "id");`);

    this.addSql(`drop index "project_organization_id_index";`);
    this.addSql(`drop index "project_owner_id_index";`);
    this.addSql(`drop index "project_status_id_index";`);

    this.addSql(`create index "project_created_on_id_index" on "project" ("created_on", "id");`);
    this.addSql(`create index "project_organization_id_created_on_id_index" on "project" ("organization_id", "created_on", "id");`);
    this.addSql(`create index "project_owner_id_created_on_id_index" on "project" ("owner_id", "created_on", "id");`);
    this.addSql(`create index "project_status_id_created_on_id_index" on "project" ("status_id", "created_on", "id");`);

    this.addSql(`drop index "task_assignee_id_index";`);
    this.addSql(`drop index "task_parent_task_id_index";`);
    this.addSql(`drop index "task_project_id_index";`);

    this.addSql(`create index "task_created_on_id_index" on "task" ("created_on", "id");`);
    this.addSql(`create index "task_project_id_created_on_id_index" on "task" ("project_id", "created_on", "id");`);
    this.addSql(`create index "task_assignee_id_created_on_id_index" on "task" ("assignee_id", "created_on", "id");`);
    this.addSql(`create index "task_parent_task_id_created_on_id_index" on "task" ("parent_task_id", "created_on", "id");`);

    this.addSql(`drop index "task_status_organization_id_index";`);

    this.addSql(`create index "task_status_created_on_id_index" on "task_status" ("created_on", "id");`);
    this.addSql(`create index "task_status_organization_id_created_on_id_index" on "task_status" ("organization_id", "created_on", "id");`);

    this.addSql(`drop index "team_organization_id_index";`);

    this.addSql(`create index "team_created_on_id_index" on "team" ("created_on", "id");`);
    this.addSql(`create index "team_organization_id_created_on_id_index" on "team" ("organization_id", "created_on", "id");`);

    this.addSql(`drop index "team_member_team_id_index";`);
    this.addSql(`drop index "team_member_user_id_index";`);

    this.addSql(`create index "team_member_created_on_id_index" on "team_member" ("created_on", "id");`);
    this.addSql(`create index "team_member_team_id_created_on_id_index" on "team_member" ("team_id", "created_on", "id");`);
    this.addSql(`create index "team_member_user_id_created_on_id_index" on "team_member" ("user_id", "created_on", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "access_token_created_on_id_index";`);
    this.addSql(`drop index "access_token_user_id_created_on_id_index";`);

    this.addSql(`create index "access_token_user_id_index" on "access_token" ("user_id");`);

    this.addSql(`drop index "label_created_on_id_index";`);
    this.addSql(`drop index "label_organization_id_created_on_id_index";`);

    this.addSql(`create index "label_organization_id_index" on "label" ("organization_id");`);

    this.addSql(`drop index "organization_created_on_id_index";`);

    this.addSql(`drop index "platform_user_created_on_id_index";`);

    this.addSql(`drop index "project_created_on_id_index";`);
    this.addSql(`drop index "project_organization_id_created_on_id_index";`);
    this.addSql(`drop index "project_owner_id_created_on_id_index";`);
    this.addSql(`drop index "project_status_id_created_on_id_index";`);

    this.addSql(`create index "project_organization_id_index" on "project" ("organization_id");`);
    this.addSql(`create index "project_owner_id_index" on "project" ("owner_id");`);
    this.addSql(`create index "project_status_id_index" on "project" ("status_id");`);

    this.addSql(`drop index "project_status_created_on_id_index";`);
    this.addSql(`drop index "project_status_organization_id_created_on_id_index";`);

    this.addSql(`create index "project_status_organization_id_index" on "project_status" ("organization_id");`);

    this.addSql(`drop index "task_created_on_id_index";`);
    this.addSql(`drop index "task_project_id_created_on_id_index";`);
    this.addSql(`drop index "task_assignee_id_created_on_id_index";`);
    this.addSql(`drop index "task_parent_task_id_created_on_id_index";`);

    this.addSql(`create index "task_assignee_id_index" on "task" ("assignee_id");`);
    this.addSql(`create index "task_parent_task_id_index" on "task" ("parent_task_id");`);
    this.addSql(`create index "task_project_id_index" on "task" ("project_id");`);

    this.addSql(`drop index "task_status_created_on_id_index";`);
    this.addSql(`drop index "task_status_organization_id_created_on_id_index";`);

    this.addSql(`create index "task_status_organization_id_index" on "task_status" ("organization_id");`);

    this.addSql(`drop index "team_created_on_id_index";`);
    this.addSql(`drop index "team_organization_id_created_on_id_index";`);

    this.addSql(`create index "team_organization_id_index" on "team" ("organization_id");`);

    this.addSql(`drop index "team_member_created_on_id_index";`);
    this.addSql(`drop index "team_member_team_id_created_on_id_index";`);
    this.addSql(`drop index "team_member_user_id_created_on_id_index";`);

    this.addSql(`create index "team_member_team_id_index" on "team_member" ("team_id");`);
    this.addSql(`create index "team_member_user_id_index" on "team_member" ("user_id");`);
  }
}
