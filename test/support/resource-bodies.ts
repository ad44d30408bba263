import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { Organization } from '../../src/entities';
import { implicitDefault, type FieldMeta } from '../../src/model/fields';
import { collectionPath, type Resource } from '../../src/model/resource';
import { resources } from '../../src/catalog/registry';
import { unique, type TestServer } from './server';

/**
 * Valid create bodies for any registered resource, derived from its field declarations alone, so that a
 * resource added to the registry is covered by the suites using these helpers without new test code.
 */

export interface BodyOptions {
  /** The organization every reference to Organization points at (and every created parent lives in). */
  organizationId: string;
  /** API key of the caller who creates the referenced records (the administrator's when omitted). */
  key?: string;
  /** User every reference to PlatformUser points at; a new user is created (as administrator) otherwise. */
  userId?: string;
  /** Fields written as given instead of generated. */
  overrides?: Record<string, unknown>;
}

/** How deep referenced records are created before giving up (a guard against reference cycles). */
const MAX_DEPTH = 6;

export function resourceOf(entity: unknown): Resource | undefined {
  return resources.find((r) => r.entity === entity);
}

export function resourceByPath(path: string): Resource {
  const found = resources.find((r) => r.path === path);
  if (!found) throw new Error(`no registered resource ${path}`);
  return found;
}

export function isCreateWritable(field: FieldMeta): boolean {
  const writable = field.options.writable ?? 'always';
  return writable === 'always' || writable === 'create';
}

export function isUpdateWritable(field: FieldMeta): boolean {
  return (field.options.writable ?? 'always') === 'always';
}

/** Whether the create body must carry the field (the server rejects it otherwise). */
function mustSend(field: FieldMeta): boolean {
  return field.options.required === true;
}

/** A unique text that satisfies the field's pattern and length bounds. */
export function uniqueString(field: FieldMeta, prefix = field.name): string {
  const base = unique(prefix.replace(/[^a-z0-9]/gi, '').toLowerCase() || 'x');
  const { minLength = 0, maxLength = Infinity, pattern } = field.options;
  const candidates = [
    base,
    base.toLowerCase().replace(/[^a-z0-9-]/g, '-'),
    `${base.toLowerCase().replace(/[^a-z0-9-]/g, '-')}@example.test`,
    base.toUpperCase().replace(/[^A-Z0-9]/g, '_'),
    base.replace(/[^a-z0-9]/gi, ''),
    base.replace(/[^a-z0-9]/gi, '').toUpperCase(),
    `https://example.test/${base}`,
  ];
  for (const candidate of candidates) {
    let value = candidate;
    if (value.length < minLength) value = value + 'x'.repeat(minLength - value.length);
    // Keep the random tail (the distinctive part) when the value must be shortened.
    if (value.length > maxLength) value = value.slice(value.length - maxLength);
    if (value.length >= minLength && value.length <= maxLength && (!pattern || pattern.test(value))) return value;
  }
  throw new Error(`cannot generate a value for ${field.name} matching ${pattern?.source ?? ''} (${minLength}-${maxLength})`);
}

/** A valid scalar value of the field's kind (references are not handled here). */
export function scalarValue(field: FieldMeta): unknown {
  const { min, max } = field.options;
  switch (field.kind) {
    case 'string':
      return uniqueString(field);
    case 'boolean':
      return true;
    case 'int':
    case 'number':
      return Math.min(Math.max(1, min ?? 1), max ?? Number.MAX_SAFE_INTEGER);
    case 'dateTime':
      return new Date(Date.now() + 30 * 24 * 3600 * 1000).toISOString();
    case 'json':
      return field.options.schema?.type === 'array' ? [] : {};
    case 'stringArray':
      return [unique('item')];
    case 'enum':
      return field.enum!.values[0];
    case 'id':
      return randomUUID();
    case 'reference':
      throw new Error(`${field.name} is a reference`);
  }
}

/** Creates a user as the administrator and returns its JSON. */
export async function createUser(server: TestServer, body: Record<string, unknown> = {}) {
  const answer = await server.request('POST', '/api/users', { body: { email: `${unique('user')}@example.test`, ...body } });
  expect(answer.status, answer.text).toBe(201);
  return answer.body;
}

/**
 * The id a reference field takes: the given organization for Organization, the given (or a new) user for
 * PlatformUser, and otherwise a record of the target resource created through the API inside the
 * organization (recursively, with its own references).
 */
async function referencedId(server: TestServer, field: FieldMeta, options: BodyOptions, depth: number): Promise<string> {
  const target = field.reference!.target();
  if (target === Organization) return options.organizationId;
  const resource = resourceOf(target);
  if (!resource) throw new Error(`${field.name} refers to ${target.name}, which is not a registered resource`);
  if (resource.path === 'users' && options.userId) return options.userId;
  // The overrides are the outer body's: a parent created on the way keeps its own generated values.
  const created = await createRecord(server, resource, { ...options, overrides: undefined }, depth + 1);
  return created.id as string;
}

/**
 * Values a resource's rules require beyond its field declarations, by collection path: a trigger
 * listens to a known event kind and names a live activity plan of its organization by slug.
 */
const RULE_VALUES: Record<string, (server: TestServer, options: BodyOptions, depth: number) => Promise<Record<string, unknown>>> = {
  async triggers(server, options, depth) {
    const plan = await createRecord(server, resourceByPath('activity-plans'), { ...options, overrides: undefined }, depth + 1);
    const organization = await server.request('GET', `/api/organizations/${options.organizationId}`, { key: options.key });
    expect(organization.status, organization.text).toBe(200);
    return { eventKind: 'task_created', activityPlanRef: `activity-plan://${organization.body.slug}/${plan.slug}` };
  },
};

