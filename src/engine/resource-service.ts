import { ForeignKeyConstraintViolationException, raw, sql, type EntityClass, type FilterQuery } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { runPreparedInTransaction } from '../database/prepared-in-transaction';
import { insertRow, storedRow, updateGuarded, updateRow, type FollowingStatement } from '../database/row-writes';
import type { BaseEntity } from '../entities/base';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  NotFoundError,
  PreconditionFailedError,
  StaleChangeSequenceError,
  type ApiError,
} from '../errors/api-error';
import { entityTag, sequenceOfTag } from '../model/entity-tag';
import { fieldsOf, implicitDefault, type FieldMeta } from '../model/fields';
import { privacyFields, type WriteAction } from '../model/resource';
import { isUuid } from '../model/uuid';
import { searchTextOf } from '../query/search';
import { announceAccessChange } from './access-cache';
import type { RequestContext } from './context';
import { parseInput } from './input';
import { parentField, planRead, type ListParams, type ReadPlan } from './read-plan';
import { ListStatements, sqlOf, type WrittenList, type WrittenSql } from './list-statements';
import type { Knex } from '@mikro-orm/postgresql';
import { pageableOf, sortStateOf, type PageResult } from './page';
import type { ResourceWithRules as Resource } from './resource-rules';
import { itemStatement, ORGANIZATION_COLUMN, VISIBLE_COLUMN, writeGuard, type ItemShape, type ItemStatement, type WriteGuard } from './item-statement';
import { tenantKeyOf } from '../model/tenant-keys';
import { and, liveParentRows, liveRows, memberships, viewerOf, visibleRows, writableRows } from './tenancy';
import { hidesExistence, readsStoredFields, rowSeenBy, rowsSeenBy } from './user-projection';
import { afterLast, keyColumn, keyColumnOrder, keyColumns, keyOrder, keyWindow, type SortKey } from './keyset';
import {
  columnsOf,
  COUNTED_SUMMARY,
  jsonValue,
  memberName,
  nameText,
  objectText,
  writableAsJson,
  type JsonPage,
  type JsonRow,
  type PageSummaryField,
} from './json-pages';

/** About the most bytes of rows, once written out, one batch of an export holds: what a reader who stops costs the server. */
export const EXPORT_BATCH_BYTES = 1024 * 1024;
/** Columns of an export batch's rows besides the fields: the running size, the position in the batch, whether a row follows. */
const BYTES_COLUMN = '__bytes';
const POSITION_COLUMN = '__n';
const MORE_COLUMN = '__more';

type Row = BaseEntity & Record<string, unknown>;

/** What a `reference` item statement reads: the row's id and the organization it belongs to. */
type ReferencedRow = { id: string } & Record<typeof ORGANIZATION_COLUMN, string | null>;

/**
 * The one implementation of list, get, create, update, delete and sequence for every registered
 * resource. REST handlers and GraphQL resolvers call these methods and nothing below them.
 */
export class ResourceService<T extends BaseEntity = BaseEntity> {
  /** The prepared hot reads of this resource, written once per shape and kind of caller. */
  private readonly statements = new Map<string, ItemStatement>();
  private readonly guards = new Map<string, WriteGuard>();
  private needingTheRow?: Set<string>;
  /** The statements of list requests, written once per shape. */
  private readonly lists: ListStatements;

  constructor(readonly resource: Resource<T>) {
    this.lists = new ListStatements(resource);
  }

  private get entity(): EntityClass<T> {
    return this.resource.entity;
  }

  /**
   * One page, then its total: counted apart (a window count would make PostgreSQL build every matching
   * row before the limit), and not at all when the page itself shows where the rows end.
   */
  async list(ctx: RequestContext, params: ListParams): Promise<PageResult<T>> {
    if (params.parentId !== undefined) await this.assertParent(ctx, params.parentId);
    const written = await this.lists.remember(ctx, 'list', params, async () => {
      const plan = await planRead(ctx, this.resource, params);
      const { page, pageSize } = plan.paging;
      const rows = ctx.em
        .createQueryBuilder(this.entity, 'e0')
        .select(this.lists.selection(ctx, 'e0', params.columns) as never)
        .where(plan.where())
        .orderBy(plan.orderBy('e0') as never)
        .limit(pageSize, page * pageSize);
      return { statements: [sqlOf(rows.getKnexQuery()), sqlOf(plan.count('c0'))], paging: plan.paging, sort: plan.sort };
    });
    const [pageStatement, countStatement] = written.statements;
    const { page, pageSize } = written.paging;
    // Both prepared by name: planned once per connection, then only executed.
    const rows = (await this.lists.run(ctx, pageStatement, undefined, true)) as T[];
    const endsHere = rows.length > 0 && rows.length < pageSize;
    const totalElements =
      endsHere || (page === 0 && rows.length === 0)
        ? page * pageSize + rows.length
        : Number((await this.lists.run(ctx, countStatement, undefined, true))[0].count);
    return { items: rowsSeenBy(ctx, this.resource, rows), totalElements, page, pageSize, sort: written.sort };
  }

  /**
   * One page per parent, for a to-many relation, in a single statement for all parents: each parent id
   * is joined laterally to its own count and its own ordered, limited page, so no parent loads more
   * rows than its page holds.
   */
  async listByParents(ctx: RequestContext, foreignKey: string, parentIds: readonly string[], params: ListParams): Promise<Map<string, PageResult<T>>> {
    const written = await this.lists.remember(ctx, `children:${foreignKey}`, params, async () => {
      const plan = await planRead(ctx, this.resource, params);
      const { page, pageSize } = plan.paging;
      const perParent = () => and(plan.where(), { [foreignKey]: sql.ref('parent.id') });
      const counted = ctx.em.createQueryBuilder(this.entity, 'c0').count().where(perParent());
      const paged = ctx.em
        .createQueryBuilder(this.entity, 'e0')
        .select(this.lists.selection(ctx, 'e0', params.columns) as never)
        .where(perParent())
        .orderBy(plan.orderBy('e0') as never)
        .limit(pageSize, page * pageSize);
      // The parent ids are the first value bound: each request binds its own.
      const statement = ctx.em.getKnex().raw(
        `select parent.id as "__parent", counted.count as "__total", paged.*
           from unnest(?::uuid[]) as parent(id)
           cross join lateral ? as counted
           left join lateral ? as paged on true`,
        ['{}', counted.getKnexQuery(), paged.getKnexQuery()],
      );
      return { statements: [sqlOf(statement)], paging: plan.paging, sort: plan.sort };
    });
    const [statement] = written.statements;
    const { page, pageSize } = written.paging;
    // Prepared: a page's limit and offset decide its plan, but each parent's page is read on its
    // (parent, created_on, id) index whatever they are, and planning the lateral joins costs more than running them.
    const rows = await this.lists.run(ctx, statement, [`{${parentIds.filter(isUuid).join(',')}}`, ...statement.bindings.slice(1)], true);
    const pages = new Map<string, PageResult<T>>(parentIds.map((id) => [id, { items: [], totalElements: 0, page, pageSize, sort: written.sort }]));
    // Rows are kept as they come (their __parent and __total columns are never read as fields).
    for (const row of rows) {
      const result = pages.get(row.__parent as string)!;
      result.totalElements = Number(row.__total);
      if (row.id !== null) result.items.push(rowSeenBy(ctx, this.resource, row as unknown as T));
    }
    return pages;
  }

