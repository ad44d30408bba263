import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import {
  buildSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isListType,
  isObjectType,
  parse,
  print,
  type GraphQLField,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { dropDatabase, ensureDatabase, withDatabase } from '../src/database/database-url';
import { resources } from '../src/catalog/registry';
import { collectionPath } from '../src/model/resource';
import { callersOf, type Caller } from './support/callers';
import { buildCreateBody, parentIdOf } from './support/resource-bodies';
import { byResolvers } from './support/resolvers';
import { startServer, unique, type Answer, type TestServer } from './support/server';

/**
 * Every way of answering a read agrees, over the whole schema: a query the database answers in one
 * statement per root field answers the same bytes as the resolvers (errors included, worded alike),
 * REST answers a list's rows and totals as GraphQL does (and refuses the same arguments with the same
 * message), and paging through a list gives every row once. Queries, filters and sorts are generated
 * from schema/schema.graphql alone, with values read from a seeded data set: valid and invalid ones,
 * through references one and two hops away, for the platform administrator, an organization's owner and
 * a plain member of it.
 */

// ---------------------------------------------------------------------------------------------------
// What the schema says

const schema = buildSchema(readFileSync(new URL('../schema/schema.graphql', import.meta.url), 'utf8'));
const query = schema.getQueryType()!;

type Kind = 'id' | 'string' | 'int' | 'float' | 'boolean' | 'dateTime' | 'json' | 'enum' | 'strings';

interface Leaf {
  name: string;
  kind: Kind;
  /** An enum's values. */
  values?: string[];
}

/** A field of a row that names other rows: a reference (one row) or a collection (a page of rows). */
interface Link {
  name: string;
  target: string;
}

interface ResourceType {
  name: string;
  leaves: Leaf[];
  references: Link[];
  collections: Link[];
  /** The root list field, its REST collection path (`{orgId}` for the parent of a nested one), and the argument naming the parent. */
  list?: { field: string; rest: string; parent?: string };
  /** The root item field. */
  item?: string;
  /** Pages count from 1 ("1-based on the data-forms and assistants listings", as the page argument says). */
  oneBased: boolean;
}

const SUMMARY = ['totalElements', 'totalPages', 'number', 'size', 'numberOfElements', 'first', 'last'] as const;
const ONE_BASED = new Set(['DataForm', 'Assistant']);

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function kindOf(field: GraphQLField<unknown, unknown>): Kind {
  if (isListType(getNullableType(field.type))) return 'strings';
  const named = getNamedType(field.type);
  if (isEnumType(named)) return 'enum';
  const kinds: Record<string, Kind> = { ID: 'id', String: 'string', Int: 'int', Float: 'float', Boolean: 'boolean', DateTime: 'dateTime', JSON: 'json' };
  return kinds[named.name];
}

/** The object types a page of which exists (`Task` for `TaskPage`): the resources. */
const pageOf = (type: GraphQLObjectType) => schema.getType(`${type.name}Page`);
const typeMap = schema.getTypeMap();
const types = new Map<string, ResourceType>();
for (const type of Object.values(typeMap)) {
  if (!isObjectType(type) || type.name.startsWith('__') || !pageOf(type)) continue;
  const info: ResourceType = { name: type.name, leaves: [], references: [], collections: [], oneBased: ONE_BASED.has(type.name) };
  for (const field of Object.values(type.getFields())) {
    const named = getNamedType(field.type);
    if (!isObjectType(named)) {
      const kind = kindOf(field);
      info.leaves.push({ name: field.name, kind, values: isEnumType(named) ? named.getValues().map((v) => v.name) : undefined });
    } else if (named.name.endsWith('Page')) {
      info.collections.push({ name: field.name, target: named.name.slice(0, -'Page'.length) });
    } else {
      info.references.push({ name: field.name, target: named.name });
    }
  }
  types.set(type.name, info);
}
for (const field of Object.values(query.getFields())) {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) continue;
  const required = field.args.filter((a) => a.type.toString().endsWith('!')).map((a) => a.name);
  if (named.name.endsWith('Page') && field.args.some((a) => a.name === 'filter')) {
    const info = types.get(named.name.slice(0, -'Page'.length));
    // A list read below one row of another (`organizationSecrets(organizationId:)`), or an operation (`listHistoryForTaskGroup(id:)`).
    if (!info || required.some((name) => name !== 'organizationId')) continue;
    const parent = required[0];
    info.list = { field: field.name, parent, rest: parent ? `organizations/{orgId}/${kebab(field.name).replace(/^organization-/, '')}` : kebab(field.name) };
  } else if (required.length === 1 && required[0] === 'id' && field.args.length === 1 && types.has(named.name) && !field.type.toString().endsWith('!')) {
    types.get(named.name)!.item = field.name;
  }
}
const listed = [...types.values()].filter((t) => t.list);
const itemized = [...types.values()].filter((t) => t.item);

/**
 * Filter paths a schema does not show: the rows referring to a row, named on the referred row's list
 * (a task group's `memberTask.<field>`: one of its tasks matches).
 */
const INVERSE: Record<string, Link[]> = { TaskGroup: [{ name: 'memberTask', target: 'Task' }] };

interface Path {
  path: string;
  leaf: Leaf;
  /** The type whose field the path ends on (its seeded values are the path's values). */
  owner: string;
}

/** The paths a filter or sort may name on `typeName`: its fields, those of the rows it references one and two hops away, its inverse filters. */
function pathsOf(typeName: string): Path[] {
  const type = types.get(typeName)!;
  const paths: Path[] = type.leaves.map((leaf) => ({ path: leaf.name, leaf, owner: typeName }));
  for (const reference of type.references) {
    const target = types.get(reference.target)!;
    for (const leaf of target.leaves) paths.push({ path: `${reference.name}.${leaf.name}`, leaf, owner: target.name });
    for (const second of target.references) {
      const far = types.get(second.target)!;
      for (const leaf of far.leaves.filter((l) => ['id', 'name', 'slug', 'title', 'createdOn', 'priority', 'status'].includes(l.name))) {
        paths.push({ path: `${reference.name}.${second.name}.${leaf.name}`, leaf, owner: far.name });
      }
    }
  }
  for (const inverse of INVERSE[typeName] ?? []) {
    const source = types.get(inverse.target)!;
    for (const leaf of source.leaves) paths.push({ path: `${inverse.name}.${leaf.name}`, leaf, owner: source.name });
  }
  return paths;
}

