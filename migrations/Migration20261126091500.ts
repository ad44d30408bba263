import { Migration } from '@mikro-orm/migrations';

export class Migration20261126091500 extends Migration {
  override async up(): Promise<void> {
    // A model's upstreamModel defaults to its name: rows written before the rule get it now.
    this.addSql(`update "model_catalog_entry" set "upstream_model" = "name" where trim("upstream_model") = '';`);
  }

  override async down(): Promise<void> {
    // The names filled in cannot be told from names written on purpose: nothing to undo.
  }
}
