import type { EntityClass } from '@mikro-orm/core';
import type { BaseEntity } from '../entities/base';
import type { Resource } from '../model/resource';
import { DEFAULT_EXPORT_MAX_CONCURRENT_PER_USER, DEFAULT_EXPORT_MAX_ROWS, MAX_AUTH_CACHE_SECONDS } from '../config/config';
import type { Reads } from '../database/read-pool';
import { queuesPerOrganization, type JobOwner } from '../jobs/job-queue';
import { AccessCache } from './access-cache';
import { ExportSlots } from './export-slots';
import type { PlatformModule } from './module';
import { ModuleRegistry } from './module-registry';
import { DEFAULT_REQUEST_LIMITS, RequestBudget, type RequestLimits } from './request-budget';
import { ConnectionShares } from './connection-shares';
import { ResourceService } from './resource-service';

/**
 * What modules add to the services every request reaches (`ctx.services`): each module declares its
 * own members here by augmenting this interface (`declare module '.../engine/services'`), so that the
 * engine names none of them. Given to the constructor, or made by a module's `defaults`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the modules' declarations
export interface ModuleDependencies {}

export interface EngineOptions {
  accessCacheSeconds?: number;
  /** The prepared hot reads (see item-statement.ts); without it, every read goes through the ORM. */
  reads?: Reads;
  /** EXPORT_MAX_ROWS: the most rows one export may stream (default 1,000,000). */
  exportMaxRows?: number;
  /** Rows an export reads per statement (default 1,000; tests make it small to cross many batches). */
  exportBatchRows?: number;
  /** RESPONSE_MAX_BYTES and REQUEST_MAX_DB_CONNECTIONS: what one API request may spend. */
  requestLimits?: Partial<RequestLimits>;
  /** Read connections one user's requests hold together (unbounded unless given). */
  userMaxDbConnections?: number;
  /** EXPORT_MAX_CONCURRENT_PER_USER: the exports one user may stream at once (default 2). */
  exportMaxConcurrentPerUser?: number;
  /** Named job queues of each organization (job-queue.ts `queuesPerOrganization`; default that of WORKER_CONCURRENCY's default). */
  jobQueuesPerOrganization?: number;
}

/** Rows an export reads per statement: enough to make each statement's cost small beside its rows. */
const DEFAULT_EXPORT_BATCH_ROWS = 1000;

// The members the modules declared are members of every Services (merged with the class below).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
export interface Services extends ModuleDependencies {}

/** The service of every registered resource, with the rules its module registered, found by path or by entity class. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Services {
  private readonly byPath = new Map<string, ResourceService>();
  private readonly byEntity = new Map<EntityClass<object>, ResourceService>();

  /** Credentials and memberships shared by the requests of this process (see access-cache.ts). */
  readonly accessCache: AccessCache;

  /** The prepared hot reads (see item-statement.ts); without it, every read goes through the ORM. */
  readonly reads?: Reads;

  /** The modules' rules and operation handlers, checked when built. */
  readonly modules: ModuleRegistry;

  /** The most rows one export may stream; more is refused before any is read. */
  readonly exportMaxRows: number;

  /** Rows an export reads per statement. */
  readonly exportBatchRows: number;

  /** What one API request may spend (see request-budget.ts). */
  readonly requestLimits: RequestLimits;
  /** The exports streaming now, by user. */
  readonly exportSlots: ExportSlots;
  /** Named job queues of each organization: the most jobs of one organization running at once. */
  readonly jobQueuesPerOrganization: number;

  constructor(
    readonly resources: readonly Resource[],
    modules: readonly PlatformModule[],
    options: EngineOptions & Partial<ModuleDependencies> = {},
  ) {
    const {
      accessCacheSeconds,
      reads,
      exportMaxRows,
      exportBatchRows,
      requestLimits,
      userMaxDbConnections,
      exportMaxConcurrentPerUser,
      jobQueuesPerOrganization,
      ...dependencies
    } = options;
    this.accessCache = new AccessCache((accessCacheSeconds ?? MAX_AUTH_CACHE_SECONDS) * 1000);
    this.reads = reads;
    this.exportMaxRows = exportMaxRows ?? DEFAULT_EXPORT_MAX_ROWS;
    this.exportBatchRows = exportBatchRows ?? DEFAULT_EXPORT_BATCH_ROWS;
    this.requestLimits = { ...DEFAULT_REQUEST_LIMITS, ...requestLimits };
    this.connectionShares = new ConnectionShares(userMaxDbConnections ?? Number.MAX_SAFE_INTEGER);
    this.exportSlots = new ExportSlots(exportMaxConcurrentPerUser ?? DEFAULT_EXPORT_MAX_CONCURRENT_PER_USER);
    this.jobQueuesPerOrganization = jobQueuesPerOrganization ?? queuesPerOrganization(0);
    this.modules = new ModuleRegistry(resources, modules);
    Object.assign(this, dependencies);
    for (const module of modules) {
      for (const [name, make] of Object.entries(module.defaults ?? {}) as [keyof ModuleDependencies, () => unknown][]) {
        if ((this as Record<string, unknown>)[name] === undefined) (this as Record<string, unknown>)[name] = make();
      }
    }
    for (const resource of resources) {
      const service = new ResourceService({ ...(resource as Resource<BaseEntity>), rules: this.modules.rulesOf(resource.entity as EntityClass<BaseEntity>) });
      this.byPath.set(resource.path, service);
      this.byEntity.set(resource.entity, service);
    }
  }

  /** The read connections each user's requests hold together (see connection-shares.ts). */
  readonly connectionShares: ConnectionShares;

  /** A new API request's budget; `user`'s requests share their connections. */
  requestBudget(user: string): RequestBudget {
    return new RequestBudget(this.requestLimits, { shares: this.connectionShares, user });
  }

  resource(path: string): ResourceService {
    const service = this.byPath.get(path);
    if (!service) throw new Error(`no resource registered at ${path}`);
    return service;
  }

  forEntity<T extends object>(entity: EntityClass<T>): ResourceService<T & BaseEntity> | undefined {
    return this.byEntity.get(entity) as ResourceService<T & BaseEntity> | undefined;
  }

  /** The owner of a job about `subject` in the organization: which of its queues the job waits in. */
  jobOwner(organizationId: string, subject: string): JobOwner {
    return { organizationId, subject, queues: this.jobQueuesPerOrganization };
  }
}