// ---------------------------------------------------------------------------------------------------
// The data set

let server: TestServer;
const { newCaller, rest } = callersOf(() => server);
const callers = {} as Record<'admin' | 'owner' | 'member', Caller>;
const organizations: string[] = [];
/** Rows the named tests read: a task whose JSON has keys that read as integers, rows of the stranger's organization. */
const named = {} as Record<'integerKeys' | 'farProject' | 'farExecution', string>;
/** Every row the administrator's REST lists show, by type name (seeded values of every field). */
const rows = new Map<string, Record<string, unknown>[]>();

/**
 * JSON values the rows hold: text with ", " and ": " (which the database's own JSON text puts between
 * members), quotes, escapes, control characters, keys that read as integers, empty objects and lists.
 * Numbers are integers and simple decimals: a number JSON.stringify writes with an exponent (1e-7,
 * 1e+21) the database writes in its own notation, a known and separate matter.
 */
const PROPERTIES = [
  { 'a, b': 'c: d', list: [1, 2.5, 'x, y: z'], nested: { k: null, 'q: r': [true, false] } },
  { text: 'he said "hi", then: bye', n: 7, ratio: 0.25, empty: {}, none: [] },
  { unicode: 'é😀 ß', path: 'a\\b, c', tags: ['one', 'two, three'], control: '\u0001\u001f\u007f\u2028 \b\f\n\r\t' },
  { '10': 'ten', '2': 'two', b: 1, a: { '1': 'x', z: 0, '0': [] } },
  {},
];

/** The `index`th of the JSON values, in turn. */
const json = (index: number) => PROPERTIES[index % PROPERTIES.length];

/** Values the generic rows of some collections take: numbers with decimals (simple ones, see PROPERTIES), JSON. */
const OVERRIDES: Record<string, Record<string, unknown>[]> = {
  'applied-knowledge-sets': [{ confidence: 0.1 }, { confidence: null }, { confidence: 2.5 }],
  'knowledge-set-snapshots': [{ reproductionScore: 0.3 }, { reproductionScore: -12.75 }, { reproductionScore: 1 }],
  'data-objects': [{ attributes: json(3) }, { attributes: json(0) }, { attributes: json(2) }],
};

