import { registerEnumType } from 'type-graphql';

/** A named enumeration: one list of values feeding the database check, GraphQL and OpenAPI. */
export interface EnumDefinition<V extends string = string> {
  name: string;
  values: readonly V[];
  /** The object type-graphql knows this enum by. */
  graphql: Record<string, V>;
}

const registered = new Map<string, EnumDefinition>();

export function defineEnum<const V extends string>(name: string, values: readonly V[]): EnumDefinition<V> {
  const graphql = Object.fromEntries(values.map((v) => [v, v])) as Record<string, V>;
  registerEnumType(graphql, { name });
  const definition: EnumDefinition<V> = { name, values, graphql };
  registered.set(name, definition as EnumDefinition);
  return definition;
}

export function registeredEnums(): EnumDefinition[] {
  return [...registered.values()];
}
