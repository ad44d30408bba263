import { DriverException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { insertRows, type RowInsert } from '../database/row-writes';
import { UnauthenticatedError } from '../errors/api-error';
import type { PlatformUser } from '../entities/platform-user';
import { Loaders } from './loaders';
import { RequestBudget } from './request-budget';
import type { Services } from './services';
import type { LoadedMemberships } from './tenancy';

/** How a user proved who they are. */
export type Credential = 'api-key' | 'basic' | 'bearer';

/** Who is asking. Every service call carries one; permissions are decided from it alone. */
export type Actor = { kind: 'user'; user: PlatformUser; isAdmin: boolean; credential: Credential; accessTokenId?: string } | { kind: 'system' };

/** How records written on an actor's behalf name its kind (DocumentActorType): bearer and Basic callers are users. */
export type ActorType = 'USER' | 'API_KEY' | 'SYSTEM';

/**
 * The activity on whose behalf the server writes (its steps run with it): the events those writes
 * cause never fire `triggerId` again, and the activities they start are one level deeper.
 */
export interface ActivityCause {
  activityId: string;
  triggerId: string | null;
  depth: number;
}

/** One request's unit of work: its own EntityManager fork, its actor and its DataLoaders. */
export class RequestContext {
  readonly loaders: Loaders;
  /** The organizations the actor belongs to, looked up once per request or taken from the access cache (see tenancy.ts). */
  memberships?: LoadedMemberships;
  /** Set while an activity's steps write (see modules/workflow/activity-runner.ts). */
  cause?: ActivityCause;
  /** What the request may still spend (see request-budget.ts): bounded for API requests, not for the server's own work. */
  budget = RequestBudget.unlimited();

  constructor(
    readonly em: EntityManager,
    readonly actor: Actor,
    readonly services: Services,
  ) {
    this.loaders = new Loaders(this);
    this.confirmation = { version: services.accessCache.version, refusal: Promise.resolve(undefined) };
  }

  /**
   * Asks again whether the credential that authenticated the request still stands (set by
   * authentication): why it no longer does (a key revoked, a user deactivated), or undefined.
   */
  credentialCheck?: () => Promise<string | undefined>;

  /** The access-cache version the credential was last confirmed at, and that confirmation. */
  private confirmation: { version: number; refusal: Promise<string | undefined> };

  /** Records that the credential was confirmed at `version` (authentication reads it before confirming). */
  credentialConfirmedAt(version: number): void {
    this.confirmation = { version, refusal: Promise.resolve(undefined) };
  }

  /**
   * Before each root field of a GraphQL document: once any change of access has been seen since the
   * credential was confirmed, the credential is checked again (a revoked key or a deactivated user is
   * refused from then on) and rows the request's loaders hold are read again; memberships follow on
   * their own (tenancy.ts).
   */
  async confirmAccess(): Promise<void> {
    const version = this.services.accessCache.version;
    if (version !== this.confirmation.version) {
      this.loaders.clear();
      this.confirmation = { version, refusal: this.credentialCheck?.() ?? Promise.resolve(undefined) };
    }
    const refusal = await this.confirmation.refusal;
    if (refusal) throw new UnauthenticatedError(`invalid credentials: ${refusal}`);
  }

  get isAdmin(): boolean {
    return this.actor.kind === 'system' || this.actor.isAdmin;
  }

  get user(): PlatformUser | undefined {
    return this.actor.kind === 'user' ? this.actor.user : undefined;
  }

  /**
   * Set when the reads must see every commit so far, such as the re-read of a change just announced,
   * which no replica may have replayed yet: the hot reads then go to the primary.
   */
  readsLatest = false;

  /**
   * Whose read it is, for read replicas (database/read-replicas.ts): a user, whose reads see their own
   * writes; undefined (the primary) for the server's own work and `readsLatest`.
   */
  get reader(): string | undefined {
    return this.readsLatest ? undefined : this.user?.id;
  }

  get actorType(): ActorType {
    if (this.actor.kind === 'system') return 'SYSTEM';
    return this.actor.credential === 'api-key' ? 'API_KEY' : 'USER';
  }

  /** The same unit of work acting as the system, for rows a rule creates on the caller's behalf. */
  asSystem(): RequestContext {
    return this.actingAs({ kind: 'system' });
  }

  /** The same unit of work acting as `actor` (the demo loader writes as its user within the system's transaction). */
  actingAs(actor: Actor): RequestContext {
    const other = new RequestContext(this.em, actor, this.services);
    other.cause = this.cause;
    other.budget = this.budget;
    // What it defers belongs to this context's transaction: it runs when (and only if) that commits.
    other.committed = this.committed;
    return other;
  }

  /**
   * Runs `work` in one database transaction: everything it wrote is kept, or nothing is. What `work`
   * defers with `afterCommit` runs once the transaction has committed (never when it rolled back).
   */
  async transaction<R>(work: (ctx: RequestContext) => Promise<R>): Promise<R> {
    let inner: RequestContext | undefined;
    let result: R;
    try {
      result = await this.em.transactional((em) => {
        inner = new RequestContext(em as EntityManager, this.actor, this.services);
        inner.memberships = this.memberships;
        inner.cause = this.cause;
        inner.budget = this.budget;
        return work(inner);
      });
    } catch (error) {
      throw this.converted(error);
    }
    // A write may have changed who belongs where (a new organization, a new member).
    this.memberships = undefined;
    const deferred = inner?.committed ?? [];
    // A transaction inside another commits with the outer one.
    if (this.em.isInTransaction()) this.committed.push(...deferred);
    else for (const task of deferred) await task(this);
    return result;
  }

  /** Work deferred until the transaction of this context commits, run with the context outside it. */
  private committed: ((outside: RequestContext) => Promise<void>)[] = [];

  /** Inside `oneStatement`: the rows inserted so far, written together when it ends. */
  pendingInserts?: RowInsert[];

  /**
   * Runs `work`, whose only writes are INSERTs of rows it does not read back, and sends them all as one
   * statement: all or nothing, as a transaction, in one round trip. What `work` defers with `afterCommit`
   * runs once that statement has succeeded.
   */
  async oneStatement<R>(work: (ctx: RequestContext) => Promise<R>): Promise<R> {
    const inner = new RequestContext(this.em, this.actor, this.services);
    inner.memberships = this.memberships;
    inner.cause = this.cause;
    inner.budget = this.budget;
    inner.pendingInserts = [];
    const result = await work(inner);
    if (inner.pendingInserts.length) await insertRows(this.em, inner.pendingInserts);
    for (const task of inner.committed) await task(this);
    return result;
  }

  /** Runs `task` once this context's transaction has committed (at once outside a transaction). */
  async afterCommit(task: (outside: RequestContext) => Promise<void>): Promise<void> {
    if (this.em.isInTransaction() || this.pendingInserts) this.committed.push(task);
    else await task(this);
  }

  /**
   * A constraint checked at COMMIT (a deferred one) fails outside any statement the ORM converts: it is
   * given the ORM's exception class here too, so that it answers as the same failure would mid-transaction.
   */
  private converted(error: unknown): unknown {
    const sqlState = (error as { code?: unknown } | null)?.code;
    if (error instanceof DriverException || !(error instanceof Error) || typeof sqlState !== 'string' || !/^[0-9A-Z]{5}$/.test(sqlState)) return error;
    return this.em.getDriver().convertException(error);
  }
}
