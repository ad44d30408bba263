import { GraphQLEnumType, GraphQLError, isEnumType, Kind, print, type GraphQLSchema, type ValueNode, type ValidationRule } from 'graphql';
import { notAllowedMessage } from '../engine/input';

/**
 * The input field or argument each literal value of the document being validated was written for;
 * filled while a document is validated (a parent node is entered before its values are checked).
 */
const fieldOfValue = new WeakMap<ValueNode, string>();

/** Records, for each literal value, the argument or input field it was written for. */
export const nameInputValuesRule: ValidationRule = () => {
  const remember = (node: { name: { value: string }; value: ValueNode }) => {
    fieldOfValue.set(node.value, node.name.value);
    if (node.value.kind === Kind.LIST) for (const item of node.value.values) fieldOfValue.set(item, node.name.value);
  };
  return { Argument: remember, ObjectField: remember };
};

function refusal(type: GraphQLEnumType, shown: string, node?: ValueNode): GraphQLError {
  const allowed = type.getValues().map((v) => v.name);
  const field = node && fieldOfValue.get(node);
  const subject = field ? `${field}: ` : '';
  return new GraphQLError(`${subject}${notAllowedMessage(shown, type.name, allowed)}`, { nodes: node });
}

/**
 * Makes every enum of the schema refuse an unknown value with a message that names the field (for
 * literals; graphql names the variable path itself) and lists the allowed values, as REST does.
 */
export function explainEnumRefusals(schema: GraphQLSchema): void {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isEnumType(type) || type.name.startsWith('__')) continue;
    const parseValue = type.parseValue.bind(type);
    type.parseValue = (value: unknown) => {
      if (typeof value === 'string' && type.getValue(value)) return parseValue(value);
      throw refusal(type, JSON.stringify(value) ?? String(value));
    };
    type.parseLiteral = (node: ValueNode) => {
      const value = node.kind === Kind.ENUM ? type.getValue(node.value) : undefined;
      if (value) return value.value;
      throw refusal(type, print(node), node);
    };
  }
}
