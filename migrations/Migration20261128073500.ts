import { Migration } from '@mikro-orm/migrations';

/**
 * `json_answer_time(timestamptz)`: a time outside the years 0001-9999 as an answer writes it (JavaScript's
 * Date#toISOString): the expanded year (`+010000`, `-000001`; PostgreSQL's 1 BC is year 0000), then
 * month, day and time in UTC to the millisecond. Statements that write an answer's JSON write the common
 * years themselves and call this for the others, so that their text stays short.
 */
export class Migration20261128073500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function json_answer_time(value timestamptz) returns text language plpgsql stable parallel safe as $$
declare
  utc timestamp := value at time zone 'UTC';
  year int := extract(year from utc)::int;
begin
  if year < 0 then
    year := year + 1;
  end if;
  return case
      when year between 0 and 9999 then lpad(year::text, 4, '0')
      when year < 0 then '-' || lpad((-year)::text, 6, '0')
      else '+' || lpad(year::text, 6, '0')
    end || to_char(utc, '-MM-DD"T"HH24:MI:SS.MS"Z"');
end
$$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists json_answer_time(timestamptz);`);
  }
}
