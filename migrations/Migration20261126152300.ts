import { Migration } from '@mikro-orm/migrations';

/**
 * Knowledge sets created without a slug were stored with `""`, which their own pattern refuses when the
 * row is sent back: each gets the slug the server now derives (services/slugs.ts `slugFromName` and
 * `uniqueSlug`): the name's letters and digits joined by dashes (accents dropped), at most 100
 * characters, `knowledge-set` when nothing is left, and the first free `-1`, `-2`, ... suffix within
 * its organization, oldest rows first.
 */
export class Migration20261126152300 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$
declare
  pending record;
  source text;
  base text;
  candidate text;
  suffix int;
begin
  for pending in select "id", "organization_id", "name" from "knowledge_set" where "slug" = '' order by "created_on", "id" loop
    source := pending."name";
    -- NFKD needs a UTF8 database; elsewhere accented letters count as separators.
    if current_setting('server_encoding') = 'UTF8' then
      source := regexp_replace(normalize(source, NFKD), '[\\u0300-\\u036f]', '', 'g');
    end if;
    base := rtrim(left(trim(both '-' from regexp_replace(lower(source), '[^a-z0-9]+', '-', 'g')), 100), '-');
    if base = '' then
      base := 'knowledge-set';
    end if;
    candidate := base;
    suffix := 0;
    while exists (select 1 from "knowledge_set" where "organization_id" = pending."organization_id" and "slug" = candidate) loop
      suffix := suffix + 1;
      candidate := rtrim(left(base, 100 - length('-' || suffix)), '-') || '-' || suffix;
    end loop;
    update "knowledge_set" set "slug" = candidate where "id" = pending."id";
  end loop;
end
$$;`);
  }

  override async down(): Promise<void> {
    // The derived slugs are valid ones: nothing to undo.
  }
}
