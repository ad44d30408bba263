import { raw } from '@mikro-orm/core';
import { isDeepStrictEqual } from 'node:util';
import { DataObject } from '../../entities/data-object';
import { LinkedDelta } from '../../entities/linked-delta';
import { BadRequestError, type FieldIssue } from '../../errors/api-error';
import { fieldsOf, type FieldMeta } from '../../model/fields';
import { isUuid } from '../../model/uuid';
import type { RequestContext } from '../../engine/context';
import { checkValue, isPlainObject } from '../../engine/input';
import type { ResourceRules } from '../../engine/resource-rules';

/**
 * Linked deltas (docs/operations.md): creating one applies its operations to its family's data
 * objects, in order, in the create's transaction. An operation naming a data object the family does not
 * have (also one deleted earlier in the delta) is dropped and reported; the delta's state says how much applied.
 */

type DeltaOperation =
  | { op: 'create'; id?: string; parentId?: string | null; path: string; taxonomyRef?: string; attributes: Record<string, unknown> }
  | { op: 'update'; id: string; attributes: Record<string, unknown> }
  | { op: 'delete'; id: string };

interface Outcome {
  state: 'APPLIED' | 'APPLIED_PARTIAL' | 'FAILED';
  errorMessage: string | null;
}

const OPS = ['create', 'update', 'delete'];

export const linkedDeltaRules: ResourceRules<LinkedDelta> = {
  /** A malformed operation is refused (400 naming it) before anything is written. */
  async beforeCreate(_tx, values) {
    parseOperations(values.operations ?? []);
  },
  /**
   * Applied once the delta's family has been checked (it exists, and the caller may write into its
   * organization). The outcome is written to the new row and to the answer the create returns.
   */
  async afterCreate(tx, delta) {
    const outcome = await applyOperations(tx, delta.documentFamilyId, parseOperations(delta.operations));
    await tx.em.nativeUpdate(LinkedDelta, { id: delta.id }, outcome);
    Object.assign(delta, outcome);
  },
};

/** The operations checked one by one; every problem is reported at once, named `operations[i].field`. */
function parseOperations(operations: unknown[]): DeltaOperation[] {
  const issues: FieldIssue[] = [];
  const parsed = operations.map((operation, index) => parseOperation(operation, `operations[${index}]`, issues));
  if (issues.length) throw BadRequestError.forFields(issues);
  return parsed as DeltaOperation[];
}

function parseOperation(operation: unknown, name: string, issues: FieldIssue[]): DeltaOperation | undefined {
  if (!isPlainObject(operation)) {
    issues.push({ field: name, message: 'must be a JSON object' });
    return undefined;
  }
  if (typeof operation.op !== 'string' || !OPS.includes(operation.op)) {
    issues.push({ field: `${name}.op`, message: `must be one of ${OPS.join(', ')}` });
    return undefined;
  }
  const read = (field: string, required: boolean) => readField(operation, field, required, name, issues);
  switch (operation.op) {
    case 'create':
      return {
        op: 'create',
        id: read('id', false),
        parentId: read('parentId', false),
        path: read('path', true),
        taxonomyRef: read('taxonomyRef', false),
        attributes: read('attributes', true),
      } as DeltaOperation;
    case 'update':
      return { op: 'update', id: read('id', true), attributes: read('attributes', true) } as DeltaOperation;
    default:
      return { op: 'delete', id: read('id', true) } as DeltaOperation;
  }
}

const DATA_OBJECT_FIELDS = new Map<string, FieldMeta>(fieldsOf(DataObject).map((f) => [f.name, f]));

/** One field of an operation, checked as the data-object field of that name is in a body (the id as a UUID). */
function readField(operation: Record<string, unknown>, field: string, required: boolean, name: string, issues: FieldIssue[]): unknown {
  const value = operation[field];
  if (value === undefined || (value === null && field !== 'parentId')) {
    if (required) issues.push({ field: `${name}.${field}`, message: 'is required' });
    return undefined;
  }
  if (field === 'id') {
    if (isUuid(value)) return value.toLowerCase();
    issues.push({ field: `${name}.id`, message: 'must be a UUID' });
    return undefined;
  }
  const checked = checkValue(DATA_OBJECT_FIELDS.get(field)!, value);
  if ('issue' in checked) issues.push({ field: `${name}.${field}`, message: checked.issue });
  return 'value' in checked ? checked.value : undefined;
}