  /**
   * A page with the nested pages of its rows, written by the database as one JSON text in one
   * statement: each level is the list the caller would get (same filter, order, paging and visibility),
   * its count and its limited rows correlated to their parent row, so Node neither reads rows nor
   * writes their JSON. Undefined when the caller may not read the rows as stored (a member reading
   * other users sees a projection), for the caller to answer the usual way. `key` names the shape among
   * the statements kept (by default, the shape itself; a shape that is the same for every request of a
   * kind, as REST's, is named by the kind and the request's parameters).
   */
  async pageAsJson(ctx: RequestContext, shape: JsonPage, key: { kind: string; params: object } = { kind: 'json', params: shape }): Promise<string | undefined> {
    if (!this.answersAsStored(ctx, shape)) return undefined;
    if (shape.params.parentId !== undefined) await this.assertParent(ctx, shape.params.parentId);
    const written = await this.lists.remember(ctx, key.kind, key.params, async () => {
      const { select } = await this.jsonPage(ctx, shape, 0);
      // The bytes left to the request's answer are the first value bound: each request binds its own.
      const statement = ctx.em.getKnex().raw(`select ${BOUNDED_JSON} from (select (?) as "json" offset 0) "j"`, [0, select]);
      return { statements: [sqlOf(statement)], paging: { page: 0, pageSize: 0 }, sort: [] };
    });
    const [statement] = written.statements;
    const [row] = await this.lists.run(ctx, statement, [ctx.budget.bytesLeft, ...statement.bindings.slice(1)], true);
    return jsonWithinBudget(ctx, row);
  }

  /**
   * One row by id with its references and nested pages, written by the database as one JSON text as
   * `pageAsJson` writes a page's rows. Undefined when the row is not one the caller's lists show (absent,
   * deleted, not theirs) or when they may not read it as stored: the caller answers that the usual way,
   * which tells null from a refusal.
   */
  async itemAsJson(ctx: RequestContext, id: string, row: JsonRow): Promise<string | undefined> {
    if (!isUuid(id) || !this.rowAnswersAsStored(ctx, row)) return undefined;
    const written = await this.lists.remember(ctx, 'json-item', row, async () => {
      const { select } = await this.jsonReferenced(ctx, row, 0, '"__item"."id"');
      // The id is the first value bound: each request binds its own.
      const statement = ctx.em
        .getKnex()
        .raw(`with "__item"("id") as (select ?::uuid) select ${BOUNDED_JSON} from (select (?) as "json" from "__item" offset 0) "j"`, [id, 0, select]);
      return { statements: [sqlOf(statement)], paging: { page: 0, pageSize: 0 }, sort: [] };
    });
    const answer = await this.runForItem(ctx, written, id);
    return jsonWithinBudget(ctx, answer) ?? undefined;
  }

  /**
   * One row by id as a REST answer shows it (`row`: engine/json-pages.ts), written by the database as
   * `itemAsJson` writes it, with the id and version its ETag names; refused as `get` refuses it (400,
   * 404, 403), in the same statement. Undefined when the caller may not read the row as stored.
   */
  async versionedItemAsJson(ctx: RequestContext, id: string, row: JsonRow): Promise<{ json: string; id: string; changeSequence: number } | undefined> {
    if (!this.rowAnswersAsStored(ctx, row)) return undefined;
    if (!isUuid(id)) throw BadRequestError.forField('id', 'must be a UUID');
    const written = await this.lists.remember(ctx, 'versioned-item', shapeKey(row), async () => {
      const plan = await planRead(ctx, this.resource, {});
      const alias = '__row0';
      const content = await this.jsonContent(ctx, row, 0, alias);
      const versioned = { entries: [...row.entries, { key: 'changeSequence', field: 'changeSequence' }] };
      const one = this.jsonRows(ctx, versioned, 0, and(plan.where(), { id: raw('"__item"."id"') })).limit(1);
      // Whether a live row has the id, seen or not (asked only when the caller sees none): a row the caller may not see is refused, not absent.
      const live = ctx.em
        .createQueryBuilder(this.entity, 'l0')
        .select(raw('1'))
        .where(and({ id: raw('"__item"."id"') }, this.live(ctx)))
        .limit(1);
      // The id is the first value bound, the bytes left to the answer the second: each request binds its own.
      const statement = ctx.em.getKnex().raw(
        `with "__item"("id") as (select ?::uuid) select ${BOUNDED_JSON}, "j"."id", "j"."changeSequence", case when "j"."json" is null then exists (?) end as "live"
           from "__item" left join lateral (select ${content.sql} as "json", "${alias}"."id", "${alias}"."changeSequence" from (?) as "${alias}" offset 0) "j" on true`,
        [id, 0, live.getKnexQuery(), ...content.bindings, one.getKnexQuery()],
      );
      return { statements: [sqlOf(statement)], paging: { page: 0, pageSize: 0 }, sort: [] };
    });
    // One row always: the id, joined to what the caller may see of it.
    const answer = (await this.runForItem(ctx, written, id))!;
    const json = jsonWithinBudget(ctx, answer);
    if (json !== undefined) return { json, id: answer.id as string, changeSequence: answer.changeSequence as number };
    if (answer.live) throw this.refusedRead(id);
    throw new NotFoundError(`no ${this.resource.name} with id ${id}`);
  }

  /** Runs an item's JSON statement, whose first two values are the id and the bytes left to the answer: each request binds its own. */
  private async runForItem(ctx: RequestContext, written: WrittenList, id: string): Promise<Record<string, unknown> | undefined> {
    const [statement] = written.statements;
    const [answer] = await this.lists.run(ctx, statement, [id.toLowerCase(), ctx.budget.bytesLeft, ...statement.bindings.slice(2)], true);
    return answer;
  }

  /** Whether every level of `shape` answers rows as stored: not so for users read by a member (see user-projection.ts). */
  private answersAsStored(ctx: RequestContext, shape: JsonPage): boolean {
    return shape.entries.every((entry) => !('content' in entry) || this.rowAnswersAsStored(ctx, entry.content));
  }

  private rowAnswersAsStored(ctx: RequestContext, row: JsonRow): boolean {
    if (!readsStoredFields(ctx, this.resource)) return false;
    return row.entries.every((e) => {
      if ('children' in e) return ctx.services.resource(e.children.path).answersAsStored(ctx, e.children.page);
      if ('reference' in e) return ctx.services.resource(e.reference.path).rowAnswersAsStored(ctx, e.reference.row);
      return true;
    });
  }

