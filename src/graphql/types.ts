import { ArgsType, Extensions, Field, Float, ID, InputType, Int, ObjectType } from 'type-graphql';
import type { FieldMeta } from '../model/fields';
import type { Resource } from '../model/resource';
import { DateTimeScalar, JSONScalar } from '../model/scalars';
import { isWritable, type WriteMode } from '../engine/input';
import { defaultPageSize } from '../query/paging';
import { CHANGE_SEQUENCE_TOKEN, createRequestDescription, LIST_ARGUMENTS, PAGE_FIELDS, pageDescription, updateRequestDescription } from '../model/descriptions';

type ClassType = new () => object;

/** Arguments of every list query and to-many relation field. */
@ArgsType()
export class ListArgs {
  @Field(() => Int, { nullable: true, description: LIST_ARGUMENTS.page })
  page?: number;

  @Field(() => Int, { nullable: true, description: LIST_ARGUMENTS.pageSize })
  pageSize?: number;

  @Field(() => String, { nullable: true, description: LIST_ARGUMENTS.filter })
  filter?: string;

  @Field(() => String, { nullable: true, description: LIST_ARGUMENTS.query })
  query?: string;

  @Field(() => String, { nullable: true, description: LIST_ARGUMENTS.sort })
  sort?: string;
}

export interface ResourceTypes {
  page: ClassType;
  createInput: ClassType;
  updateInput: ClassType;
}

const built = new Map<Resource, ResourceTypes>();

/** The page and input types of a resource, derived from its field declarations (built once). */
export function typesOf(resource: Resource): ResourceTypes {
  let types = built.get(resource);
  if (!types) {
    types = { page: pageType(resource), createInput: inputType(resource, 'create'), updateInput: inputType(resource, 'update') };
    built.set(resource, types);
  }
  return types;
}

function namedClass(name: string): ClassType {
  // A distinct class per type: type-graphql keys its metadata by class.
  return { [name]: class {} }[name] as ClassType;
}

function pageType(resource: Resource): ClassType {
  const Page = namedClass(`${resource.name}Page`);
  ObjectType(`${resource.name}Page`, { description: pageDescription(resource.listName), simpleResolvers: true })(Page);
  // The cost estimate of a list that names no pageSize counts the rows it will answer (see limits.ts).
  Extensions({ defaultPageSize: defaultPageSize(resource.paging) })(Page);
  const field = (name: keyof typeof PAGE_FIELDS, type: () => unknown) =>
    Field(type as () => typeof Int, { description: PAGE_FIELDS[name] })(Page.prototype, name);
  field('content', () => [resource.entity]);
  field('totalElements', () => Int);
  field('totalPages', () => Int);
  field('number', () => Int);
  field('size', () => Int);
  field('numberOfElements', () => Int);
  field('first', () => Boolean);
  field('last', () => Boolean);
  return Page;
}

function inputType(resource: Resource, mode: WriteMode): ClassType {
  const name = `${resource.name}${mode === 'create' ? 'Create' : 'Update'}Request`;
  const Input = namedClass(name);
  const description = mode === 'create' ? createRequestDescription(resource.name, resource.path) : updateRequestDescription(resource.name, resource.path);
  InputType(name, { description })(Input);
  for (const field of resource.fields.filter((f) => isWritable(f, mode))) {
    const required = mode === 'create' && field.options.required === true;
    Field(graphqlInputType(field) as () => typeof String, { nullable: !required, description: field.options.description })(Input.prototype, field.name);
  }
  if (mode === 'update') {
    Field(() => Int, { nullable: true, description: CHANGE_SEQUENCE_TOKEN })(Input.prototype, 'changeSequence');
  }
  return Input;
}

function graphqlInputType(field: FieldMeta): () => unknown {
  switch (field.kind) {
    case 'string':
      return () => String;
    case 'boolean':
      return () => Boolean;
    case 'int':
      return () => Int;
    case 'number':
      return () => Float;
    case 'dateTime':
      return () => DateTimeScalar;
    case 'json':
      return () => JSONScalar;
    case 'enum':
      return () => field.enum!.graphql;
    case 'stringArray':
      return () => [String];
    case 'id':
    case 'reference':
      return () => ID;
  }
}
