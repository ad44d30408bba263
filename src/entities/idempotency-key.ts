import { Entity, Enum, Index, ManyToOne, PrimaryKey, PrimaryKeyProp, Property } from '@mikro-orm/core';
import { PlatformUser } from './platform-user';

/** `running` while the first request with the key is being answered, `done` once its answer is stored. */
export type IdempotencyState = 'running' | 'done';

/**
 * The first answer to a POST sent with an `Idempotency-Key` header, per user and key (see
 * http/idempotency.ts). Internal: served by no resource of the registry, mapped by database/orm.ts
 * beside the registry's entities and read and written in SQL by engine/idempotency.ts.
 */
@Entity({ tableName: 'idempotency_key' })
@Index({ properties: ['createdOn'] })
export class IdempotencyKey {
  [PrimaryKeyProp]?: ['userId', 'key'];

  /** The caller (an API key's owner for API keys); a user's keys go with the user. */
  @ManyToOne(() => PlatformUser, { primary: true, mapToPk: true, fieldName: 'user_id', deleteRule: 'cascade' })
  userId!: string;

  /** The header's value: 1 to 255 printable ASCII characters. */
  @PrimaryKey({ type: 'text' })
  key!: string;

  /** SHA-256 (hex) of the method, the path with its query string and the canonical body. */
  @Property({ type: 'text' })
  requestHash!: string;

  @Enum({ items: ['running', 'done'] })
  state!: IdempotencyState;

  /** When the first request began; the key expires 24 hours later. */
  @Property({ type: 'datetime', length: 3 })
  createdOn!: Date;

  @Property({ type: 'integer', nullable: true })
  status?: number | null;

  /** The answer's headers that are replayed (Content-Type, Location, ETag, Allow), by lower-case name. */
  @Property({ type: 'json', nullable: true })
  headers?: Record<string, string> | null;

  @Property({ type: 'blob', nullable: true })
  body?: Buffer | null;
}