beforeAll(async () => {
  // A database of the suite's own: every list is read whole as the administrator, and other suites' rows would change it.
  await ensureDatabase(serverUrl(), databaseName);
  server = await startServer({ databaseUrl: withDatabase(serverUrl(), databaseName) });
  callers.admin = { id: '', key: server.adminKey };
  callers.owner = await newCaller('AgreeOwner');
  callers.member = await newCaller('AgreeMember');
  const stranger = await newCaller('AgreeStranger');
  const { owner, member, admin } = callers;

  // Two organizations: the owner's (the member in its staff team) and a stranger's (the owner a plain member there).
  const a = await rest(owner, 'POST', '/api/organizations', 201, {
    name: unique('Agree A'),
    description: 'first, of two: "A"',
    properties: json(0),
    features: json(3),
  });
  const b = await rest(stranger, 'POST', '/api/organizations', 201, { name: unique('Agree B'), description: '', properties: json(1) });
  organizations.push(a.id, b.id);
  const staff = await rest(owner, 'POST', '/api/teams', 201, { name: unique('Staff'), organizationId: a.id, description: 'the staff, all: of them' });
  await rest(owner, 'POST', '/api/team-members', 201, { teamId: staff.id, userId: member.id });
  await rest(owner, 'POST', '/api/team-members', 201, { teamId: staff.id, userId: owner.id });
  const guests = await rest(stranger, 'POST', '/api/teams', 201, { name: unique('Guests'), organizationId: b.id });
  await rest(stranger, 'POST', '/api/team-members', 201, { teamId: guests.id, userId: owner.id });

  // Projects (one deleted), tasks with JSON properties, times (one past 9999), null and set references, a deleted task.
  const projects = [];
  for (const [index, color] of ['#ff0000', '', '#00ff00'].entries()) {
    projects.push(
      await rest(owner, 'POST', '/api/projects', 201, {
        organizationId: a.id,
        name: `Alpha ${index}, "p": ${index}`,
        color,
        ownerId: owner.id,
        options: json(index + 2),
      }),
    );
  }
  const far = await rest(stranger, 'POST', '/api/projects', 201, { organizationId: b.id, name: 'Beta 0', description: 'b: one' });
  const tasks = [];
  for (let t = 0; t < 9; t++) {
    tasks.push(
      await rest(t % 2 ? member : owner, 'POST', '/api/tasks', 201, {
        projectId: projects[t % 3 === 2 ? 1 : 0].id,
        title: `task ${t}: ${['x, y', 'plain', 'it\'s "quoted"', 'ß', 'z', 'Z', 'a*b', '100%', '_'][t]}`,
        description: t % 3 ? `about ${t}` : t ? 'control \u0001\u001f\u007f, tab\t line\n "q" \\ é😀 \u2028 end' : '',
        priority: (t * 7) % 5,
        dueDate: [
          null,
          '2031-02-03T04:05:06.789Z',
          '9999-12-31T23:59:59-05:00',
          '2030-01-01T00:00:00Z',
          null,
          '2031-02-03T04:05:06.789Z',
          '1970-01-01T00:00:00Z',
          '0100-02-28T12:00:00Z',
          '1969-12-31T23:59:59.999+05:30',
        ][t],
        assigneeId: t % 3 === 1 ? member.id : null,
        parentTaskId: t >= 4 ? tasks[t % 2].id : null,
        properties: json(t),
      }),
    );
  }
  // A task of the project deleted next: it names a row no list shows.
  await rest(owner, 'POST', '/api/tasks', 201, { projectId: projects[2].id, title: 'orphan, soon', parentTaskId: tasks[0].id, properties: json(4) });
  named.integerKeys = tasks[3].id;
  named.farProject = far.id;
  await rest(owner, 'DELETE', `/api/tasks/${tasks[5].id}`, 204);
  await rest(owner, 'DELETE', `/api/projects/${projects[2].id}`, 204);
  // An organization archived with its rows: none of them is listed any more.
  const archived = await rest(owner, 'POST', '/api/organizations', 201, { name: unique('Agree gone') });
  const archivedProject = await rest(owner, 'POST', '/api/projects', 201, { organizationId: archived.id, name: 'Gone 0' });
  await rest(owner, 'POST', '/api/tasks', 201, { projectId: archivedProject.id, title: 'gone task', properties: json(0) });
  await rest(owner, 'DELETE', `/api/organizations/${archived.id}`, 204);
  for (let t = 0; t < 2; t++) await rest(stranger, 'POST', '/api/tasks', 201, { projectId: far.id, title: `beta ${t}`, priority: t, properties: { t } });

  // Chats: a project's channel, a task's (private to its owner and administrators), a workspace's (its owner's alone).
  const workspace = await rest(owner, 'POST', '/api/workspaces', 201, { projectId: projects[0].id, name: unique('Desk') });
  const channels = [
    await rest(owner, 'POST', '/api/channels', 201, { projectId: projects[0].id, name: 'general, all: here' }),
    await rest(member, 'POST', '/api/channels', 201, { projectId: projects[0].id, name: 'member task', taskId: tasks[1].id }),
    await rest(owner, 'POST', '/api/channels', 201, { projectId: projects[0].id, name: 'owner desk', workspaceId: workspace.id }),
    await rest(admin, 'POST', '/api/channels', 201, { projectId: projects[1].id, name: 'admin task', taskId: tasks[0].id }),
    await rest(stranger, 'POST', '/api/channels', 201, { projectId: far.id, name: 'beta talk' }),
  ];
  for (const [index, channel] of channels.entries()) {
    const writer = [owner, member, owner, admin, stranger][index];
    for (const content of ['first, message: one', 'second']) {
      await rest(writer, 'POST', '/api/messages', 201, {
        channelId: channel.id,
        role: index % 2 ? 'ASSISTANT' : 'USER',
        content: `${content} (${index})`,
        context: json(index),
      });
    }
  }

  // Executions and their steps.
  for (const [organizationId, writer, count] of [
    [a.id, owner, 2],
    [b.id, stranger, 1],
  ] as const) {
    for (let e = 0; e < count; e++) {
      const execution = await rest(writer, 'POST', '/api/executions', 201, {
        organizationId,
        status: e ? 'RUNNING' : 'PENDING',
        priority: e * 3,
        description: `run ${e}`,
        context: json(e + 1),
      });
      if (organizationId === b.id) named.farExecution = execution.id;
      for (const [s, name] of ['OCR', 'Split, then: merge', 'Classify'].slice(0, 3 - e).entries()) {
        await rest(writer, 'POST', '/api/step-executions', 201, {
          executionId: execution.id,
          name,
          stepType: 'MODULE',
          description: `step ${s}`,
          options: json(s + 3),
        });
      }
    }
  }

  // Document stores and families (one deleted).
  for (const [organizationId, writer] of [
    [a.id, owner],
    [b.id, stranger],
  ] as const) {
    const store = await seeded('document-stores', organizationId, writer);
    const families = [];
    for (let f = 0; f < 3; f++) families.push(await seeded('document-families', organizationId, writer, { documentStoreId: store.id, metadata: json(f + 1) }));
    await rest(writer, 'DELETE', `/api/document-families/${families[2].id}`, 204);
  }

  // A row or two of every other collection, in each organization.
  const done = new Set(['organizations', 'teams', 'team-members', 'projects', 'tasks', 'workspaces', 'channels', 'messages', 'executions', 'step-executions']);
  for (const resource of resources) {
    if (done.has(resource.path)) continue;
    for (const [index, [organizationId, writer]] of (
      [
        [a.id, owner],
        [a.id, member],
        [b.id, stranger],
      ] as const
    ).entries()) {
      if (writer === member && resource.access.create !== 'member') continue;
      await seeded(resource.path, organizationId, writer, OVERRIDES[resource.path]?.[index]);
    }
  }
  await settled();
  for (const type of listed) rows.set(type.name, await everyRow(type));
}, 180_000);
afterAll(async () => {
  await server?.close();
  await dropDatabase(serverUrl(), databaseName);
});

const databaseName = `platform_agreement_${process.pid}_${Date.now()}`;
const serverUrl = () => withDatabase(inject('databaseUrl'), 'postgres');

/** A row of the collection at `path` created through REST in the organization (the rows it references created first); none for a collection only the server writes. */
async function seeded(path: string, organizationId: string, writer: Caller, overrides: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const resource = resources.find((r) => r.path === path)!;
  // A collection only the server writes (deliveries, history): its rows are written by what they record.
  if (!resource.operations.create) return {};
  const key = resource.access.create === 'admin' ? server.adminKey : writer.key;
  const body = await buildCreateBody(server, resource, { organizationId, key, overrides });
  const url = `/api/${collectionPath(resource, parentIdOf(resource, body))}`;
  const answer = await server.request('POST', url, { body, key });
  expect(answer.status, `POST ${url} ${JSON.stringify(body)}: ${answer.text}`).toBe(201);
  return answer.body;
}

/** Waits until no list changes between two looks (work the seeding started in the background is over). */
async function settled(): Promise<void> {
  const look = async () => {
    const totals: number[] = [];
    for (const type of listed) {
      if (type.list!.parent) continue;
      totals.push((await rest(null, 'GET', `/api/${type.list!.rest}?pageSize=1`, 200)).totalElements);
    }
    return totals.join(',');
  };
  let last = await look();
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = await look();
    if (now === last) return;
    last = now;
  }
  throw new Error('the data set keeps changing');
}

/** Every row of a list as the administrator reads it through REST. */
async function everyRow(type: ResourceType): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  const paths = type.list!.parent ? organizations.map((id) => type.list!.rest.replace('{orgId}', id)) : [type.list!.rest];
  for (const path of paths) {
    for (let page = type.oneBased ? 1 : 0; ; page++) {
      const answer = await rest(null, 'GET', `/api/${path}?pageSize=100&page=${page}`, 200);
      found.push(...answer.content);
      if (answer.last) break;
    }
  }
  return found;
}

