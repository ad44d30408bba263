import 'reflect-metadata';
import {
  buildSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLSchema,
} from 'graphql';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resources } from '../src/catalog/registry';
import { buildGraphqlSchema } from '../src/graphql/schema';
import { isAnswered } from '../src/model/fields';
import { buildOpenApiDocument } from '../src/openapi/document';

/**
 * Every type, field, argument, input field and enum value of the GraphQL schema a person reads in
 * GraphiQL's documentation pane has a description, and a resource field reads the same in GraphQL
 * and in the OpenAPI document (both derive it from the field's declaration).
 */

/** Every part of the schema without a description, named `Type`, `Type.field`, `Type.field(arg)` or `Enum.VALUE`. */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const check = (description: string | null | undefined, name: string) => {
    if (!description?.trim()) missing.push(name);
  };
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    check(type.description, type.name);
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        check(field.description, `${type.name}.${field.name}`);
        for (const argument of field.args) check(argument.description, `${type.name}.${field.name}(${argument.name})`);
      }
    }
    if (isInputObjectType(type)) for (const field of Object.values(type.getFields())) check(field.description, `${type.name}.${field.name}`);
    if (isEnumType(type)) for (const value of type.getValues()) check(value.description, `${type.name}.${value.name}`);
  }
  return missing;
}

const committedSchema = () => buildSchema(readFileSync(new URL('../schema/schema.graphql', import.meta.url), 'utf8'));

describe('GraphQL descriptions', () => {
  it('finds every undescribed part of a schema, and passes a fully described one', () => {
    const sdl = `
      """Reads"""
      type Query {
        """A thing"""
        thing(id: ID!, """The filter""" filter: String): Thing
      }
      type Thing { name: String, """Described""" size: Int }
      input ThingInput { name: String }
      """Colours"""
      enum Colour { RED, """Green""" GREEN }
      scalar Stamp
    `;
    expect(undescribed(buildSchema(sdl)).sort()).toEqual(
      ['Colour.RED', 'Query.thing(id)', 'Stamp', 'Thing', 'Thing.name', 'ThingInput', 'ThingInput.name'].sort(),
    );
    const described = `
      """Reads"""
      type Query { """A thing""" thing("""Its id""" id: ID!): Thing }
      """A thing"""
      type Thing { """Its name""" name: String }
    `;
    expect(undescribed(buildSchema(described))).toEqual([]);
  });

  it('describes every type, field, argument, input field and enum value of the served schema', () => {
    expect(undescribed(buildGraphqlSchema(resources))).toEqual([]);
  });

  it('describes every part of the committed schema/schema.graphql', () => {
    const schema = committedSchema();
    expect(Object.keys(schema.getTypeMap()).length).toBeGreaterThan(200);
    expect(undescribed(schema)).toEqual([]);
  });
});

describe('the same text in GraphQL and OpenAPI', () => {
  const graphql = buildGraphqlSchema(resources);
  const openapi = buildOpenApiDocument(resources) as { components: { schemas: Record<string, any> } };
  const schemas = openapi.components.schemas;

  it('gives each resource type and each of its answered fields the same description in both', () => {
    for (const resource of resources) {
      const type = graphql.getType(resource.name);
      if (!isObjectType(type)) throw new Error(`${resource.name} is not an object type`);
      const component = schemas[resource.name];
      expect(component.description, resource.name).toBe(type.description);
      const fields = type.getFields();
      for (const field of resource.fields.filter(isAnswered)) {
        const at = `${resource.name}.${field.name}`;
        expect(fields[field.name]?.description, at).toMatch(/\S/);
        expect(component.properties[field.name]?.description, at).toBe(fields[field.name].description);
        // An embedded reference's object reads the same in both.
        const relation = field.reference?.embed ? field.reference.relation : undefined;
        if (relation) expect(component.properties[relation].description, `${resource.name}.${relation}`).toBe(fields[relation].description);
      }
    }
  });

  it('gives each create and update input field the same description as its request schema property', () => {
    let compared = 0;
    for (const resource of resources) {
      for (const suffix of ['CreateRequest', 'UpdateRequest']) {
        const input = graphql.getType(`${resource.name}${suffix}`);
        const component = schemas[`${resource.name}${suffix}`];
        if (!input && !component) continue;
        if (!isInputObjectType(input)) throw new Error(`${resource.name}${suffix} is not an input type`);
        expect(component.description, `${resource.name}${suffix}`).toBe(input.description);
        for (const [name, property] of Object.entries<{ description?: string }>(component.properties)) {
          const field = input.getFields()[name];
          // REST alone takes a reference as an object ({id}), and a nested collection's parent from its path.
          if (!field) continue;
          expect(property.description, `${resource.name}${suffix}.${name}`).toBe(field.description);
          compared += 1;
        }
      }
    }
    expect(compared).toBeGreaterThan(500);
  });

  it('gives the page fields the same descriptions in both, and input fields the same text as the type field they write', () => {
    const page = graphql.getType('TaskPage');
    if (!isObjectType(page)) throw new Error('TaskPage is not an object type');
    for (const [name, field] of Object.entries(page.getFields())) {
      expect(schemas.TaskPage.properties[name].description, `TaskPage.${name}`).toBe(field.description);
    }
    const task = graphql.getType('Task');
    const create = graphql.getType('TaskCreateRequest');
    if (!isObjectType(task) || !isInputObjectType(create)) throw new Error('Task types missing');
    for (const [name, field] of Object.entries(create.getFields())) expect(field.description, name).toBe(task.getFields()[name].description);
  });

  it("lists each enum value's GraphQL description in the OpenAPI enumeration's text", () => {
    const status = graphql.getType('TaskStatusType');
    if (!isEnumType(status)) throw new Error('TaskStatusType is not an enum');
    for (const value of status.getValues()) {
      expect(value.description, value.name).toMatch(/\S/);
      expect(schemas.TaskStatusType.description).toContain(`- ${value.name}: ${value.description}`);
    }
  });
});
