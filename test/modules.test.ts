import { describe, expect, it } from 'vitest';
import { resources } from '../src/catalog/registry';
import { operations } from '../src/catalog/operations';
import { Services } from '../src/engine/services';
import { ModuleRegistry } from '../src/engine/module-registry';
import type { PlatformModule } from '../src/engine/module';
import { Organization, Task } from '../src/entities';
import { modules } from '../src/modules';

/** The modules with one of them changed by `change`. */
function withChanged(name: string, change: (module: PlatformModule) => PlatformModule): PlatformModule[] {
  return modules.map((module) => (module.name === name ? change(module) : module));
}

describe('domain modules registered with the engine', () => {
  it('handle every operation of the catalogue exactly once, and the services start with them', () => {
    const registry = new ModuleRegistry(resources, modules);
    for (const operation of operations) expect(typeof registry.handler(operation.operationId), operation.operationId).toBe('function');
    const handled = modules.flatMap((module) => Object.keys(module.operations ?? {}));
    expect([...handled].sort()).toEqual(operations.map((o) => o.operationId).sort());
    expect(new Services(resources, modules).resource('projects').resource.rules.beforeCreate).toBeTypeOf('function');
  });

  it('refuse to start when an operation of the catalogue has no handler, naming it', () => {
    const without = withChanged('tasks', ({ operations: handlers, ...rest }) => {
      const { lockTask: _dropped, ...others } = handlers ?? {};
      return { ...rest, operations: others };
    });
    expect(() => new Services(resources, without)).toThrow('no module handles operation lockTask');
  });

  it('refuse a handler for an operation the catalogue does not declare', () => {
    const extra = withChanged('ai', (module) => ({ ...module, operations: { ...module.operations, summarizeTask: async () => ({}) } }));
    expect(() => new Services(resources, extra)).toThrow('module ai handles operation summarizeTask, which the operation catalogue does not declare');
  });

  it('refuse one operation handled by two modules', () => {
    const twice = withChanged('ai', (module) => ({ ...module, operations: { ...module.operations, lockTask: async () => ({}) } }));
    expect(() => new Services(resources, twice)).toThrow('operation lockTask is handled by modules tasks and ai');
  });

  it('refuse rules for an entity no registered resource serves', () => {
    const served = resources.filter((resource) => resource.entity !== Task);
    expect(() => new Services(served, modules)).toThrow('module tasks registers rules for Task, which no registered resource serves');
  });

  it('run the rules two modules add to one resource in the order of the list', async () => {
    const order: string[] = [];
    const first: PlatformModule = { name: 'first', rules: [{ entity: Organization, rules: { beforeCreate: async () => void order.push('first') } }] };
    const second: PlatformModule = { name: 'second', rules: [{ entity: Organization, rules: { beforeCreate: async () => void order.push('second') } }] };
    const registry = new ModuleRegistry(resources, [first, second], []);
    await registry.rulesOf(Organization).beforeCreate!(undefined as never, {}, {});
    expect(order).toEqual(['first', 'second']);
  });
});