  /**
   * One level's page object as a SELECT of its JSON text; `parent` is the alias of the parent level's
   * rows, whose id the rows name in `foreignKey`. Aliases carry the depth, so that a level reads only
   * its own rows and its parent's. (The statement is wrapped: a Raw is thenable, and awaiting it would run it.)
   */
  private async jsonPage(ctx: RequestContext, shape: JsonPage, depth: number, parent?: { foreignKey: string; alias: string }): Promise<{ select: Knex.Raw }> {
    const plan = await planRead(ctx, this.resource, shape.params);
    const { page, pageSize } = plan.paging;
    const where = () => (parent ? and(plan.where(), { [parent.foreignKey]: sql.ref(`${parent.alias}.id`) }) : plan.where());
    const rows = `__row${depth}`;
    const counted = `__count${depth}`;
    const offset = page * pageSize;
    const total = `"${counted}"."count"`;
    const totalPages = `ceil(${total}::numeric / ${pageSize})::int`;
    // As summarizePage (page.ts) has them, from the count of the same snapshot.
    const summary: Record<PageSummaryField, string> = {
      totalElements: `${total}::text`,
      totalPages: `${totalPages}::text`,
      number: `'${page}'`,
      size: `'${pageSize}'`,
      numberOfElements: `least(greatest(${total} - ${offset}, 0), ${pageSize})::text`,
      first: `'${page === 0}'`,
      last: `(${page} >= ${totalPages} - 1)::text`,
      pageable: `'${JSON.stringify(pageableOf({ page, pageSize, sort: plan.sort }))}'`,
      sort: `'${JSON.stringify(sortStateOf(plan.sort))}'`,
    };
    const members: [string, string][] = [];
    const bindings: Knex.RawBinding[] = [];
    let needsCount = false;
    for (const entry of shape.entries) {
      if ('summary' in entry) {
        members.push([memberName(entry.key), summary[entry.summary]]);
        needsCount ||= COUNTED_SUMMARY.has(entry.summary);
      } else if ('literal' in entry) members.push([memberName(entry.key), nameText(entry.literal)]);
      else {
        const content = await this.jsonContent(ctx, entry.content, depth, rows);
        const paged = this.jsonRows(ctx, entry.content, depth, where())
          .orderBy(plan.orderBy(levelAlias(depth)) as never)
          .limit(pageSize, offset);
        // The rows are aggregated in the order the limited subquery gives them, and no further than the
        // first that takes the text past RESPONSE_MAX_BYTES: an answer that large is refused whatever
        // follows, and the database never builds a text larger than it can hold. Each row's text is
        // written once (`offset 0` keeps the subquery whole: merged into the next, its text would be
        // written again for each use of it, at every level).
        const written = `(select ${content.sql} as "json" from (?) as "${rows}" offset 0)`;
        const running = `(select "json", sum(octet_length("json")) over (rows between unbounded preceding and 1 preceding) as "before" from ${written} as "${rows}_json")`;
        const kept = `select '[' || string_agg("json", ',') || ']' from ${running} as "${rows}_kept" where coalesce("before", 0) <= ${ctx.services.requestLimits.responseMaxBytes}`;
        members.push([memberName(entry.key), `coalesce((${kept}), '[]')`]);
        bindings.push(...content.bindings, paged.getKnexQuery());
      }
    }
    const object = shape.bare ? members[0][1] : objectText(members);
    const knex = ctx.em.getKnex();
    if (!needsCount) return { select: knex.raw(`select ${object}`, bindings) };
    const count = parent ? ctx.em.createQueryBuilder(this.entity, `c_${depth}`).count().where(where()).getKnexQuery() : plan.count(`c_${depth}`);
    return { select: knex.raw(`select ${object} from (?) as "${counted}"`, [...bindings, count]) };
  }

  /** A row of a page as the SQL text of its JSON object: its columns and its children's pages. */
  private async jsonContent(ctx: RequestContext, row: JsonRow, depth: number, alias: string): Promise<{ sql: string; bindings: Knex.Raw[] }> {
    const members: [string, string][] = [];
    const bindings: Knex.Raw[] = [];
    for (const entry of row.entries) {
      if ('field' in entry) members.push([memberName(entry.key), jsonValue(this.fieldNamed(entry.field), alias)]);
      else if ('literal' in entry) members.push([memberName(entry.key), nameText(entry.literal)]);
      else if ('nothing' in entry) members.push([memberName(entry.key), `'null'`]);
      else if ('children' in entry) {
        const child = ctx.services.resource(entry.children.path);
        members.push([memberName(entry.key), '(?)']);
        bindings.push((await child.jsonPage(ctx, entry.children.page, depth + 1, { foreignKey: entry.children.foreignKey, alias })).select);
      } else {
        const target = ctx.services.resource(entry.reference.path);
        members.push([memberName(entry.key), `coalesce((?), 'null')`]);
        bindings.push((await target.jsonReferenced(ctx, entry.reference.row, depth + 1, `"${alias}"."${entry.reference.foreignKey}"`)).select);
      }
    }
    return { sql: objectText(members), bindings };
  }

  /**
   * The row a reference names (`id`, the SQL of the referring column) as a SELECT of its JSON text,
   * among the rows the caller may see as the list would show them: no row when it is not theirs, as a
   * reference read by id answers null.
   */
  private async jsonReferenced(ctx: RequestContext, row: JsonRow, depth: number, id: string): Promise<{ select: Knex.Raw }> {
    const plan = await planRead(ctx, this.resource, {});
    const alias = `__row${depth}`;
    const content = await this.jsonContent(ctx, row, depth, alias);
    const one = this.jsonRows(ctx, row, depth, and(plan.where(), { id: raw(id) })).limit(1);
    return { select: ctx.em.getKnex().raw(`select ${content.sql} from (?) as "${alias}"`, [...content.bindings, one.getKnexQuery()]) };
  }

  /** The rows of one level (see `levelAlias`) meeting `where`, with the columns `row` reads. */
  private jsonRows(ctx: RequestContext, row: JsonRow, depth: number, where: Record<string, unknown>) {
    const alias = levelAlias(depth);
    return ctx.em
      .createQueryBuilder(this.entity, alias)
      .select(this.lists.selection(ctx, alias, columnsOf(row)) as never)
      .where(where);
  }

  private fieldNamed(name: string): FieldMeta {
    const field = this.resource.fields.find((f) => f.name === name);
    if (!field || !writableAsJson(field)) throw new Error(`${this.resource.name}.${name} is not a stored field`);
    return field;
  }

  /** The visible, live rows among `ids` (used by the per-request loaders). */
  async findByIds(ctx: RequestContext, ids: readonly string[]): Promise<T[]> {
    const wellFormed = ids.filter(isUuid);
    const prepared = await this.prepared(ctx, 'many', wellFormed);
    if (prepared) return rowsSeenBy(ctx, this.resource, prepared as T[]);
    return rowsSeenBy(ctx, this.resource, await this.rows(ctx, and({ id: { $in: wellFormed } }, this.live(ctx), await visibleRows(ctx, this.resource))));
  }

  /**
   * The prepared hot read (one statement, see item-statement.ts), outside transactions: a transaction's
   * reads must see its own writes, so they go through its connection.
   */
  private async prepared(ctx: RequestContext, shape: 'one' | 'many', id: string | string[]): Promise<Row[] | undefined> {
    const reads = ctx.services.reads;
    if (!reads || ctx.em.isInTransaction()) return undefined;
    const statement = this.itemStatement(ctx, shape);
    return reads.query<Row>(statement, await this.itemValues(ctx, statement, id), ctx.reader, ctx.budget);
  }

