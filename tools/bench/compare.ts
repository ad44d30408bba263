import { isDeepStrictEqual } from 'node:util';
import type { SentStatement } from './baseline-kit';
import type { Shape } from './cases';
import type { PlannedRequest } from './load';

/**
 * Before a case is measured, every side must answer its first request alike, or the comparison is void:
 * the express baselines with the server's JSON (apart from what a write makes differ), PostGraphile with
 * the same rows (its answers have another shape, so their row counts, totals and first-level ids are
 * compared).
 */

type Json = Record<string, unknown>;

/** Sends one planned request (`__N__` replaced by `n`) and returns its JSON, or throws with the answer. */
export async function answer(base: string, planned: PlannedRequest, headers: Record<string, string>, n: number): Promise<Json> {
  const response = await fetch(`${base}${planned.path}`, {
    method: planned.method,
    headers: planned.headers ? { ...headers, ...planned.headers } : headers,
    body: planned.body?.replaceAll('__N__', String(n)),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${planned.method} ${planned.path} answered ${response.status} (${base}): ${text.slice(0, 300)}`);
  const body = JSON.parse(text) as Json;
  if (Array.isArray(body.errors)) throw new Error(`${planned.method} ${planned.path} answered errors (${base}): ${JSON.stringify(body.errors).slice(0, 300)}`);
  return body;
}

/** Throws unless the two JSON answers are equal once the volatile top-level fields are left out. */
export function assertSameJson(caseId: string, side: string, server: Json, other: Json, volatile: string[]): void {
  const [a, b] = [{ ...server }, { ...other }];
  for (const field of volatile) {
    delete a[field];
    delete b[field];
  }
  const difference = firstDifference(a, b, '');
  if (difference !== undefined) throw new Error(`${caseId}: ${side} answers differently from the server at ${difference || 'the top'}`);
}

function firstDifference(a: unknown, b: unknown, path: string): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) {
    return `${path}: ${JSON.stringify(a)?.slice(0, 120)} vs ${JSON.stringify(b)?.slice(0, 120)}`;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) {
    const found = firstDifference((a as Json)[key], (b as Json)[key], `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return `${path}: differs`;
}

/** The rows of an answer: per level (organizations, projects, tasks), rows shown and totals added up; the first level's ids. */
export interface RowCounts {
  levels: { rows: number; total: number }[];
  ids: string[];
}

/** A page or a GraphQL connection, whichever names its parts: rows, total, and where the children are. */
interface Paged {
  rows: Json[];
  total: number;
}

const restPage = (value: unknown): Paged => ({ rows: ((value as Json).content as Json[]) ?? [], total: Number((value as Json).totalElements) });
const connection = (value: unknown): Paged => ({ rows: ((value as Json).nodes as Json[]) ?? [], total: Number((value as Json).totalCount) });

/** Counts the rows of nested pages, level by level; `children` finds a row's own page (none at the last level). */
function countLevels(top: Paged[], children: ((row: Json) => Paged)[], id: string): RowCounts {
  const levels: RowCounts['levels'] = [];
  let pages = top;
  for (let depth = 0; pages.length > 0; depth++) {
    levels.push({ rows: pages.reduce((n, p) => n + p.rows.length, 0), total: pages.reduce((n, p) => n + p.total, 0) });
    const child = children[depth];
    pages = child ? pages.flatMap((p) => p.rows.map(child)) : [];
  }
  return { levels, ids: top.flatMap((p) => p.rows.map((row) => String(row[id]))) };
}

/** The row counts of the server's (and the express baselines') answer. */
export function serverRows(shape: Shape, body: Json): RowCounts {
  switch (shape) {
    case 'item':
    case 'write':
      return { levels: [{ rows: 1, total: 1 }], ids: [String(body.id)] };
    case 'page':
      return countLevels([restPage(body)], [], 'id');
    case 'nested': {
      const organizations = (body.data as Json).organizations;
      return countLevels([restPage(organizations)], [(o) => restPage(o.projects), (p) => restPage(p.tasks)], 'id');
    }
  }
}

/** The row counts of PostGraphile's answer to the case's GraphQL request (cases.ts). */
export function postgraphileRows(shape: Shape, body: Json): RowCounts {
  const data = body.data as Json;
  switch (shape) {
    case 'item':
    case 'write': {
      const row = data.taskByRowId as Json | null;
      return row ? { levels: [{ rows: 1, total: 1 }], ids: [String(row.rowId)] } : { levels: [{ rows: 0, total: 0 }], ids: [] };
    }
    case 'page':
      return countLevels([connection(data.allTasks)], [], 'rowId');
    case 'nested':
      return countLevels([connection(data.allOrganizations)], [(o) => connection(o.projectsByOrganizationId), (p) => connection(p.tasksByProjectId)], 'rowId');
  }
}

/** Throws unless PostGraphile answered the same rows as the server. */
export function assertSameRows(caseId: string, server: RowCounts, postgraphile: RowCounts): void {
  if (!isDeepStrictEqual(server, postgraphile)) {
    throw new Error(`${caseId}: PostGraphile answers other rows than the server: ${JSON.stringify(postgraphile.levels)} vs ${JSON.stringify(server.levels)}`);
  }
}

/** A statement as `sqlDifference` compares it: how it was sent (`[named]`, `[unnamed]`), then its text with the whitespace collapsed. */
const normalized = (statements: SentStatement[]) => statements.map((s) => `[${s.named ? 'named' : 'unnamed'}] ${s.text.replace(/\s+/g, ' ').trim()}`);

/** Undefined when both sent the same statements the same way, else where they first part (with some text around it). */
export function sqlDifference(server: SentStatement[], baseline: SentStatement[]): string | undefined {
  const [a, b] = [normalized(server), normalized(baseline)];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] === b[i]) continue;
    const at = a[i] === undefined || b[i] === undefined ? 0 : [...a[i]].findIndex((char, k) => char !== b[i][k]);
    const around = (text: string | undefined) => (text === undefined ? 'nothing' : `…${text.slice(Math.max(0, at - 60), at + 100)}…`);
    return `statement ${i + 1} (server sent ${a.length}, same SQL ${b.length}): server ${around(a[i])} | same SQL ${around(b[i])}`;
  }
  return undefined;
}
