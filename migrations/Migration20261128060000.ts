import { Migration } from '@mikro-orm/migrations';

/**
 * `json_answer_text(jsonb)`: a stored JSON value as an answer writes it (JavaScript's JSON.stringify of
 * the parsed value): compact, and the members of an object whose names are array indices ("0", "10")
 * first, in numeric order, then the others in the order the value holds them. Statements that write an
 * answer's JSON use it for values holding such a name; others are made compact by a pattern (see
 * src/engine/json-pages.ts).
 */
export class Migration20261128060000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function json_answer_text(value jsonb) returns text language plpgsql immutable parallel safe as $$
declare
  parts text[] := '{}';
  member record;
begin
  case jsonb_typeof(value)
    when 'object' then
      for member in select e.key, e.value from jsonb_each(value) with ordinality as e(key, value, n)
          order by case when e.key ~ '^(0|[1-9][0-9]{0,9})$' and e.key::bigint < 4294967295 then e.key::bigint end nulls last, e.n loop
        parts := parts || (to_json(member.key)::text || ':' || json_answer_text(member.value));
      end loop;
      return '{' || array_to_string(parts, ',') || '}';
    when 'array' then
      for member in select e.value from jsonb_array_elements(value) with ordinality as e(value, n) order by e.n loop
        parts := parts || json_answer_text(member.value);
      end loop;
      return '[' || array_to_string(parts, ',') || ']';
    else
      return value::text;
  end case;
end
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists json_answer_text(jsonb);`);
  }
}