  itemStatement(ctx: RequestContext, shape: ItemShape, action?: WriteAction): ItemStatement {
    const viewer = viewerOf(ctx);
    const key = `${shape}:${action}:${viewer}`;
    let statement = this.statements.get(key);
    if (!statement) {
      const resourceOf = (entity: EntityClass<object>) => ctx.services.forEntity(entity)?.resource;
      statement = itemStatement(this.resource, ctx.em.getMetadata(), resourceOf, viewer, shape, action && this.resource.access[action]);
      this.statements.set(key, statement);
    }
    return statement;
  }

  /** Which row the caller may write, as the condition of an UPDATE (see `lock`). */
  private writeGuard(ctx: RequestContext, action: WriteAction): WriteGuard {
    const viewer = viewerOf(ctx);
    const key = `${action}:${viewer}`;
    let guard = this.guards.get(key);
    if (!guard) {
      const resourceOf = (entity: EntityClass<object>) => ctx.services.forEntity(entity)?.resource;
      guard = writeGuard(this.resource, ctx.em.getMetadata(), resourceOf, viewer, this.resource.access[action]);
      this.guards.set(key, guard);
    }
    return guard;
  }

  /** The values an item statement binds: the id(s), then the caller's organizations, owned ones, user id. */
  async itemValues(ctx: RequestContext, statement: Pick<ItemStatement, 'parameters'>, id: string | string[]): Promise<unknown[]> {
    const values: unknown[] = [id];
    for (const parameter of statement.parameters) {
      if (parameter === 'user') values.push(ctx.user?.id ?? null);
      else values.push([...(await memberships(ctx))[parameter === 'owned' ? 'owner' : 'member']]);
    }
    return values;
  }

  /**
   * Reads return plain rows (property names, converted values) rather than managed entities: a read
   * changes nothing, and skipping the unit of work's bookkeeping makes large pages several times cheaper.
   */
  private rows(ctx: RequestContext, where: Record<string, unknown>): Promise<T[]> {
    return ctx.em.createQueryBuilder(this.entity).select('*').where(where).execute('all', true) as Promise<T[]>;
  }

  /** The row by id; below a parent (`parentId`), only one of that parent's rows. */
  get(ctx: RequestContext, id: string, parentId?: string): Promise<T> {
    return this.underParent(ctx, id, parentId, () => this.findVisible(ctx, id));
  }

  /**
   * The row a body field names (`statusId`): as `get`, but one that does not exist (or is deleted) is
   * 400 naming the field, as for any reference; 403 when it is not the caller's to see.
   */
  async getNamedBy(ctx: RequestContext, field: string, id: string): Promise<T> {
    try {
      return await this.findVisible(ctx, id);
    } catch (error) {
      if (error instanceof NotFoundError) throw BadRequestError.forField(field, `no ${this.resource.name} with id ${id}`);
      throw error;
    }
  }

  async sequence(ctx: RequestContext, id: string, parentId?: string): Promise<number> {
    return (await this.get(ctx, id, parentId)).changeSequence;
  }

  async create(ctx: RequestContext, body: unknown, parentId?: string): Promise<T> {
    return (await this.createOrReplay(ctx, body, parentId)).row;
  }

  /**
   * A create that says whether it wrote: `created` is false when the body repeats an earlier create
   * (`replayOf`), whose row is answered (REST answers it 200 rather than 201).
   */
  async createOrReplay(ctx: RequestContext, body: unknown, parentId?: string): Promise<{ row: T; created: boolean }> {
    if (parentId !== undefined) {
      await this.assertParent(ctx, parentId);
      body = this.namingParent(body, parentId);
    }
    const { values, sent } = parseInput(this.resource, body, 'create');
    // A create whose checks all pass before the insert, and whose rules only record other rows with it,
    // is one INSERT statement: its checks only read, and it is a transaction in itself.
    if (this.createsInOneStatement && !ctx.em.isInTransaction()) {
      await writableRows(ctx, this.resource, 'create');
      const organizationId = await this.assertReferencesExist(ctx, values);
      if (await this.writableBeforeInsert(ctx, organizationId)) {
        const row = await ctx.oneStatement(async (batch) => {
          const created = await this.insert(batch, values);
          await this.resource.rules.afterCreate?.(batch, created);
          return created;
        });
        return { row: rowSeenBy(ctx, this.resource, row), created: true };
      }
    }
    const { row, created } = await ctx.transaction(async (tx) => {
      // Also loads the caller's memberships as they are before the insert.
      await writableRows(tx, this.resource, 'create');
      await this.resource.rules.beforeCreate?.(tx, values as Partial<T>, sent as Partial<T>);
      const organizationId = await this.assertReferencesExist(tx, values);
      const checkedBefore = await this.writableBeforeInsert(tx, organizationId);
      const earlier = await this.resource.rules.replayOf?.(tx, values as Partial<T>);
      if (earlier) return { row: earlier, created: false };
      const created = await this.insert(tx, values);
      await this.resource.rules.afterCreate?.(tx, created);
      if (!checkedBefore) await this.assertWritable(tx, created.id, 'create');
      await this.announce(tx);
      return { row: created, created: true };
    });
    return { row: rowSeenBy(ctx, this.resource, row), created };
  }

  private get createsInOneStatement(): boolean {
    const { rules, affectsAccess } = this.resource;
    return !rules.beforeCreate && (!rules.afterCreate || !!rules.afterCreateOnlyInserts) && !rules.replayOf && !affectsAccess;
  }

  /**
   * One INSERT of the stored fields, server fields completed (the owner of a private row: the caller,
   * unless the server names one); values never stored (a new key's plain text) stay in the answer.
   */
  private async insert(ctx: RequestContext, values: Record<string, unknown>, then?: FollowingStatement): Promise<T> {
    const now = new Date();
    const privacy = this.resource.privacy;
    if (privacy && 'owner' in privacy && values[privacy.owner] === undefined) values[privacy.owner] = ctx.user?.id ?? null;
    this.completeServerFields(values);
    // A body never carries an id (server-owned); a row the server records may (a linked delta's create names its data object).
    Object.assign(values, { id: (values.id as string | undefined) ?? randomUUID(), uuid: randomUUID(), createdOn: now, updatedOn: now, changeSequence: 0 });
    this.refreshSearchText(values);
    const stored = this.storedValues(ctx, values);
    if (ctx.pendingInserts) ctx.pendingInserts.push({ entity: this.entity, values: stored, then });
    else await insertRow(ctx.em, this.entity, stored, then);
    return values as T;
  }

