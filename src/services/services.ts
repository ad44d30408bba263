import type { EntityClass } from '@mikro-orm/core';
import type { BaseEntity } from '../entities/base';
import type { Resource } from '../model/resource';
import { DEFAULT_MAX_API_KEYS_PER_USER, MAX_AUTH_CACHE_SECONDS } from '../config/config';
import type { ReadPool } from '../database/read-pool';
import type { AiGatewayConfig } from '../config/ai-gateway';
import type { EgressGuard } from '../egress/egress-guard';
import { AccessCache } from './access-cache';
import { ExpressionPool } from './expression-pool';
import { ResourceService } from './resource-service';
import type { AnalyticsEmbedSigner } from './analytics-embed';
import type { DataLake } from './data-lake';
import type { SecretBox } from './secret-box';
import { withRules } from './rules';

/** The service of every registered resource, with its rules, found by path or by entity class. */
export class Services {
  private readonly byPath = new Map<string, ResourceService>();
  private readonly byEntity = new Map<EntityClass<object>, ResourceService>();

  /** Credentials and memberships shared by the requests of this process (see access-cache.ts). */
  readonly accessCache: AccessCache;

  /** The prepared hot reads (see item-statement.ts); without it, every read goes through the ORM. */
  readonly reads?: ReadPool;

  /** Seals organization secrets; without it (tools that never write one) a secret cannot be stored. */
  readonly secrets?: SecretBox;

  /** Where records for analytics go (task locks); without it (tools), none are written. */
  readonly lake?: DataLake;

  /** Signs analytics embed tokens (or answers 503); without it (tools), embed tokens are disabled. */
  readonly analyticsEmbed?: AnalyticsEmbedSigner;

  /** The only way to other services a tenant names (service bridges); without it (tools), none can be called. */
  readonly egress?: EgressGuard;

  /** The providers chat completions go to (through `egress`); without them, none is configured. */
  readonly aiGateway: AiGatewayConfig;

  /** Where users' JSONata is evaluated, within its limits (see expression-pool.ts); without one, a pool of the defaults. */
  readonly expressions: ExpressionPool;

  /** MAX_API_KEYS_PER_USER: live API keys one user may hold. */
  readonly maxApiKeysPerUser: number;

  constructor(
    readonly resources: readonly Resource[],
    options: {
      accessCacheSeconds?: number;
      reads?: ReadPool;
      secrets?: SecretBox;
      lake?: DataLake;
      analyticsEmbed?: AnalyticsEmbedSigner;
      egress?: EgressGuard;
      aiGateway?: AiGatewayConfig;
      expressions?: ExpressionPool;
      maxApiKeysPerUser?: number;
    } = {},
  ) {
    this.accessCache = new AccessCache((options.accessCacheSeconds ?? MAX_AUTH_CACHE_SECONDS) * 1000);
    this.reads = options.reads;
    this.secrets = options.secrets;
    this.lake = options.lake;
    this.analyticsEmbed = options.analyticsEmbed;
    this.egress = options.egress;
    this.aiGateway = options.aiGateway ?? { providers: {} };
    this.expressions = options.expressions ?? new ExpressionPool();
    this.maxApiKeysPerUser = options.maxApiKeysPerUser ?? DEFAULT_MAX_API_KEYS_PER_USER;
    for (const resource of resources) {
      const service = new ResourceService(withRules(resource as Resource<BaseEntity>));
      this.byPath.set(resource.path, service);
      this.byEntity.set(resource.entity, service);
    }
  }

  resource(path: string): ResourceService {
    const service = this.byPath.get(path);
    if (!service) throw new Error(`no resource registered at ${path}`);
    return service;
  }

  forEntity<T extends object>(entity: EntityClass<T>): ResourceService<T & BaseEntity> | undefined {
    return this.byEntity.get(entity) as ResourceService<T & BaseEntity> | undefined;
  }
}