/** The distinct seeded values of a field, as text. */
function seededValues(typeName: string, field: string): string[] {
  const values = (rows.get(typeName) ?? []).map((row) => row[field]).filter((v) => v !== null && v !== undefined && typeof v !== 'object');
  return [...new Set(values.map(String))];
}

const seededIds = (typeName: string) => seededValues(typeName, 'id');

// ---------------------------------------------------------------------------------------------------
// Arguments: filters, sorts, pages

/** A value as the filter language quotes it. */
const quoted = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/** Kinds a filter or a sort may not name (JSON values, lists of text). */
const UNORDERED = new Set<Kind>(['json', 'strings']);

/** Text of a value a path may take: mostly one seeded there, sometimes another of its kind. */
function validText(path: Path): fc.Arbitrary<string> {
  const seen = seededValues(path.owner, path.leaf.name);
  const fromSeed = (map: (v: string) => string = (v) => v) => (seen.length ? [{ weight: 4, arbitrary: fc.constantFrom(...seen).map(map) }] : []);
  switch (path.leaf.kind) {
    case 'id':
      return fc.oneof(...fromSeed(), ...fromSeed((v) => v.toUpperCase()), fc.uuid(), fc.constantFrom(...organizations, callers.member.id));
    case 'int':
      return fc.oneof(...fromSeed(), fc.integer({ min: -2, max: 12 }).map(String), fc.constantFrom('-0', '2147483647'));
    case 'float':
      return fc.oneof(...fromSeed(), fc.constantFrom('1.5', '-0.25', '2', '0'));
    case 'boolean':
      return fc.constantFrom('true', 'false');
    case 'dateTime':
      return fc.oneof(...fromSeed(), fc.constantFrom('2031-01-01T00:00:00Z', '2030-06-15', '9999-12-31T23:59:59Z', '2031-02-03T05:05:06.789+01:00'));
    case 'enum':
      return fc.constantFrom(...path.leaf.values!);
    default:
      return fc.oneof(
        ...fromSeed(),
        ...fromSeed((v) => `${v.slice(0, 3)}*`),
        ...fromSeed((v) => `*${v.slice(1, 4)}*`),
        fc.constantFrom('', 'a, b', 'x: y', "it's", 'ß', '*', 'none*', '%', '_'),
        fc.string({ maxLength: 5 }),
      );
  }
}

/** Text of a value the path's kind cannot take (none for text, which takes anything). */
function invalidText(kind: Kind): fc.Arbitrary<string> {
  const bad: Partial<Record<Kind, string[]>> = {
    id: ['not-a-uuid', '1234', 'ffffffff-ffff-ffff-ffff-fffffffffff'],
    int: ['1.5', '2147483648', 'one', '1e3'],
    float: ['x', '1,5', 'NaN'],
    boolean: ['maybe', 'yes'],
    dateTime: ['tomorrow', '2031-02-30T00:00:00Z', '2031'],
    enum: ['NOT_A_VALUE', 'pending'],
  };
  return fc.constantFrom(...(bad[kind] ?? ['x']));
}

/** A value in the filter text: quoted (text, times), as it is (numbers, ids, enums) or quoted. */
function written(kind: Kind, text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  if (kind === 'string' || kind === 'dateTime' || UNORDERED.has(kind)) return text.map(quoted);
  return fc.tuple(text, fc.boolean()).map(([t, quote]) => (quote || !/^[\w.:-]+$/.test(t) ? quoted(t) : t));
}

const ORDERED_KINDS = new Set<Kind>(['int', 'float', 'dateTime']);

/** Operators a careful client writes for the kind. */
function operatorsFor(kind: Kind): string[] {
  if (kind === 'string') return ['==', '!=', '=like=', '=in=', '=out=', '>', '<'];
  if (ORDERED_KINDS.has(kind)) return ['==', '!=', '>', '>=', '<', '<=', '=gt=', '=le=', '=in='];
  return ['==', '!=', '=in=', '=out='];
}

/** A comparison meant to be accepted: an operator of the path's kind, values it may take (a field the caller may not filter on is still refused). */
function validComparison(paths: Path[]): fc.Arbitrary<string> {
  return fc.constantFrom(...paths).chain((path) => {
    const value = written(path.leaf.kind, validText(path));
    return fc.oneof(
      {
        weight: 8,
        arbitrary: fc
          .tuple(fc.constantFrom(...operatorsFor(path.leaf.kind)), fc.array(value, { minLength: 1, maxLength: 3 }))
          .map(([op, values]) => (op === '=in=' || op === '=out=' ? `${path.path}${op}(${values.join(',')})` : `${path.path}${op}${values[0]}`)),
      },
      { weight: 1, arbitrary: fc.constantFrom('true', 'false').map((v) => `${path.path}=isnull=${v}`) },
    );
  });
}

/**
 * A comparison the server refuses: a value its kind cannot take (a bad uuid, 1.5 on an int, an unknown
 * enum value), =like= on what is not text, == with a list, =isnull=maybe, an unknown operator or field, a
 * JSON field, malformed text.
 */
function invalidComparison(paths: Path[]): fc.Arbitrary<string> {
  const typed = paths.filter((p) => p.leaf.kind !== 'string' && !UNORDERED.has(p.leaf.kind));
  const unordered = paths.filter((p) => UNORDERED.has(p.leaf.kind));
  const any = fc.constantFrom(...paths);
  return fc.oneof(
    ...(typed.length
      ? [
          fc
            .constantFrom(...typed)
            .chain((path) =>
              fc
                .tuple(fc.constantFrom('==', '!=', '=in='), written(path.leaf.kind, invalidText(path.leaf.kind)))
                .map(([op, v]) => `${path.path}${op}${op === '=in=' ? `(${v})` : v}`),
            ),
          fc.constantFrom(...typed).chain((path) => written(path.leaf.kind, validText(path)).map((v) => `${path.path}=like=${v}`)),
        ]
      : []),
    ...(unordered.length ? [fc.constantFrom(...unordered).map((path) => `${path.path}=='x'`)] : []),
    any.chain((path) =>
      fc.array(written(path.leaf.kind, validText(path)), { minLength: 2, maxLength: 2 }).map((values) => `${path.path}==(${values.join(',')})`),
    ),
    any.map((path) => `${path.path}=isnull=maybe`),
    any.map((path) => `${path.path}=near='x'`),
    fc.constantFrom('nope==1', 'project.nope==1', 'id==', "title=='unclosed", 'a.b.c.d==1', '()', 'id=in=()'),
  );
}

