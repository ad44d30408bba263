import fc from 'fast-check';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { anyValue, edgeNumber, jsonValue, oddString } from './arbitraries';

/**
 * GraphQL requests made from the schema's own names (root fields, their arguments, the fields of what
 * they answer) with argument values right, wrong and at the edges, given as literals or variables of
 * the declared type (or another), and then, for some, spliced with garbage.
 */

export interface GraphqlRequest {
  /** The root type the operation starts from. */
  operation: 'query' | 'mutation';
  /** The root field it asks for. */
  field: string;
  body: { query: string; variables?: unknown; operationName?: unknown };
}

/** Valid names for object keys and aliases in a document (others would not parse). */
const NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A JavaScript value as a GraphQL literal; what has no literal form becomes text that does not parse. */
export function literal(value: unknown, enumLike = false): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return enumLike && NAME.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NaN';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => literal(v)).join(', ')}]`;
  return `{${Object.entries(value as Record<string, unknown>)
    .map(([k, v]) => `${NAME.test(k) ? k : JSON.stringify(k)}: ${literal(v)}`)
    .join(', ')}}`;
}

/** A value for an input of `type`: mostly of its shape (ids of live rows among them), sometimes anything. */
function inputValue(type: GraphQLInputType, ids: readonly string[], depth = 0): fc.Arbitrary<unknown> {
  const wrong = fc.oneof(anyValue, fc.constant(null));
  if (isNonNullType(type)) return fc.oneof({ weight: 15, arbitrary: inputValue(type.ofType, ids, depth) }, { weight: 1, arbitrary: wrong });
  if (isListType(type)) {
    return fc.oneof(
      { weight: 12, arbitrary: fc.array(inputValue(type.ofType, ids, depth + 1), { maxLength: 3 }) },
      { weight: 1, arbitrary: inputValue(type.ofType, ids, depth + 1) },
      { weight: 1, arbitrary: wrong },
    );
  }
  const named = type as GraphQLNamedType;
  let shaped: fc.Arbitrary<unknown>;
  if (isEnumType(named)) {
    shaped = fc.oneof(fc.constantFrom(...named.getValues().map((v) => v.name)), fc.constantFrom(...named.getValues().map((v) => v.name.toLowerCase())));
  } else if (isInputObjectType(named)) {
    if (depth > 3) return fc.constant(null);
    const fields = Object.values(named.getFields());
    shaped = fc
      .tuple(fc.subarray(fields, { maxLength: Math.min(fields.length, 4) }), ...fields.map((f) => inputValue(f.type, ids, depth + 1)))
      .map(([chosen, ...values]) => {
        const object: Record<string, unknown> = {};
        for (const [index, field] of fields.entries()) if (chosen.includes(field)) object[field.name] = values[index];
        return object;
      });
  } else {
    switch (named.name) {
      case 'ID':
        shaped = ids.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ids) }, fc.uuid(), oddString) : fc.oneof(fc.uuid(), oddString);
        break;
      case 'Int':
        shaped = fc.oneof(fc.integer({ min: -3, max: 100 }), edgeNumber);
        break;
      case 'Float':
        shaped = edgeNumber;
        break;
      case 'Boolean':
        shaped = fc.boolean();
        break;
      case 'DateTime':
        shaped = fc.oneof(
          fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
          oddString,
        );
        break;
      case 'JSON':
        shaped = jsonValue;
        break;
      default:
        shaped = fc.oneof({ weight: 6, arbitrary: fc.string({ maxLength: 12 }) }, oddString);
    }
  }
  return fc.oneof({ weight: 12, arbitrary: shaped }, { weight: 1, arbitrary: wrong });
}

/** A selection of `type`'s fields, two levels deep at most below the root field, leaves mostly. */
function selection(type: GraphQLNamedType, depth: number): fc.Arbitrary<string> {
  if (!isObjectType(type)) return fc.constant('');
  const fields = Object.values((type as GraphQLObjectType).getFields());
  const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
  const objects = fields.filter((f) => isObjectType(getNamedType(f.type)));
  const leaf = leaves.length ? fc.constantFrom(...leaves.map((f) => f.name)) : fc.constant('__typename');
  const nested: fc.Arbitrary<string> =
    depth < 2 && objects.length
      ? fc.constantFrom(...objects).chain((f) => selection(getNamedType(f.type), depth + 1).map((inner) => `${f.name} { ${inner || '__typename'} }`))
      : leaf;
  const junk = fc.oneof(
    fc.constantFrom('nope', '__schema { types { name } }', '__type(name: "Query") { name }', 'id @skip(if: true)', 'id @nope', '... on Query { __typename }'),
    oddString,
  );
  return fc
    .array(fc.oneof({ weight: 12, arbitrary: leaf }, { weight: 4, arbitrary: nested }, { weight: 1, arbitrary: junk }), { minLength: 1, maxLength: 4 })
    .map((items) => items.join(' '));
}