  async update(ctx: RequestContext, id: string, body: unknown, parentId?: string, ifMatch?: IfMatch): Promise<T> {
    const { values, sent, changeSequence } = parseInput(this.resource, body, 'update');
    assertAgreeing(id, changeSequence, ifMatch);
    if (parentId === undefined && ifMatch === undefined && isUuid(id) && !ctx.em.isInTransaction() && this.updatesAlone(values)) {
      const written = await this.updateAlone(ctx, id, values, changeSequence);
      if (written) return rowSeenBy(ctx, this.resource, written);
      // Nothing written: the row is unchanged, the changeSequence stale, or the row not the caller's; the transaction below says which.
    }
    const row = await ctx.transaction(async (tx) => {
      // The row as stored, to compare, hand to the rules and answer; the UPDATE below is the only write.
      const entity = await this.underParent(tx, id, parentId, async () => storedRow(tx.em, this.entity, await this.lockForWrite(tx, id, 'update')) as T);
      assertMatching(entity, ifMatch);
      if (changeSequence !== undefined && changeSequence !== entity.changeSequence) {
        throw new StaleChangeSequenceError(entity.changeSequence, changeSequence);
      }
      const changes = changedValues(entity as Row, values);
      await this.resource.rules.beforeUpdate?.(tx, entity, changes as Partial<T>, sent as Partial<T>);
      const effective = changedValues(entity as Row, changes);
      if (Object.keys(effective).length === 0) return entity;
      await this.assertReferencesExist(tx, effective, entity as Row);
      const updated = await this.write(tx, entity, effective);
      await this.resource.rules.afterUpdate?.(tx, updated, effective as Partial<T>, entity);
      return updated;
    });
    return rowSeenBy(ctx, this.resource, row);
  }

  /**
   * Whether an update of these fields is written as one statement: no rule reacts to them, and none of
   * them can move the row (a reference, its owner or what its privacy reads), grant access or feed the
   * search text, which would need the row as it was.
   */
  private updatesAlone(values: Record<string, unknown>): boolean {
    const { rules, affectsAccess } = this.resource;
    const watched = rules.beforeUpdate || rules.afterUpdate ? rules.updateWatches : [];
    if (affectsAccess || !watched) return false;
    return Object.keys(values).every((name) => !watched.includes(name) && !this.fieldsNeedingTheRow.has(name));
  }

  private get fieldsNeedingTheRow(): Set<string> {
    const searched = this.resource.fields.some((f) => f.name === 'searchText');
    this.needingTheRow ??= new Set([
      ...this.accessFields,
      ...this.resource.fields.filter((f) => f.reference || (searched && f.options.searchable)).map((f) => f.name),
    ]);
    return this.needingTheRow;
  }

  /**
   * The update as one UPDATE ... RETURNING whose condition is the locking read's (the live row the caller
   * may see and write) and the body's changeSequence, written only when a value differs: the row as
   * written, or undefined when nothing was.
   */
  private async updateAlone(ctx: RequestContext, id: string, values: Record<string, unknown>, changeSequence: number | undefined): Promise<T | undefined> {
    await writableRows(ctx, this.resource, 'update');
    const guard = this.writeGuard(ctx, 'update');
    const [row] =
      (await updateGuarded(ctx.em, this.entity, {
        guard,
        guardValues: await this.itemValues(ctx, guard, id),
        changes: values,
        stamps: { updatedOn: new Date() },
        increments: ['changeSequence'],
        expected: changeSequence === undefined ? {} : { changeSequence },
      })) ?? [];
    return row && storedRow(ctx.em, this.entity, row);
  }

  /**
   * A change the server decides (lock, status ...) rather than a body: the row is locked for the write as
   * an update's is (400, 404, 403), `decide` answers the changes or refuses, and they are written with
   * the next changeSequence in the same transaction, where `decide` may write other rows too.
   */
  async modify(ctx: RequestContext, id: string, decide: (tx: RequestContext, row: T) => Promise<Partial<T>>): Promise<T> {
    const row = await ctx.transaction(async (tx) => {
      const entity = storedRow(tx.em, this.entity, await this.lockForWrite(tx, id, 'update')) as T;
      const effective = changedValues(entity as Row, (await decide(tx, entity)) as Record<string, unknown>);
      if (Object.keys(effective).length === 0) return entity;
      await this.assertReferencesExist(tx, effective, entity as Row);
      return this.write(tx, entity, effective);
    });
    return rowSeenBy(ctx, this.resource, row);
  }

  /** One prepared UPDATE of exactly the changed columns, with the next changeSequence; the unit of work has nothing to compare. */
  private async write(tx: RequestContext, entity: T, effective: Record<string, unknown>): Promise<T> {
    Object.assign(effective, { changeSequence: entity.changeSequence + 1, updatedOn: new Date() });
    this.refreshSearchText(effective, entity as Row);
    await updateRow(tx.em, this.entity, entity.id, effective);
    // Only a change of owner (the first step of the scope path) or of what its privacy reads can move the row out of the caller's reach.
    if (this.accessFields.some((field) => field in effective)) await this.assertWritable(tx, entity.id, 'update');
    await this.announce(tx);
    return { ...entity, ...effective } as T;
  }

  /**
   * A row the server writes itself on a caller's behalf (a task activity, a platform event): no body
   * to parse and no permission to check, in the caller's transaction when there is one; `then` goes
   * in the same statement (an event's job).
   */
  record(ctx: RequestContext, values: Partial<T>, then?: FollowingStatement): Promise<T> {
    return this.insert(ctx, { ...values }, then);
  }

  async delete(ctx: RequestContext, id: string, parentId?: string, ifMatch?: IfMatch): Promise<void> {
    await ctx.transaction(async (tx) => {
      const entity = (await this.underParent(
        tx,
        id,
        parentId,
        async () => tx.em.map(this.entity, (await this.lockForWrite(tx, id, 'delete')) as never) as T,
      )) as Row;
      assertMatching(entity as unknown as T, ifMatch);
      await this.resource.rules.beforeDelete?.(tx, entity as unknown as T);
      const before = { ...entity } as unknown as T;
      const mode = this.resource.delete;
      if (mode.kind === 'soft') {
        const now = new Date();
        Object.assign(entity, { [mode.field]: mode.value, changeSequence: entity.changeSequence + 1, updatedOn: now });
        if (mode.stamp) Object.assign(entity, { deletedDate: now, deleteUserId: tx.user?.id ?? null, deleteUserEmail: tx.user?.email ?? null });
      } else {
        tx.em.remove(entity);
      }
      try {
        await tx.em.flush();
      } catch (error) {
        if (error instanceof ForeignKeyConstraintViolationException) {
          throw new ConflictError(`${this.resource.name} ${id} is still referenced by other records`);
        }
        throw error;
      }
      await this.resource.rules.afterDelete?.(tx, before);
      await this.announce(tx);
    });
  }

  /** A write to a resource that decides access tells every process to forget cached credentials. */
  private async announce(tx: RequestContext): Promise<void> {
    if (this.resource.affectsAccess) await announceAccessChange(tx);
  }

  /**
   * The parent a nested path names (`{orgId}`) must be a row the caller may see (400 malformed, 404
   * absent, 403 not theirs), and, where owners alone read the collection, one they own (403).
   */
  private async assertParent(ctx: RequestContext, parentId: string): Promise<void> {
    const field = parentField(this.resource);
    if (!isUuid(parentId)) throw BadRequestError.forField(field, 'must be a UUID');
    const target = this.resource.fields.find((f) => f.name === field)!.reference!.target();
    await ctx.services.forEntity(target)!.get(ctx, parentId);
    if (this.resource.readers !== 'owner' || ctx.isAdmin) return;
    const organizationId = await this.organizationOf(ctx, { [field]: parentId.toLowerCase() });
    if (!organizationId || !(await memberships(ctx)).owner.has(organizationId)) {
      throw new ForbiddenError(`only owners of organization ${organizationId ?? parentId} may use its ${this.resource.listName}`);
    }
  }