/** The paths a filter or a sort may name: not those of JSON values or lists of text. */
const filterable = (paths: Path[]) => paths.filter((p) => !UNORDERED.has(p.leaf.kind));

function filterOf(typeName: string): fc.Arbitrary<string> {
  const paths = pathsOf(typeName);
  const own = filterable(paths.filter((p) => !p.path.includes('.')));
  const through = filterable(paths.filter((p) => p.path.includes('.')));
  const one = fc.oneof({ weight: 6, arbitrary: validComparison(own) }, ...(through.length ? [{ weight: 4, arbitrary: validComparison(through) }] : []), {
    weight: 1,
    arbitrary: invalidComparison(paths),
  });
  return fc.tuple(fc.array(one, { minLength: 1, maxLength: 3 }), fc.constantFrom(';', ',', ' and ', ' or '), fc.boolean()).map(([terms, join, grouped]) => {
    if (!grouped || terms.length < 2) return terms.join(join);
    const [left, right, ...others] = terms;
    return [`(${left}${join === ';' ? ',' : ';'}${right})`, ...others].join(join);
  });
}

function sortOf(typeName: string): fc.Arbitrary<string> {
  const paths = pathsOf(typeName).filter((p) => !INVERSE[typeName]?.some((inverse) => p.path.startsWith(`${inverse.name}.`)));
  const term = fc.tuple(
    fc.oneof(
      { weight: 30, arbitrary: fc.constantFrom(...filterable(paths).map((p) => p.path)) },
      fc.constantFrom(...paths.map((p) => p.path), 'nope', 'project.nope'),
    ),
    fc.oneof({ weight: 30, arbitrary: fc.constantFrom('', ':asc', ':desc') }, fc.constantFrom(':up', ':DESC')),
  );
  return fc.array(term, { minLength: 1, maxLength: 2 }).map((terms) => terms.map(([p, d]) => `${p}${d}`).join(';'));
}

interface ListArgs {
  filter?: string | null;
  sort?: string | null;
  page?: number | null;
  pageSize?: number | null;
  query?: string | null;
}

/** `value` about one time in `every` (else undefined). */
const sometimes = <T>(value: fc.Arbitrary<T>, every: number) =>
  fc.oneof({ weight: every - 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: value }) as fc.Arbitrary<T | undefined>;

const argumentCache = new Map<string, fc.Arbitrary<ListArgs>>();

/** A list's arguments: each given or not; pages and sizes mostly in range. */
function argumentsOf(typeName: string): fc.Arbitrary<ListArgs> {
  let cached = argumentCache.get(typeName);
  if (cached) return cached;
  const first = types.get(typeName)!.oneBased ? 1 : 0;
  const words = [
    ...new Set(
      types
        .get(typeName)!
        .leaves.filter((leaf) => leaf.kind === 'string')
        .flatMap((leaf) => seededValues(typeName, leaf.name))
        .map((text) => text.split(/[ ,:]/)[0])
        .filter(Boolean),
    ),
  ];
  cached = fc
    .record({
      filter: sometimes(filterOf(typeName), 2),
      sort: sometimes(sortOf(typeName), 2),
      page: sometimes(fc.oneof({ weight: 12, arbitrary: fc.integer({ min: first, max: first + 2 }) }, fc.constantFrom(first - 1, 2147483647)), 2),
      pageSize: sometimes(fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 5 }) }, fc.constantFrom(0, 100, 1001)), 2),
      query: sometimes(fc.oneof(...(words.length ? [fc.constantFrom(...words)] : []), fc.constantFrom('zzz', 'a b', '%')), 8),
    })
    .map((args) => Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) as ListArgs);
  argumentCache.set(typeName, cached);
  return cached;
}

/** The arguments as GraphQL writes them (`filter: "...", page: 1`), empty when none. */
function graphqlArguments(args: ListArgs, extra: string[] = []): string {
  const written = [...extra, ...Object.entries(args).map(([name, value]) => `${name}: ${JSON.stringify(value)}`)];
  return written.length ? `(${written.join(', ')})` : '';
}

/** The arguments as a REST query string. */
function restQuery(args: ListArgs): string {
  const search = new URLSearchParams(Object.entries(args).map(([name, value]) => [name, String(value)]));
  const text = search.toString();
  return text ? `?${text}` : '';
}

// ---------------------------------------------------------------------------------------------------
// Selections

/** One of `items`, each as often as its weight. */
const weighted = <T>(items: T[], weight: (item: T) => number) => fc.oneof(...items.map((item) => ({ weight: weight(item), arbitrary: fc.constant(item) })));

/** Kinds whose JSON text the database writes itself on its path (text, times, numbers, JSON values): asked for more often. */
const WRITTEN_APART = new Set<Kind>(['json', 'strings', 'dateTime', 'float', 'string']);

/** The types whose rows the data set seeds one by one (the others hold a row or two made from their declarations): roots more often. */
const SEEDED = new Set([
  'Organization',
  'Team',
  'TeamMember',
  'Project',
  'Task',
  'Channel',
  'Message',
  'Execution',
  'StepExecution',
  'DocumentStore',
  'DocumentFamily',
]);

/** Nested pages and references go this many levels below the root field's rows. */
const MAX_DEPTH = 3;

const alias = fc.constantFrom(undefined, undefined, undefined, 'a', 'b');
const keyed = (name: string, prefix: string | undefined) => (prefix ? `${prefix}_${name}: ${name}` : name);
const keyOf = (text: string) => text.match(/^[\w]+/)![0];

/** Entries of a selection, one per response key (a key asked twice with other arguments is a conflict GraphQL refuses). */
function selectionOf(entries: fc.Arbitrary<string>, max: number): fc.Arbitrary<string> {
  return fc.array(entries, { minLength: 1, maxLength: max }).map((items) => {
    const keys = new Set<string>();
    return items
      .filter((item) => {
        const key = item.startsWith('...') ? item : keyOf(item);
        if (keys.has(key)) return false;
        keys.add(key);
        return true;
      })
      .join(' ');
  });
}

