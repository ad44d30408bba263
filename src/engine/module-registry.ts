import type { EntityClass } from '@mikro-orm/core';
import { operations as catalogue } from '../catalog/operations';
import type { Resource } from '../model/resource';
import type { OperationHandler, PlatformModule } from './module';
import { combineRules, type ResourceRules } from './resource-rules';

/**
 * What the modules registered, checked once when the services are built (at start-up): every
 * operation of the catalogue has exactly one handler, no handler names an operation the catalogue does
 * not declare, and every set of rules belongs to a registered resource. A slip fails the start, not the
 * first request that meets it.
 */
export class ModuleRegistry {
  private readonly rules = new Map<EntityClass<object>, ResourceRules<object>>();
  private readonly handlers = new Map<string, OperationHandler>();

  constructor(resources: readonly Resource[], modules: readonly PlatformModule[], operationIds: readonly string[] = catalogue.map((o) => o.operationId)) {
    const entities = new Set(resources.map((resource) => resource.entity as EntityClass<object>));
    const declared = new Set(operationIds);
    const owners = new Map<string, string>();
    const parts = new Map<EntityClass<object>, ResourceRules<object>[]>();
    for (const module of modules) {
      for (const { entity, rules } of module.rules ?? []) {
        if (!entities.has(entity)) throw new Error(`module ${module.name} registers rules for ${entity.name}, which no registered resource serves`);
        parts.set(entity, [...(parts.get(entity) ?? []), rules]);
      }
      for (const [operationId, handler] of Object.entries(module.operations ?? {})) {
        if (!declared.has(operationId))
          throw new Error(`module ${module.name} handles operation ${operationId}, which the operation catalogue does not declare`);
        const owner = owners.get(operationId);
        if (owner) throw new Error(`operation ${operationId} is handled by modules ${owner} and ${module.name}`);
        owners.set(operationId, module.name);
        this.handlers.set(operationId, handler);
      }
    }
    const unhandled = operationIds.filter((id) => !this.handlers.has(id));
    if (unhandled.length) throw new Error(`no module handles operation${unhandled.length > 1 ? 's' : ''} ${unhandled.join(', ')}`);
    // Several modules may add rules to one resource: they run in the order the modules are listed.
    for (const [entity, sets] of parts) this.rules.set(entity, sets.length === 1 ? sets[0] : combineRules(...sets));
  }

  /** The rules of a resource (none: the generic behaviour alone). */
  rulesOf<T extends object>(entity: EntityClass<T>): ResourceRules<T> {
    // Registered by rulesOf under their own entity: the rules found are the entity's.
    return (this.rules.get(entity as EntityClass<object>) ?? {}) as ResourceRules<T>;
  }

  handler(operationId: string): OperationHandler {
    const handler = this.handlers.get(operationId);
    // Unreachable for a catalogue operation: the constructor refused to start without one.
    if (!handler) throw new Error(`no behaviour bound to operation ${operationId}`);
    return handler;
  }
}