  /**
   * The row `read` finds, when it is one of the path's parent (reading it proves the parent is the
   * caller's: one statement, as for any read by id). Otherwise the parent answers first (400, 404, 403),
   * and a row of another parent is not found here.
   */
  private async underParent(ctx: RequestContext, id: string, parentId: string | undefined, read: () => Promise<T>): Promise<T> {
    if (parentId === undefined) return read();
    const field = parentField(this.resource);
    const notHere = () => new NotFoundError(`no ${this.resource.name} with id ${id} in ${field} ${parentId}`);
    let row: T;
    try {
      row = await read();
    } catch (error) {
      await this.assertParent(ctx, parentId);
      // Refused a row of another parent: under this one, there is no such row.
      if (error instanceof ForbiddenError && !(await this.exists(ctx, { id: id.toLowerCase(), [field]: parentId.toLowerCase() }))) throw notHere();
      throw error;
    }
    if (String((row as Row)[field]).toLowerCase() === parentId.toLowerCase()) return row;
    await this.assertParent(ctx, parentId);
    throw notHere();
  }

  /** A create body below a parent names that parent: the path's, unless the body names it too (it must agree). */
  private namingParent(body: unknown, parentId: string): unknown {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    const field = parentField(this.resource);
    const relation = this.resource.fields.find((f) => f.name === field)!.reference!.relation;
    const named = (body as Record<string, unknown>)[field] ?? ((body as Record<string, unknown>)[relation] as { id?: unknown } | undefined)?.id;
    if (named === undefined || named === null) return { ...body, [field]: parentId };
    if (String(named).toLowerCase() !== parentId.toLowerCase()) throw BadRequestError.forField(field, `must be the path's ${parentId} when given`);
    return body;
  }

  /**
   * Every row a list request matches (its filter, query and sort; never its page), for an export: how
   * many first, refused past `maxRows` before any row is read, then batches read by keyset, each
   * continuing after the last row of the one before on the order's index: no offset is skipped over,
   * and no connection is held between batches (a slow reader holds none).
   */
  async exportRows(ctx: RequestContext, params: ListParams): Promise<{ total: number; batches: AsyncGenerator<T[]> }> {
    const { exportMaxRows: maxRows } = ctx.services;
    // An export streams its rows rather than answering them: RESPONSE_MAX_BYTES does not bound it.
    ctx.budget = ctx.budget.withoutByteLimit();
    if (params.parentId !== undefined) await this.assertParent(ctx, params.parentId);
    const plan = await planRead(ctx, this.resource, params);
    const total = Number((await this.lists.run(ctx, sqlOf(plan.count('c0'))))[0].count);
    if (total > maxRows) {
      throw new BadRequestError(`the export matches ${total} rows, more than EXPORT_MAX_ROWS (${maxRows}): narrow it with filter or query`);
    }
    return { total, batches: this.keysetBatches(ctx, params, plan) };
  }

  /**
   * The batches of an export: each at most `exportBatchRows` rows and about EXPORT_BATCH_BYTES of them
   * written out (never less than one row), so that a reader who holds one back holds little; and no
   * more than `exportMaxRows` rows in all, however the rows move while they are read (a row whose sort
   * key changes behind the last batch comes again): an export with more ends with an error.
   */
  private async *keysetBatches(ctx: RequestContext, params: ListParams, plan: ReadPlan): AsyncGenerator<T[]> {
    const { exportMaxRows: maxRows, exportBatchRows: batchSize } = ctx.services;
    let last: unknown[] | undefined;
    let streamed = 0;
    let plannedAt = ctx.services.accessCache.version;
    let keys = plan.keys('e0');
    for (;;) {
      // A change of access that committed while the export streams holds for its next batch.
      if (ctx.services.accessCache.version !== plannedAt) {
        plannedAt = ctx.services.accessCache.version;
        await ctx.confirmAccess();
        plan = await planRead(ctx, this.resource, params);
        keys = plan.keys('e0');
      }
      const rows = await this.lists.run(ctx, this.exportBatch(ctx, plan, keys, last, Math.min(batchSize, maxRows - streamed)));
      if (rows.length === 0) return;
      const end = rows[rows.length - 1];
      last = keys.map((_, index) => end[keyColumn(index)]);
      streamed += rows.length;
      yield rowsSeenBy(ctx, this.resource, rows as T[]);
      if (!end[MORE_COLUMN]) return;
      if (streamed >= maxRows)
        throw new BadRequestError(
          `the export reached EXPORT_MAX_ROWS (${maxRows}) rows as it was streamed, and more rows follow: it ends here; narrow it with filter or query`,
        );
    }
  }

  /**
   * One batch of an export as a statement: up to `limit` rows after `last`, cut where their running size
   * passes EXPORT_BATCH_BYTES (the first row always kept), each row saying whether another follows it.
   */
  private exportBatch(ctx: RequestContext, plan: ReadPlan, keys: SortKey[], last: unknown[] | undefined, limit: number): WrittenSql {
    const window = keyWindow(keys);
    const rows = ctx.em
      .createQueryBuilder(this.entity, 'e0')
      .select([
        ...this.lists.selection(ctx, 'e0', undefined),
        ...keyColumns(keys),
        raw(`sum(${this.lists.encodedSize(ctx, 'e0')}) ${window.text} as "${BYTES_COLUMN}"`, window.bindings),
        raw(`row_number() ${window.text} as "${POSITION_COLUMN}"`, window.bindings),
        raw(`lead(true) ${window.text} as "${MORE_COLUMN}"`, window.bindings),
      ] as never)
      .where(and(plan.where(), last && afterLast(keys, last)))
      .orderBy(keyOrder(keys) as never)
      .limit(limit);
    const knex = ctx.em.getKnex();
    const within = knex
      .select('*')
      .from(rows.getKnexQuery().as('b'))
      .where(knex.raw(`"${BYTES_COLUMN}" <= ? or "${POSITION_COLUMN}" = 1`, [EXPORT_BATCH_BYTES]))
      .orderByRaw(keyColumnOrder(keys));
    return sqlOf(within);
  }

  /**
   * The row (its columns), locked for the write, in one statement when the caller may see and write it
   * (FOR UPDATE of the row alone: the joined parents are only read); otherwise the refusal: 400, 404 or 403.
   */
  private async lockForWrite(ctx: RequestContext, id: string, action: WriteAction): Promise<Record<string, unknown>> {
    if (!isUuid(id)) throw BadRequestError.forField('id', 'must be a UUID');
    // Refuses at once a caller who may not write the resource at all.
    await writableRows(ctx, this.resource, action);
    const statement = this.itemStatement(ctx, 'lock', action);
    const [row] = await runPreparedInTransaction<Row>(ctx.em, statement, await this.itemValues(ctx, statement, id));
    if (row) return row;
    await this.findVisible(ctx, id);
    throw new ForbiddenError(`you may not ${action} this ${this.resource.name}`);
  }