const rowCache = new Map<string, fc.Arbitrary<string>>();
const pageCache = new Map<string, fc.Arbitrary<string>>();

/** A selection of a row of `typeName`: fields (aliased or not), __typename, references, nested pages, fragments. */
function rowSelection(typeName: string, depth: number): fc.Arbitrary<string> {
  const cacheKey = `${typeName}/${depth}`;
  const cached = rowCache.get(cacheKey);
  if (cached) return cached;
  const type = types.get(typeName)!;
  const leaf = fc
    .tuple(
      weighted(type.leaves, (l) => (WRITTEN_APART.has(l.kind) ? 4 : 1)),
      alias,
    )
    .map(([l, prefix]) => keyed(l.name, prefix));
  const entries: fc.WeightedArbitrary<string>[] = [
    { weight: 8, arbitrary: leaf },
    { weight: 1, arbitrary: fc.constant('__typename') },
    {
      weight: 1,
      arbitrary: fc
        .subarray(
          type.leaves.map((l) => l.name),
          { minLength: 1, maxLength: 3 },
        )
        .map((names) => `... on ${typeName} { ${names.join(' ')} }`),
    },
    { weight: 1, arbitrary: fc.constant(`...Row_${typeName}`) },
  ];
  if (depth < MAX_DEPTH && type.references.length) {
    entries.push({
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...type.references), alias)
        .chain(([reference, prefix]) => rowSelection(reference.target, depth + 1).map((inner) => `${keyed(reference.name, prefix)} { ${inner} }`)),
    });
  }
  if (depth < MAX_DEPTH && type.collections.length) {
    entries.push({
      weight: 3,
      arbitrary: fc
        .tuple(fc.constantFrom(...type.collections), alias)
        .chain(([collection, prefix]) =>
          fc
            .tuple(argumentsOf(collection.target), pageSelection(collection.target, depth + 1))
            .map(([args, inner]) => `${keyed(collection.name, prefix)}${graphqlArguments(args)} { ${inner} }`),
        ),
    });
  }
  const built = selectionOf(fc.oneof(...entries), 4);
  rowCache.set(cacheKey, built);
  return built;
}

/** A selection of a page: summary fields (alone, too), __typename, its rows, a fragment. */
function pageSelection(typeName: string, depth: number): fc.Arbitrary<string> {
  const cacheKey = `${typeName}/${depth}`;
  const cached = pageCache.get(cacheKey);
  if (cached) return cached;
  const built = selectionOf(
    fc.oneof(
      { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...SUMMARY), alias).map(([name, prefix]) => keyed(name, prefix)) },
      { weight: 5, arbitrary: fc.tuple(alias, rowSelection(typeName, depth)).map(([prefix, inner]) => `${keyed('content', prefix)} { ${inner} }`) },
      { weight: 1, arbitrary: fc.constant('__typename') },
      { weight: 1, arbitrary: fc.constant(`...Page_${typeName}`) },
    ),
    3,
  );
  pageCache.set(cacheKey, built);
  return built;
}

/** The fragments a document spreads, defined. */
function withFragments(body: string): string {
  const spread = [...new Set([...body.matchAll(/\.\.\.(Row|Page)_(\w+)/g)].map((m) => m[0].slice(3)))];
  const definitions = spread.map((name) => {
    const [kind, typeName] = name.split('_');
    return kind === 'Row' ? `fragment ${name} on ${typeName} { id __typename }` : `fragment ${name} on ${typeName}Page { totalElements first __typename }`;
  });
  return [body, ...definitions].join('\n');
}

const CALLERS = ['admin', 'owner', 'member'] as const;
type Who = (typeof CALLERS)[number];

/** A root field, its response key, and the variables its arguments name (`%I%` in their names: the root's place). */
interface Root {
  key: string;
  text: string;
  variables: { name: string; type: string; value: unknown }[];
}

/** Arguments as literals, some of them null (as good as not given), or the filter as a variable (set, null, or not sent). */
function rootArguments(typeName: string): fc.Arbitrary<{ args: ListArgs; lifted: 'literal' | 'variable' | 'null-variable' | 'unsent-variable' }> {
  return fc.record({
    args: fc
      .tuple(argumentsOf(typeName), sometimes(fc.subarray(['filter', 'sort', 'page', 'pageSize', 'query'] as const, { minLength: 1, maxLength: 2 }), 6))
      .map(([args, nulls]) => ({ ...args, ...Object.fromEntries((nulls ?? []).map((name) => [name, null])) })),
    lifted: fc.constantFrom('literal', 'literal', 'literal', 'variable', 'null-variable', 'unsent-variable'),
  });
}

const listRoot: fc.Arbitrary<Root> = weighted(listed, (type) => (SEEDED.has(type.name) ? 4 : 1)).chain((type) =>
  fc
    .tuple(alias, rootArguments(type.name), pageSelection(type.name, 0), fc.constantFrom(...organizations))
    .map(([prefix, { args, lifted }, inner, organizationId]) => {
      const list = type.list!;
      const extra = list.parent ? [`${list.parent}: "${organizationId}"`] : [];
      const variables: Root['variables'] = [];
      if (lifted !== 'literal') {
        const { filter, ...others } = args;
        args = others;
        extra.push('filter: $filter%I%');
        variables.push({ name: 'filter%I%', type: 'String', value: lifted === 'variable' ? (filter ?? '') : lifted === 'null-variable' ? null : undefined });
      }
      return {
        key: prefix ? `${prefix}_${list.field}` : list.field,
        text: `${keyed(list.field, prefix)}${graphqlArguments(args, extra)} { ${inner} }`,
        variables,
      };
    }),
);