/** What the delta's operations may refer to: the family's data objects (with their attributes) and ids taken elsewhere. */
interface Known {
  inFamily: Map<string, Record<string, unknown>>;
  taken: Set<string>;
}

async function applyOperations(tx: RequestContext, familyId: string, operations: DeltaOperation[]): Promise<Outcome> {
  const known = await knownObjects(tx, familyId, operations);
  const dropped: string[] = [];
  for (const [index, operation] of operations.entries()) {
    const cause = await applyOne(tx, familyId, operation, known);
    if (cause) dropped.push(`operation ${index} (${operation.op}): ${cause}`);
  }
  const applied = operations.length - dropped.length;
  // No operations at all is a delta fully applied: nothing was dropped.
  const state = dropped.length === 0 ? 'APPLIED' : applied > 0 ? 'APPLIED_PARTIAL' : 'FAILED';
  return { state, errorMessage: dropped.length ? dropped.join('; ') : null };
}

/** Applies one operation; answers why it was dropped, or nothing when it applied. */
async function applyOne(tx: RequestContext, familyId: string, operation: DeltaOperation, known: Known): Promise<string | undefined> {
  switch (operation.op) {
    case 'create': {
      const { id, parentId } = operation;
      if (parentId && !known.inFamily.has(parentId)) return `parent data object ${parentId} not found`;
      if (id && (known.inFamily.has(id) || known.taken.has(id))) return `data object ${id} already exists`;
      const created = await tx.services.forEntity(DataObject)!.record(tx, {
        ...(id ? { id } : {}),
        documentFamilyId: familyId,
        parentId: parentId ?? null,
        path: operation.path,
        ...(operation.taxonomyRef !== undefined ? { taxonomyRef: operation.taxonomyRef } : {}),
        attributes: operation.attributes,
      });
      known.inFamily.set(created.id, operation.attributes);
      return undefined;
    }
    case 'update': {
      const current = known.inFamily.get(operation.id);
      if (!current) return `data object ${operation.id} not found`;
      // As a PUT of the attributes: they are replaced, and the change sequence moves only when they change.
      if (isDeepStrictEqual(current, operation.attributes)) return undefined;
      await tx.em.nativeUpdate(
        DataObject,
        { id: operation.id },
        { attributes: operation.attributes, changeSequence: raw('change_sequence + 1'), updatedOn: new Date() },
      );
      known.inFamily.set(operation.id, operation.attributes);
      return undefined;
    }
    case 'delete': {
      if (!known.inFamily.has(operation.id)) return `data object ${operation.id} not found`;
      for (const removed of await deleteSubtree(tx, operation.id)) known.inFamily.delete(removed);
      return undefined;
    }
  }
}

/**
 * The data objects the operations name, read in one statement: those of the family with their
 * attributes, and the ids that belong to another family (a create may not reuse them).
 */
async function knownObjects(tx: RequestContext, familyId: string, operations: DeltaOperation[]): Promise<Known> {
  const named = new Set<string>();
  for (const operation of operations) {
    if (operation.op !== 'create' || operation.id) named.add(operation.id!);
    if (operation.op === 'create' && operation.parentId) named.add(operation.parentId);
  }
  const known: Known = { inFamily: new Map(), taken: new Set() };
  if (named.size === 0) return known;
  const rows = await tx.em
    .getConnection()
    .execute<{ id: string; document_family_id: string; attributes: Record<string, unknown> }[]>(
      'select id, document_family_id, attributes from data_object where id = any(?::uuid[])',
      [`{${[...named].join(',')}}`],
      'all',
      tx.em.getTransactionContext(),
    );
  for (const row of rows) {
    if (row.document_family_id === familyId) known.inFamily.set(row.id, row.attributes);
    else known.taken.add(row.id);
  }
  return known;
}

/** Removes a data object and its descendants (as the foreign key's cascade would), answering every id removed. */
async function deleteSubtree(tx: RequestContext, id: string): Promise<string[]> {
  const rows = await tx.em.getConnection().execute<{ id: string }[]>(
    `with recursive subtree as (
       select id from data_object where id = ?
       union all
       select child.id from data_object child join subtree on child.parent_id = subtree.id
     )
     delete from data_object where id in (select id from subtree) returning id`,
    [id],
    'all',
    tx.em.getTransactionContext(),
  );
  return rows.map((row) => row.id);
}