/**
 * A valid create body for `resource` inside `options.organizationId`: every required field with a
 * unique or valid value (and those its rules require, RULE_VALUES), referenced records created through
 * the API first.
 */
export async function buildCreateBody(server: TestServer, resource: Resource, options: BodyOptions, depth = 0): Promise<Record<string, unknown>> {
  if (depth > MAX_DEPTH) throw new Error(`references nest deeper than ${MAX_DEPTH} levels at ${resource.path}`);
  const body: Record<string, unknown> = {};
  for (const field of resource.fields) {
    if (!isCreateWritable(field)) continue;
    if (options.overrides && Object.hasOwn(options.overrides, field.name)) {
      body[field.name] = options.overrides[field.name];
      continue;
    }
    if (field.reference) {
      const toOrganization = field.reference.target() === Organization;
      // A reference to the organization is always sent, so that the row lands in the intended tenant.
      if (mustSend(field) || (toOrganization && !field.options.nullable)) {
        body[field.name] = await referencedId(server, field, options, depth);
      }
      continue;
    }
    if (mustSend(field)) body[field.name] = scalarValue(field);
  }
  const required = await RULE_VALUES[resource.path]?.(server, options, depth);
  for (const [name, value] of Object.entries(required ?? {})) {
    if (!options.overrides || !Object.hasOwn(options.overrides, name)) body[name] = value;
  }
  return body;
}

/** The parent a nested collection's row names (its `organizationId` for organization secrets). */
export function parentIdOf(resource: Resource, row: Record<string, unknown>): string | undefined {
  return resource.parent ? String(row[resource.parent.field]) : undefined;
}

/**
 * Creates a record of `resource` through the API as `options.key` (as the administrator when only
 * administrators may create the resource) and returns the answer's JSON.
 */
export async function createRecord(server: TestServer, resource: Resource, options: BodyOptions, depth = 0): Promise<Record<string, any>> {
  const body = await buildCreateBody(server, resource, options, depth);
  if (!resource.operations.create) return seedRecord(server, resource, body);
  const key = resource.access.create === 'admin' ? undefined : options.key;
  const path = `/api/${collectionPath(resource, parentIdOf(resource, body))}`;
  const answer = await server.request('POST', path, { body, key });
  expect(answer.status, `POST ${path} ${JSON.stringify(body)}: ${answer.text}`).toBe(201);
  return answer.body;
}

/**
 * A body that changes one field of an existing row, and the field it changes: a writable text field
 * when there is one (with a fresh unique value), otherwise a number, a boolean, another enum value, a
 * later time, or a reference to a new user.
 */
export async function buildUpdateBody(
  server: TestServer,
  resource: Resource,
  row: Record<string, unknown>,
): Promise<{ field: string; body: Record<string, unknown> }> {
  const writable = resource.fields.filter(isUpdateWritable);
  const text = writable.find((f) => f.kind === 'string' && !f.options.pattern) ?? writable.find((f) => f.kind === 'string');
  if (text) return { field: text.name, body: { [text.name]: uniqueString(text, 'changed') } };
  const number = writable.find((f) => (f.kind === 'int' || f.kind === 'number') && f.options.max === undefined);
  if (number) return { field: number.name, body: { [number.name]: Number(row[number.name] ?? 0) + 7 } };
  const flag = writable.find((f) => f.kind === 'boolean');
  if (flag) return { field: flag.name, body: { [flag.name]: !row[flag.name] } };
  const choice = writable.find((f) => f.kind === 'enum' && f.enum!.values.length > 1);
  if (choice) return { field: choice.name, body: { [choice.name]: choice.enum!.values.find((v) => v !== row[choice.name]) } };
  const time = writable.find((f) => f.kind === 'dateTime');
  if (time) return { field: time.name, body: { [time.name]: new Date(Date.parse(String(row[time.name] ?? 0)) + 60_000).toISOString() } };
  const user = writable.find((f) => f.reference && resourceOf(f.reference.target())?.path === 'users');
  if (user) return { field: user.name, body: { [user.name]: (await createUser(server)).id } };
  throw new Error(`no field of ${resource.path} to change in an update`);
}

/** A filter expression matching rows whose text and reference fields equal those of `body`. */
export function filterFor(resource: Resource, body: Record<string, unknown>): string {
  const terms: string[] = [];
  for (const field of resource.fields) {
    const value = body[field.name];
    if (typeof value !== 'string' || field.options.filterable === false) continue;
    if (field.kind !== 'string' && field.kind !== 'reference' && field.kind !== 'id' && field.kind !== 'enum') continue;
    if (field.options.normalize) continue; // stored differently from what was sent
    terms.push(`${field.name}=='${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`);
  }
  return terms.join(';');
}

/**
 * A row of a collection the API cannot create (read-only ones such as task-group-history), written
 * straight to the database from a create body, then read back through the API as the administrator.
 */
async function seedRecord(server: TestServer, resource: Resource, body: Record<string, unknown>): Promise<Record<string, any>> {
  const now = new Date();
  const row: Record<string, unknown> = { id: randomUUID(), uuid: randomUUID(), createdOn: now, updatedOn: now, changeSequence: 0 };
  for (const field of resource.fields) {
    if (Object.hasOwn(row, field.name)) continue;
    row[field.name] = Object.hasOwn(body, field.name)
      ? body[field.name]
      : field.kind === 'id'
        ? randomUUID()
        : field.kind === 'enum'
          ? field.enum!.values[0]
          : implicitDefault(field);
  }
  const em = server.orm.em.fork();
  em.persist(em.create(resource.entity, row as never));
  await em.flush();
  const answer = await server.request('GET', `/api/${collectionPath(resource, parentIdOf(resource, body))}/${row.id}`);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}
