import { Entity, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';

/**
 * How many live rows each organization has in each table below an organization, kept by the database
 * itself (triggers written by database/live-counts-sql.ts) in the transaction that inserts, deletes,
 * hides or restores them, so that an unfiltered page's total is a sum of a few of these rows instead
 * of a count of every row. A table's count for an organization is the sum over its slots: concurrent
 * writers add to different slots (chosen by their connection), so they do not queue on one row.
 * Internal: served by no resource of the registry, mapped by database/orm.ts and read in SQL only.
 */
@Entity({ tableName: 'live_row_count' })
export class LiveRowCount {
  [PrimaryKeyProp]?: ['tableName', 'tenantId', 'slot'];

  @PrimaryKey({ type: 'text' })
  tableName!: string;

  /** The organization (the row's tenant key). */
  @PrimaryKey({ type: 'uuid' })
  tenantId!: string;

  @PrimaryKey({ type: 'smallint' })
  slot!: number;

  /** Added to by each slot's writers; the slots of a table and organization sum to its live rows. */
  @Property({ type: 'bigint' })
  rows!: string;
}