/** Garbage spliced into a document: brackets, quotes, spreads, variables, NUL, unpaired surrogates. */
const splice = fc.tuple(
  fc.nat(),
  fc.nat({ max: 6 }),
  fc.string({
    unit: fc.constantFrom(
      '{',
      '}',
      '(',
      ')',
      '[',
      ']',
      '"',
      '"""',
      '$',
      '...',
      '@',
      ':',
      '!',
      '#',
      '\u0000',
      '\ud800',
      ' ',
      'query',
      'fragment F on Query',
      '\\',
    ),
    maxLength: 3,
  }),
);

/** `value` one time in twelve, else undefined. */
function rarely<T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: 11, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value });
}

/**
 * A request for one root field of `root` (Query or Mutation): its arguments given as literals or
 * variables (declared with their type, or another), values right, wrong and at the edges; sometimes
 * spliced with garbage; variables and operationName sometimes not what they must be.
 */
export function graphqlRequest(schema: GraphQLSchema, ids: readonly string[]): fc.Arbitrary<GraphqlRequest> {
  const roots: ['query' | 'mutation', GraphQLField<unknown, unknown>][] = [
    ...Object.values(schema.getQueryType()!.getFields()).map((f) => ['query', f] as ['query', GraphQLField<unknown, unknown>]),
    ...Object.values(schema.getMutationType()!.getFields()).map((f) => ['mutation', f] as ['mutation', GraphQLField<unknown, unknown>]),
  ];
  return fc.constantFrom(...roots).chain(([operation, field]) => {
    const args = field.args;
    const argument = (index: number) => {
      const arg = args[index];
      const declared = arg.type.toString();
      return fc.record({
        how: fc.oneof(
          { weight: 20, arbitrary: fc.constantFrom('literal', 'variable', 'variable', 'omitted') },
          { weight: 1, arbitrary: fc.constant('wrong-variable-type') },
        ),
        value: inputValue(arg.type, ids),
        wrongType: fc.constantFrom('String', 'Int', 'ID!', '[String]', 'JSON', 'Nope', `[${declared}]`),
      });
    };
    return fc
      .record({
        arguments: fc.tuple(...args.map((_, index) => argument(index))),
        selection: selection(getNamedType(field.type), 0),
        named: fc.boolean(),
        operationName: rarely(fc.oneof(fc.constant<unknown>('Op'), oddString, fc.constant<unknown>(5))),
        variablesShape: fc.oneof(
          { weight: 20, arbitrary: fc.constant('object' as const) },
          { weight: 1, arbitrary: fc.constantFrom('array' as const, 'string' as const, 'null' as const) },
        ),
        splice: rarely(splice),
      })
      .map(({ arguments: chosen, selection: inner, named, operationName, variablesShape, splice: garbage }) => {
        const declarations: string[] = [];
        const given: string[] = [];
        const variables: Record<string, unknown> = {};
        for (const [index, arg] of args.entries()) {
          const { how, value, wrongType } = chosen[index];
          if (how === 'omitted') continue;
          if (how === 'literal') {
            given.push(`${arg.name}: ${literal(value, isEnumType(getNamedType(arg.type)))}`);
            continue;
          }
          declarations.push(`$${arg.name}: ${how === 'variable' ? arg.type.toString() : wrongType}`);
          given.push(`${arg.name}: $${arg.name}`);
          variables[arg.name] = value;
        }
        const header = `${operation}${named ? ' Op' : ''}${declarations.length ? `(${declarations.join(', ')})` : ''}`;
        const body = inner ? ` { ${inner} }` : '';
        let query = `${header} { ${field.name}${given.length ? `(${given.join(', ')})` : ''}${body} }`;
        if (garbage) {
          const [at, cut, insert] = garbage;
          const place = at % (query.length + 1);
          query = query.slice(0, place) + insert + query.slice(place + cut);
        }
        const shapedVariables = { object: variables, array: [variables], string: JSON.stringify(variables), null: null }[variablesShape];
        return {
          operation,
          field: field.name,
          body: { query, variables: shapedVariables, ...(operationName === undefined ? {} : { operationName }) },
        };
      });
  });
}
