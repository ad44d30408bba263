import { registerEnumType } from 'type-graphql';

/** What an enumeration means and what each of its values means: GraphQL and OpenAPI show these texts. */
export interface EnumDocumentation<V extends string> {
  description: string;
  /** One text per value: an enumeration cannot be declared with a value left unexplained. */
  values: Record<V, string>;
}

/** A named enumeration: one list of values feeding the database check, GraphQL and OpenAPI. */
export interface EnumDefinition<V extends string = string> {
  name: string;
  values: readonly V[];
  description: string;
  /** The meaning of each value, by value. */
  valueDescriptions: Record<V, string>;
  /** The object type-graphql knows this enum by. */
  graphql: Record<string, V>;
}

const registered = new Map<string, EnumDefinition>();

export function defineEnum<const V extends string>(name: string, values: readonly V[], documentation: EnumDocumentation<V>): EnumDefinition<V> {
  const graphql = Object.fromEntries(values.map((v) => [v, v])) as Record<string, V>;
  const valuesConfig = Object.fromEntries(values.map((v) => [v, { description: documentation.values[v] }]));
  registerEnumType(graphql, { name, description: documentation.description, valuesConfig });
  const definition: EnumDefinition<V> = { name, values, description: documentation.description, valueDescriptions: documentation.values, graphql };
  registered.set(name, definition as EnumDefinition);
  return definition;
}

export function registeredEnums(): EnumDefinition[] {
  return [...registered.values()];
}

/** An enumeration's OpenAPI text: its description, then each value with its meaning (OpenAPI 3.0 has no per-value description). */
export function enumSchemaDescription(definition: EnumDefinition): string {
  const values = definition.values.map((value) => `- ${value}: ${definition.valueDescriptions[value]}`);
  return [definition.description, '', ...values].join('\n');
}