  /** The properties whose change may change who sees the row: its owner field and those its privacy reads. */
  private get accessFields(): string[] {
    return [...(this.ownerField ? [this.ownerField] : []), ...privacyFields(this.resource)];
  }

  /** The property that says whose the row is: the first step of its scope path (none: the row itself). */
  private get ownerField(): string | undefined {
    const scope = this.resource.scope;
    return scope.kind === 'organization' || scope.kind === 'user' ? scope.path.split('.')[0] : undefined;
  }

  /**
   * Whether a new row is the caller's to write, decided before anything is written when its
   * organization is known from the references just checked: 403 when the caller is not a member (or
   * not an owner, where owners alone create). False: it is decided after the insert, in the same
   * transaction (a write that lands elsewhere is then undone).
   */
  private async writableBeforeInsert(ctx: RequestContext, organizationId: string | undefined): Promise<boolean> {
    if (ctx.isAdmin) return true;
    const writer = this.resource.access.create;
    if (this.resource.scope.kind !== 'organization' || !organizationId || (writer !== 'member' && writer !== 'owner')) return false;
    const mine = await memberships(ctx);
    if (!(writer === 'owner' ? mine.owner : mine.member).has(organizationId)) {
      throw new ForbiddenError(`you may not create ${this.resource.listName} in organization ${organizationId}`);
    }
    return true;
  }

  /** 400 for a malformed id, 404 when no live row has it (or its parent is deleted), 403 when the caller may not see it. */
  private async findVisible(ctx: RequestContext, id: string): Promise<T> {
    if (!isUuid(id)) throw BadRequestError.forField('id', 'must be a UUID');
    const prepared = await this.prepared(ctx, 'one', id);
    if (prepared) {
      const [row] = prepared;
      if (!row) throw new NotFoundError(`no ${this.resource.name} with id ${id}`);
      if (row[VISIBLE_COLUMN] === false) throw this.refusedRead(id);
      delete row[VISIBLE_COLUMN];
      return rowSeenBy(ctx, this.resource, row as T);
    }
    return this.findAmong(ctx, id, and({ id: id.toLowerCase() }, this.live(ctx)));
  }

  /**
   * The row by id also when DELETE has hidden it, as long as its parents are live (a deleted task
   * group, whose history stays readable): 404 when no such row ever was, 403 when it is not the caller's.
   */
  async getOnRecord(ctx: RequestContext, id: string): Promise<T> {
    if (!isUuid(id)) throw BadRequestError.forField('id', 'must be a UUID');
    return this.findAmong(ctx, id, and({ id: id.toLowerCase() }, this.liveParents(ctx)));
  }

  /** The row `candidates` holds if the caller may see it; 403 when it exists but is not theirs, 404 when it does not. */
  private async findAmong(ctx: RequestContext, id: string, candidates: Record<string, unknown>): Promise<T> {
    const visible = await visibleRows(ctx, this.resource);
    const [entity] = await this.rows(ctx, and(candidates, visible));
    if (entity) return rowSeenBy(ctx, this.resource, entity);
    if (visible && (await this.exists(ctx, candidates))) throw this.refusedRead(id);
    throw new NotFoundError(`no ${this.resource.name} with id ${id}`);
  }

  /** A live row the caller may not see: 403, or 404 as for no row at all where its existence is hidden too. */
  private refusedRead(id: string): ApiError {
    if (hidesExistence(this.entity)) return new NotFoundError(`no ${this.resource.name} with id ${id}`);
    return new ForbiddenError(`you may not access ${this.resource.name} ${id}`);
  }

  /** Rows hidden by DELETE, directly or through a deleted parent. */
  live(_ctx: RequestContext): Record<string, unknown> {
    return liveRows(this.resource) ?? {};
  }

  /** The parents along the scope path (a task's project, its organization) must not be deleted either. */
  private liveParents(_ctx: RequestContext): Record<string, unknown> | undefined {
    return liveParentRows(this.resource);
  }

  async exists(ctx: RequestContext, where: Record<string, unknown>): Promise<boolean> {
    const [row] = await ctx.em.createQueryBuilder(this.entity, 'x0').select('id').where(where).limit(1).execute('all', true);
    return row !== undefined;
  }

  /**
   * The row must be the caller's to write: checked before an update or delete, and again after a create
   * or update (inside its transaction), so that a write into another tenant is undone. Memberships are
   * those from before the write: a member who adds themselves to the owners team is not yet an owner.
   */
  private async assertWritable(ctx: RequestContext, id: string, action: WriteAction): Promise<void> {
    const writable = await writableRows(ctx, this.resource, action);
    if (writable && !(await this.exists(ctx, and({ id }, writable)))) {
      throw new ForbiddenError(`you may not ${action} this ${this.resource.name}`);
    }
  }

  /**
   * Every reference must name a live record the caller can see (403 when it exists but is not theirs,
   * 400 when it does not), and a tenant record must belong to the same organization as the row that
   * refers to it (400). A stored row keeps its organization (its tenant key): a reference that would move
   * it to another is 400. Answers the organization the row belongs to, when it has one.
   */
  private async assertReferencesExist(ctx: RequestContext, values: Record<string, unknown>, current?: Record<string, unknown>): Promise<string | undefined> {
    const references = this.resource.fields.filter((f) => f.reference && typeof values[f.name] === 'string');
    if (references.length === 0) return undefined;
    const found = new Map<string, ReferencedRow>();
    for (const field of references) {
      const id = values[field.name] as string;
      const row = await this.referencedRow(ctx, field, id);
      if (!row) throw await this.refusedReference(ctx, field, id);
      found.set(field.name, row);
    }
    const organizationId =
      (current && this.storedOrganization(current)) ?? this.organizationThroughOwner(found) ?? (await this.organizationOf(ctx, { ...current, ...values }));
    for (const field of references) {
      const targetScope = ctx.services.forEntity(field.reference!.target())?.resource.scope;
      if (targetScope?.kind === 'organization' && organizationId && found.get(field.name)![ORGANIZATION_COLUMN] !== organizationId) {
        throw BadRequestError.forField(field.name, `no ${field.reference!.target().name} with id ${values[field.name]} in this organization`);
      }
    }
    for (const field of references) await this.assertWithin(ctx, field, values[field.name] as string, { ...current, ...values });
    return organizationId;
  }

  /** A reference declared `within` a field (a task's group, within its project) names a row holding the same value of it (400 otherwise). */
  private async assertWithin(ctx: RequestContext, field: FieldMeta, id: string, row: Record<string, unknown>): Promise<void> {
    const within = field.reference!.within;
    if (!within) return;
    const target = field.reference!.target();
    const [referenced] = await ctx.em.createQueryBuilder(target).select(within).where({ id }).execute('all', true);
    const value = (referenced as Record<string, unknown> | undefined)?.[within];
    if (String(value).toLowerCase() !== String(row[within]).toLowerCase())
      throw BadRequestError.forField(field.name, `${target.name} ${id} is not one of this ${this.resource.name}'s ${within}`);
  }

