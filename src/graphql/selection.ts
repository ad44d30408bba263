import { Kind, type FieldNode, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import type { Resource } from '../model/resource';

/**
 * The columns a page's `content { ... }` selection needs: the selected fields, the foreign key behind
 * each selected reference, and the id (for collections and loaders). Undefined when the selection
 * cannot be read simply, in which case whole rows are read.
 */
export function contentColumns(info: GraphQLResolveInfo, resource: Resource): string[] | undefined {
  // A collection field is resolved once per parent row, always with the same selection.
  const node = info.fieldNodes[0];
  let columns = columnsByNode.get(node);
  if (!columns) {
    columns = selectedColumns(info, resource);
    columnsByNode.set(node, columns);
  }
  return columns;
}

/** Per parsed selection (documents are parsed once and cached by the server): the columns it needs. */
const columnsByNode = new WeakMap<FieldNode, string[]>();

function selectedColumns(info: GraphQLResolveInfo, resource: Resource): string[] {
  const names = new Set<string>();
  for (const node of info.fieldNodes) {
    for (const page of fieldsOf(node.selectionSet, info)) {
      if (page.name.value === 'content') for (const field of fieldsOf(page.selectionSet, info)) names.add(field.name.value);
    }
  }
  const columns = new Set(['id']);
  for (const field of resource.fields) {
    if (names.has(field.name) || (field.reference && names.has(field.reference.relation))) columns.add(field.name);
  }
  return [...columns];
}

/** The fields of a selection set, fragments included. */
function fieldsOf(selectionSet: SelectionSetNode | undefined, info: GraphQLResolveInfo): FieldNode[] {
  if (!selectionSet) return [];
  return selectionSet.selections.flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsOf(selection.selectionSet, info);
    const fragment = info.fragments[selection.name.value];
    return fragment ? fieldsOf(fragment.selectionSet, info) : [];
  });
}
