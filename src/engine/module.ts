import type { EntityClass } from '@mikro-orm/core';
import type { RequestContext } from './context';
import type { ResourceRules } from './resource-rules';
import type { ModuleDependencies } from './services';

/** A domain operation's behaviour: the row its path names (if any) and its checked body (a read: its list arguments). */
export type OperationHandler = (ctx: RequestContext, id: string | undefined, input: Record<string, unknown>, params: Record<string, string>) => Promise<object>;

/** One entity's business rules, as a module registers them. */
export interface RulesEntry {
  entity: EntityClass<object>;
  rules: ResourceRules<object>;
}

/**
 * A domain as the engine runs it: the business rules of its resources, the behaviour of its operations
 * (by operationId of the operation catalogue), and defaults for the dependencies it declared on
 * `Services` (see ModuleDependencies). The engine knows modules only through this shape.
 */
export interface PlatformModule {
  name: string;
  rules?: RulesEntry[];
  operations?: Record<string, OperationHandler>;
  defaults?: { [K in keyof ModuleDependencies]?: () => ModuleDependencies[K] };
}

/** One entity's rules; the signature keeps the rules of one entity from being filed under another. */
export function rulesOf<T extends object>(entity: EntityClass<T>, rules: ResourceRules<T>): RulesEntry {
  return { entity, rules: rules as ResourceRules<object> };
}