  /**
   * Why a reference the caller cannot use is refused: 403 when the record exists, 400 when it does not (or
   * is deleted); 400 in both cases where the target hides the existence of rows the caller may not see.
   */
  private async refusedReference(ctx: RequestContext, field: FieldMeta, id: string): Promise<ApiError> {
    const target = field.reference!.target();
    const exists = !hidesExistence(target) && ctx.services.forEntity(target) && (await this.referencedRow(ctx.asSystem(), field, id));
    return exists
      ? new ForbiddenError(`${field.name}: you may not use ${target.name} ${id}`, [{ field: field.name, message: `you may not use ${target.name} ${id}` }])
      : BadRequestError.forField(field.name, `no ${target.name} with id ${id}`);
  }

  /** The live row a reference names, if the caller may see it (any live one for `anyRecord` references). */
  private async referencedRow(ctx: RequestContext, field: FieldMeta, id: string): Promise<ReferencedRow | undefined> {
    const target = field.reference!.target();
    const service = ctx.services.forEntity(target);
    if (!service) return (await ctx.em.count(target, { id } as FilterQuery<object>)) > 0 ? { id, [ORGANIZATION_COLUMN]: null } : undefined;
    const reader = field.reference!.anyRecord ? ctx.asSystem() : ctx;
    const statement = service.itemStatement(reader, 'reference');
    const [row] = await runPreparedInTransaction<ReferencedRow>(ctx.em, statement, await service.itemValues(reader, statement, id));
    return row;
  }

  /**
   * The organization of the row, known at no cost when its owner (the first step of its scope path) is
   * one of the references just read: a task's organization is its project's.
   */
  private organizationThroughOwner(found: Map<string, ReferencedRow>): string | undefined {
    const owner = this.ownerField;
    const row = owner && this.resource.scope.kind === 'organization' ? found.get(owner) : undefined;
    const organization = row?.[ORGANIZATION_COLUMN];
    return typeof organization === 'string' ? organization : undefined;
  }

  /** The organization a stored row belongs to: its tenant key. */
  private storedOrganization(row: Record<string, unknown>): string | undefined {
    const key = tenantKeyOf(this.resource);
    const value = key && row[key.property];
    return typeof value === 'string' ? value : undefined;
  }

  /** The organization a row (given as its values) belongs to, following the scope path through references. */
  private async organizationOf(ctx: RequestContext, row: Record<string, unknown>): Promise<string | undefined> {
    if (this.resource.scope.kind !== 'organization') return undefined;
    const [first, ...rest] = this.resource.scope.path.split('.');
    let value = row[first];
    let fields = this.resource.fields;
    let step = first;
    for (const next of rest) {
      const target = fields.find((f) => f.name === step)?.reference?.target();
      if (!target || typeof value !== 'string') return undefined;
      const [parent] = await ctx.em.createQueryBuilder(target).select(['id', next]).where({ id: value }).execute('all', true);
      value = (parent as Record<string, unknown> | undefined)?.[next];
      fields = fieldsOf(target);
      step = next;
    }
    return typeof value === 'string' ? value : undefined;
  }

  /** The values the table has columns for (also properties the ORM maps beyond the declared fields). */
  private storedValues(ctx: RequestContext, values: Record<string, unknown>): Record<string, unknown> {
    const properties = ctx.em.getMetadata().get(this.entity.name).properties as Record<string, { persist?: boolean } | undefined>;
    return Object.fromEntries(Object.entries(values).filter(([name]) => properties[name] && properties[name].persist !== false));
  }

  /** Server-owned fields (deleted, locked, searchText ...) start at their defaults. */
  private completeServerFields(values: Record<string, unknown>): void {
    for (const field of this.resource.fields) {
      if (field.name in values) continue;
      const fallback = implicitDefault(field);
      if (fallback !== undefined) values[field.name] = fallback;
    }
  }

  private refreshSearchText(values: Record<string, unknown>, current?: Row): void {
    if (!this.resource.fields.some((f) => f.name === 'searchText')) return;
    values.searchText = searchTextOf(this.resource.fields, { ...current, ...values });
  }
}

/** Numbers the row shapes kept as objects (a REST answer's): the same object names the same statements, without being written out on every request. */
const shapeNumbers = new WeakMap<JsonRow, number>();
let nextShape = 0;

function shapeKey(row: JsonRow): { shape: number } {
  let shape = shapeNumbers.get(row);
  if (shape === undefined) shapeNumbers.set(row, (shape = nextShape++));
  return { shape };
}

/**
 * The alias of one level's rows (and `c_<depth>` of its count): not a letter and a number, as the ORM
 * names the tables it joins (`e1` for a step's execution, `c1` for a channel a privacy rule reads), so
 * that a level's joins never take the name of its own rows or of a level around it.
 */
const levelAlias = (depth: number) => `e_${depth}`;

/** What an `If-Match` header asks of the row a write changes: `*` (any version) or one of these tags. */
export type IfMatch = '*' | string[];

/** A write whose `If-Match` names no current version of the row is 412, before anything is compared or written. */
function assertMatching(row: { id: string; changeSequence: number }, ifMatch: IfMatch | undefined): void {
  if (ifMatch === undefined || ifMatch === '*') return;
  const current = entityTag(row.id, row.changeSequence);
  if (!ifMatch.includes(current)) throw new PreconditionFailedError(row.changeSequence, current);
}

/** A body's `changeSequence` and an `If-Match` naming this row must name the same version (400 otherwise). */
function assertAgreeing(id: string, changeSequence: number | undefined, ifMatch: IfMatch | undefined): void {
  if (changeSequence === undefined || ifMatch === undefined || ifMatch === '*') return;
  const named = ifMatch.map((tag) => sequenceOfTag(tag, id)).filter((n): n is number => n !== undefined);
  if (named.length > 0 && !named.includes(changeSequence)) {
    throw BadRequestError.forField('changeSequence', `is ${changeSequence}, but If-Match names changeSequence ${named.join(', ')}: send one version`);
  }
}

/** The entries of `values` that differ from what the row holds (dates by instant, JSON by content). */
function changedValues(row: Row, values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([key, value]) => !sameValue(row[key], value)));
}

function sameValue(current: unknown, next: unknown): boolean {
  if (current instanceof Date && next instanceof Date) return current.getTime() === next.getTime();
  if (current === undefined) return next === null || next === undefined;
  return isDeepStrictEqual(current, next);
}

/**
 * The JSON text of a one-statement answer, returned only when it fits in the bytes left to the answer
 * (bound as a value): a text too large stays in the database, and its size alone refuses the request.
 * The subquery is kept apart (`offset 0`) so that the text is written once.
 */
const BOUNDED_JSON = `case when octet_length("j"."json") <= ?::bigint then "j"."json" end as "json", octet_length("j"."json") as "bytes"`;

function jsonWithinBudget(ctx: RequestContext, row: Record<string, unknown> | undefined): string | undefined {
  const json = row?.json as string | null | undefined;
  if (json == null && row?.bytes != null) ctx.budget.spend(Number(row.bytes));
  return json ?? undefined;
}
