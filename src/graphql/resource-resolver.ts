import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Args, Ctx, FieldResolver, ID, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import { NotFoundError } from '../errors/api-error';
import { collectionNamesOf, type FieldMeta } from '../model/fields';
import type { Resource } from '../model/resource';
import { relationDescription } from '../model/descriptions';
import { summarizePage, type PageResult } from '../engine/page';
import type { GraphqlContext } from './context';
import { contentColumns } from './selection';
import { ListArgs, typesOf } from './types';

/** A page as GraphQL answers it: the rows under `content` beside the page's summary. */
export function pageOf(result: PageResult<object>) {
  return { content: result.items, ...summarizePage(result) };
}

/** A decorator applied only when `enabled`: the mutations a resource does not have are never declared. */
function when<D extends (...args: never[]) => void>(enabled: boolean, decorator: D): D {
  return (enabled ? decorator : () => undefined) as D;
}

/** Query `{listName}`/`{itemName}` and mutations `create|update|delete{Name}` (those it has) for one resource. */
export function resourceResolver(resource: Resource, resources: readonly Resource[]): Function {
  const { page, createInput, updateInput } = typesOf(resource);
  const { create, update, delete: remove } = resource.operations;
  const parent = resource.parent;

  @Resolver(() => resource.entity)
  class ResourceResolver {
    @Query(() => page, {
      name: resource.listName,
      description: `One page of ${resource.listName} the caller may read (GET /api/${resource.path}), filtered, searched and sorted by the arguments`,
    })
    async list(
      @Args(() => ListArgs) args: ListArgs,
      @Ctx() { ctx }: GraphqlContext,
      @Info() info: GraphQLResolveInfo,
      // A nested collection's list names its parent, as its REST path does.
      @when(parent !== undefined, Arg(parent?.field ?? 'parentId', () => ID, { description: `The ${parent?.field} of every row` })) parentId?: string,
    ) {
      return pageOf(await ctx.services.resource(resource.path).list(ctx, { ...args, columns: contentColumns(info, resource), parentId }));
    }

    @Query(() => resource.entity, { name: resource.itemName, nullable: true, description: `One ${resource.name} by id; null when absent` })
    async item(@Arg('id', () => ID, { description: `The ${resource.name}'s id (UUID)` }) id: string, @Ctx() { ctx }: GraphqlContext) {
      try {
        return await ctx.services.resource(resource.path).get(ctx, id);
      } catch (error) {
        if (error instanceof NotFoundError) return null;
        throw error;
      }
    }

    @when(
      create,
      Mutation(() => resource.entity, {
        name: `create${resource.name}`,
        description: `Creates a ${resource.name} (POST /api/${resource.path}) and answers it`,
      }),
    )
    create(@when(create, Arg('input', () => createInput, { description: `The new ${resource.name}'s fields` })) input: object, @Ctx() { ctx }: GraphqlContext) {
      return ctx.services.resource(resource.path).create(ctx, { ...input });
    }

    @when(
      update,
      Mutation(() => resource.entity, {
        name: `update${resource.name}`,
        description: `Updates a ${resource.name} (PUT /api/${resource.path}/{id}) and answers it`,
      }),
    )
    update(
      @when(update, Arg('id', () => ID, { description: `The ${resource.name}'s id (UUID)` })) id: string,
      @when(update, Arg('input', () => updateInput, { description: 'The fields to write; the others are left unchanged' })) input: object,
      @Ctx() { ctx }: GraphqlContext,
    ) {
      return ctx.services.resource(resource.path).update(ctx, id, { ...input });
    }

    @when(
      remove,
      Mutation(() => Boolean, {
        name: `delete${resource.name}`,
        description: `Deletes a ${resource.name} (DELETE /api/${resource.path}/{id}); true once deleted`,
      }),
    )
    async remove(@when(remove, Arg('id', () => ID, { description: `The ${resource.name}'s id (UUID)` })) id: string, @Ctx() { ctx }: GraphqlContext) {
      await ctx.services.resource(resource.path).delete(ctx, id);
      return true;
    }
  }
  Object.defineProperty(ResourceResolver, 'name', { value: `${resource.name}Resolver` });
  addReferenceFields(ResourceResolver, resource);
  addCollectionFields(ResourceResolver, resource, resources);
  return ResourceResolver;
}

/** Declares a field resolver method on a generated resolver class. */
function defineFieldResolver(
  resolver: Function,
  method: string,
  implementation: (...args: never[]) => unknown,
  declare: (prototype: object, method: string, descriptor: PropertyDescriptor) => void,
): void {
  const prototype = resolver.prototype as Record<string, unknown>;
  prototype[method] = implementation;
  declare(prototype, method, Object.getOwnPropertyDescriptor(prototype, method)!);
}

/** `Project.organization`: each reference served as its object, batched per request. */
function addReferenceFields(resolver: Function, resource: Resource): void {
  for (const field of resource.fields.filter((f) => f.reference)) {
    const { relation, target } = field.reference!;
    defineFieldResolver(
      resolver,
      `resolve_${relation}`,
      (root: Record<string, unknown>, { ctx }: GraphqlContext) => {
        const id = root[field.name];
        return typeof id === 'string' ? ctx.loaders.byId(target()).load(id) : null;
      },
      (prototype, method, descriptor) => {
        FieldResolver(() => target(), { name: relation, nullable: true, description: relationDescription(field) })(prototype, method, descriptor);
        Root()(prototype, method, 0);
        Ctx()(prototype, method, 1);
      },
    );
  }
}

/** `Organization.projects(...)`: each declared inverse of a reference, a page per parent, batched per request. */
function addCollectionFields(resolver: Function, resource: Resource, resources: readonly Resource[]): void {
  for (const child of resources) {
    for (const field of child.fields) {
      if (field.reference?.target() !== resource.entity) continue;
      for (const inverse of collectionNamesOf(field)) addCollectionField(resolver, resource, child, field, inverse);
    }
  }
}

/** `inverse` on the resolver's type: the page of `child` rows whose `field` names the parent row. */
function addCollectionField(resolver: Function, resource: Resource, child: Resource, field: FieldMeta, inverse: string): void {
  defineFieldResolver(
    resolver,
    `resolve_${inverse}`,
    async (root: { id: string }, args: ListArgs, { ctx }: GraphqlContext, info: GraphQLResolveInfo) => {
      const service = ctx.services.resource(child.path);
      const params = { ...args, columns: contentColumns(info, child) };
      return pageOf(await ctx.loaders.children(service, field.name, params).load(root.id));
    },
    (prototype, method, descriptor) => {
      const description = `One page of the ${child.listName} whose ${field.name} is this ${resource.name}, filtered, searched and sorted by the arguments`;
      FieldResolver(() => typesOf(child).page, { name: inverse, description })(prototype, method, descriptor);
      Root()(prototype, method, 0);
      Args(() => ListArgs)(prototype, method, 1);
      Ctx()(prototype, method, 2);
      Info()(prototype, method, 3);
    },
  );
}
