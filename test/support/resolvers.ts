import { parse, print, type FieldNode, type OperationDefinitionNode } from 'graphql';

/**
 * The same query sent to the resolvers: a directive anywhere sends a query to them (the database
 * writes the answers of the others), here `@include(if: true)` on the first root field.
 */
export function byResolvers(text: string): string {
  const document = parse(text);
  const operation = document.definitions[0] as OperationDefinitionNode;
  const [first, ...others] = operation.selectionSet.selections as FieldNode[];
  const directive = parse('{ a @include(if: true) }').definitions[0] as OperationDefinitionNode;
  const directed = { ...first, directives: (directive.selectionSet.selections[0] as FieldNode).directives };
  return print({
    ...document,
    definitions: [{ ...operation, selectionSet: { ...operation.selectionSet, selections: [directed, ...others] } }, ...document.definitions.slice(1)],
  });
}