const itemRoot: fc.Arbitrary<Root> = weighted(itemized, (type) => (SEEDED.has(type.name) ? 4 : 1)).chain((type) => {
  const ids = seededIds(type.name);
  const id = fc.oneof(
    ...(ids.length ? [{ weight: 8, arbitrary: fc.constantFrom(...ids) }, fc.constantFrom(...ids).map((v) => v.toUpperCase())] : []),
    fc.uuid(),
    fc.constantFrom('not-a-uuid', organizations[0], ''),
  );
  return fc.tuple(alias, id, rowSelection(type.name, 0), fc.boolean()).map(([prefix, value, inner, asVariable]) => ({
    key: prefix ? `${prefix}_${type.item}` : type.item!,
    text: `${keyed(type.item!, prefix)}(id: ${asVariable ? '$id%I%' : JSON.stringify(value)}) { ${inner} }`,
    variables: asVariable ? [{ name: 'id%I%', type: 'ID!', value }] : [],
  }));
});

const typenameRoot: fc.Arbitrary<Root> = fc.constant({ key: '__typename', text: '__typename', variables: [] });

/** A query document of one or two root fields (lists or items), its variables declared and sent, fragments defined. */
const documents = () =>
  fc
    .array(fc.oneof({ weight: 3, arbitrary: listRoot }, { weight: 2, arbitrary: itemRoot }, { weight: 1, arbitrary: typenameRoot }), {
      minLength: 1,
      maxLength: 2,
    })
    .map((roots) => roots.filter((root, index) => roots.findIndex((other) => other.key === root.key) === index))
    .filter((roots) => roots.some((root) => root.key !== '__typename'))
    .map((roots) => {
      const declared: string[] = [];
      const variables: Record<string, unknown> = {};
      const body = roots.map((root, index) => {
        for (const variable of root.variables) {
          const name = variable.name.replace('%I%', String(index));
          declared.push(`$${name}: ${variable.type}`);
          if (variable.value !== undefined) variables[name] = variable.value;
        }
        return root.text.replaceAll('%I%', String(index));
      });
      const header = declared.length ? `query(${declared.join(', ')}) ` : '';
      return { text: withFragments(`${header}{ ${body.join(' ')} }`), variables };
    });

// ---------------------------------------------------------------------------------------------------
// Answers

/** Whether one of the statements is one in which the database wrote a root field's answer. */
const writtenByDatabase = (statements: { text: string }[]) => statements.some((s) => s.text.includes('octet_length("j"."json")'));

const SEED = 20260401;
/** A fixed seed: a failure prints it and the path to its counterexample, and the next run meets it again. */
const PARAMETERS = { seed: SEED } as const;

describe('every way of answering a read agrees', () => {
  it('answers every generated query in the same bytes on the database path and on the resolvers, and sends no failing statement', async () => {
    const tally = { runs: 0, answered: 0, byDatabase: 0, errors: 0 };
    await fc.assert(
      fc.asyncProperty(documents(), fc.constantFrom(...CALLERS), async ({ text: document, variables }, who: Who) => {
        const key = callers[who].key;
        const printed = print(parse(document));
        const failed = server.failedStatements();
        let inSql!: Answer;
        const statements = await server.recordQueries(async () => {
          inSql = await server.graphql(printed, variables, key);
        });
        const resolved = await server.graphql(byResolvers(document), variables, key);
        expect(server.failedStatements(), `a statement failed for ${printed} ${JSON.stringify(variables)}`).toBe(failed);
        expect({ status: inSql.status, text: inSql.text }, `${who}: ${printed} ${JSON.stringify(variables)}`).toEqual({
          status: resolved.status,
          text: resolved.text,
        });
        tally.runs += 1;
        if (inSql.body?.errors) tally.errors += 1;
        else tally.answered += 1;
        if (writtenByDatabase(statements)) tally.byDatabase += 1;
      }),
      { ...PARAMETERS, numRuns: 300 },
    );
    console.info('queries', tally);
    // The property would hold vacuously if the database answered nothing, or if every query were refused.
    expect(tally.byDatabase).toBeGreaterThan(tally.runs / 4);
    expect(tally.answered).toBeGreaterThan(tally.runs / 3);
  }, 150_000);

  it('answers a list on REST as on GraphQL: the same rows, the same totals, the same refusals', async () => {
    const tally = { pages: 0, rows: 0, refused: 0 };
    const lists = fc.constantFrom(...listed).chain((type) =>
      fc.record({
        type: fc.constant(type),
        args: argumentsOf(type.name),
        fields: fc.subarray(
          type.leaves.map((l) => l.name),
          { minLength: 1, maxLength: 6 },
        ),
        organizationId: fc.constantFrom(...organizations),
      }),
    );
    await fc.assert(
      fc.asyncProperty(lists, fc.constantFrom(...CALLERS), fc.boolean(), async ({ type, args, fields, organizationId }, who: Who, toResolvers) => {
        const key = callers[who].key;
        const list = type.list!;
        const text = `{ ${list.field}${graphqlArguments(args, list.parent ? [`${list.parent}: "${organizationId}"`] : [])} { ${SUMMARY.join(' ')} content { ${fields.join(' ')} } } }`;
        const graphql = await server.graphql(toResolvers ? byResolvers(text) : text, {}, key);
        const path = `/api/${list.rest.replace('{orgId}', organizationId)}${restQuery(args)}`;
        const answer = await server.request('GET', path, { key });
        const what = `${who}: GET ${path} and ${text}`;
        if (answer.status === 200) {
          expect(graphql.body.errors, `${what}: ${graphql.text}`).toBeUndefined();
          const page = graphql.body.data[list.field];
          expect(pick(answer.body, SUMMARY), what).toEqual(pick(page, SUMMARY));
          expect(
            answer.body.content.map((row: Record<string, unknown>) => pick(row, fields)),
            what,
          ).toEqual(page.content);
          tally.pages += 1;
          tally.rows += page.content.length;
        } else {
          expect(graphql.body.errors?.[0]?.message, `${what}: ${answer.text} / ${graphql.text}`).toBe(answer.body.message);
          if (answer.status === 400) expect(graphql.body.errors[0].extensions.code, what).toBe('BAD_REQUEST');
          tally.refused += 1;
        }
      }),
      { ...PARAMETERS, numRuns: 250 },
    );
    console.info('REST and GraphQL', tally);
    expect(tally.rows).toBeGreaterThan(tally.pages);
    expect(tally.refused).toBeGreaterThan(10);
  }, 120_000);

  it('pages through a whole list: every row once, in the order of one large page, totals matching the row count', async () => {
    const tally = { lists: 0, rows: 0, refused: 0 };
    const lists = fc.constantFrom(...listed).chain((type) =>
      fc.record({
        type: fc.constant(type),
        args: argumentsOf(type.name).map(({ filter, sort, query }) => ({ filter, sort, query })),
        pageSize: fc.integer({ min: 1, max: 4 }),
        organizationId: fc.constantFrom(...organizations),
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        lists,
        fc.constantFrom(...CALLERS),
        fc.constantFrom('database', 'resolvers', 'rest'),
        async ({ type, args, pageSize, organizationId }, who: Who, way) => {
          const key = callers[who].key;
          const list = type.list!;
          const given = Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) as ListArgs;
          const first = type.oneBased ? 1 : 0;
          const read = async (page: number, size: number): Promise<{ message?: string; summary: Record<string, unknown>; ids: string[] }> => {
            const paged = { ...given, page, pageSize: size };
            if (way === 'rest') {
              const answer = await server.request('GET', `/api/${list.rest.replace('{orgId}', organizationId)}${restQuery(paged)}`, { key });
              if (answer.status !== 200) return { message: answer.body.message, summary: {}, ids: [] };
              return { summary: pick(answer.body, SUMMARY), ids: answer.body.content.map((row: { id: string }) => row.id) };
            }
            const text = `{ ${list.field}${graphqlArguments(paged, list.parent ? [`${list.parent}: "${organizationId}"`] : [])} { ${SUMMARY.join(' ')} content { id } } }`;
            const answer = await server.graphql(way === 'resolvers' ? byResolvers(text) : text, {}, key);
            if (answer.body.errors) return { message: answer.body.errors[0].message, summary: {}, ids: [] };
            const data = answer.body.data[list.field];
            return { summary: pick(data, SUMMARY), ids: data.content.map((row: { id: string }) => row.id) };
          };
          const largest = type.oneBased ? 1000 : 100;
          const whole = await read(first, largest);
          const what = `${who} (${way}): ${list.field} ${JSON.stringify(given)}, pages of ${pageSize}`;
          if (whole.message !== undefined) {
            // Refused whole, refused page by page, in the same words.
            expect((await read(first, pageSize)).message, what).toBe(whole.message);
            tally.refused += 1;
            return;
          }
          const total = whole.summary.totalElements as number;
          expect(total, `${what}: the data set fits one page`).toBeLessThanOrEqual(largest);
          expect(whole.ids.length, what).toBe(total);
          const pages = Math.ceil(total / pageSize);
          const seen: string[] = [];
          for (let index = 0; index <= pages; index++) {
            const page = await read(first + index, pageSize);
            expect(page.message, what).toBeUndefined();
            expect(page.summary, `${what}, page ${first + index}`).toEqual({
              totalElements: total,
              totalPages: pages,
              number: index,
              size: pageSize,
              numberOfElements: page.ids.length,
              first: index === 0,
              last: index >= pages - 1,
            });
            expect(page.ids.length, `${what}, page ${first + index}`).toBe(
              index < pages - 1 ? pageSize : index === pages - 1 ? total - pageSize * (pages - 1) : 0,
            );
            seen.push(...page.ids);
          }
          expect(new Set(seen).size, `${what}: a row twice`).toBe(seen.length);
          expect(seen, what).toEqual(whole.ids);
          if (who === 'admin' && !given.filter && !given.query && !list.parent) {
            expect(new Set(seen), `${what}: every row`).toEqual(new Set(seededIds(type.name)));
          }
          tally.lists += 1;
          tally.rows += total;
        },
      ),
      { ...PARAMETERS, numRuns: 150 },
    );
    console.info('paging', tally);
    expect(tally.rows).toBeGreaterThan(tally.lists);
  }, 120_000);
});

describe('named cases the properties found', () => {
  /** The same query's answer (status and bytes) on the database path and on the resolvers, as `who`. */
  async function bothWays(text: string, who: Who): Promise<[string, string]> {
    const key = callers[who].key;
    const inSql = await server.graphql(print(parse(text)), {}, key);
    const resolved = await server.graphql(byResolvers(text), {}, key);
    return [`${inSql.status} ${inSql.text}`, `${resolved.status} ${resolved.text}`];
  }

  it('writes a stored JSON object whose keys read as integers as the resolvers and REST do (JSON.stringify puts such keys first)', async () => {
    const read = await server.request('GET', `/api/tasks/${named.integerKeys}`, { key: callers.owner.key });
    expect(read.body.properties).toEqual(json(3));
    // As REST writes it: JSON.stringify of the value read back.
    const expected = JSON.stringify(read.body.properties);
    expect(read.text).toContain(`"properties":${expected}`);
    for (const who of CALLERS) {
      for (const text of [
        `{ task(id: "${named.integerKeys}") { properties } }`,
        `{ tasks(filter: "id==${named.integerKeys}") { content { properties } } }`,
        `{ task(id: "${named.integerKeys}") { project { tasks(filter: "id==${named.integerKeys}") { content { properties } } } } }`,
      ]) {
        const [inSql, resolved] = await bothWays(text, who);
        expect(resolved, text).toContain(`"properties":${expected}`);
        expect(inSql, `${who}: ${text}`).toBe(resolved);
      }
    }
  });

  it('answers the same errors in the same order every time several root fields fail', async () => {
    const queries = [
      // Two rows of an organization the member is not in: two refusals, both fields null.
      `{ project(id: "${named.farProject}") { id } execution(id: "${named.farExecution}") { id } }`,
      // Two bad filters below two root fields, one of which may not be null: data is null.
      `{ organization(id: "${organizations[0]}") { projects(filter: "owner.invited==true") { totalElements } } channels { content { messages(filter: "channel.owner.title=='x'") { totalElements } } } }`,
    ];
    for (const text of queries) {
      const answers = new Set<string>();
      for (let attempt = 0; attempt < 15; attempt++) for (const answer of await bothWays(text, 'member')) answers.add(answer);
      expect.soft([...answers], `${text}\n${[...answers].join('\n')}`).toHaveLength(1);
    }
  });
});

function pick(row: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, row[field]]));
}
