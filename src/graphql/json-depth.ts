import type { NextFunction, Request, Response } from 'express';
import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import { MAX_JSON_DEPTH, nestingOf, valueDepth } from '../rest/json-body';
import { formatGraphqlError } from './errors';
import { MAX_SELECTION_NESTING } from './limits';

/**
 * Most brackets a document may nest in all (selection sets, argument lists and literal values): room for
 * the deepest selections the cost limit accepts with a value as deep as a JSON body may be, and far below
 * what graphql's recursive parser survives, so that no document reaches it too deep to parse.
 */
export const MAX_DOCUMENT_NESTING = MAX_SELECTION_NESTING + MAX_JSON_DEPTH + 8;

/**
 * Most tokens a document may hold (names, punctuation, values; comments are not counted): far more than
 * any real query needs, and few enough that parsing and validating the largest takes milliseconds. A
 * document of 10,000 aliased fields takes a quarter of a second to parse and validate, during which
 * nothing else runs.
 */
export const MAX_DOCUMENT_TOKENS = 25_000;

/** Whether `query` holds more than MAX_DOCUMENT_TOKENS tokens, counted by graphql's own lexer without building the document. */
function exceedsTokenLimit(query: string): boolean {
  const lexer = new Lexer(new Source(query));
  try {
    for (let tokens = 0; lexer.advance().kind !== TokenKind.EOF;) if (++tokens > MAX_DOCUMENT_TOKENS) return true;
  } catch {
    // Not lexable: the parser reports it, with its position.
  }
  return false;
}

/**
 * Why a GraphQL request is too large or nests too deeply, or undefined: a document of more than
 * MAX_DOCUMENT_TOKENS tokens, a literal value deeper than a JSON body may be,
 * a document deeper than MAX_DOCUMENT_NESTING, variables (or extensions) deeper than a JSON body. A
 * variables object counts as one level, as a body does: `{ "p": X }` is accepted exactly where the REST
 * body `{ "properties": X }` is. Text (a GET request's parameters) and parsed values are measured alike.
 */
export function requestBoundsIssue(request: { query?: unknown; variables?: unknown; extensions?: unknown }): string | undefined {
  if (typeof request.query === 'string') {
    if (exceedsTokenLimit(request.query)) return `query: holds more than the limit of ${MAX_DOCUMENT_TOKENS} tokens`;
    const nesting = nestingOf(request.query);
    if (nesting.valueDepth > MAX_JSON_DEPTH) return `query: a value is nested deeper than the limit of ${MAX_JSON_DEPTH} levels`;
    if (nesting.depth > MAX_DOCUMENT_NESTING) return `query: nested deeper than the limit of ${MAX_DOCUMENT_NESTING} levels`;
  }
  for (const name of ['variables', 'extensions'] as const) {
    const value = request[name];
    const depth = typeof value === 'string' ? nestingOf(value).depth : valueDepth(value, MAX_JSON_DEPTH);
    if (depth > MAX_JSON_DEPTH) return `${name}: JSON nested deeper than the limit of ${MAX_JSON_DEPTH} levels`;
  }
  return undefined;
}

/**
 * Refuses (400, the GraphQL error body) a request to /graphql that is too large or nests too deeply,
 * before Apollo parses its document or anything copies its variables: both recurse once per level, and
 * parsing and validating take time in proportion to the document's size.
 */
export function graphqlNestingGuard(req: Request, res: Response, next: NextFunction): void {
  const body: unknown = req.body;
  const request =
    req.method === 'GET'
      ? Object.fromEntries(new URLSearchParams(req.originalUrl.split('?')[1] ?? ''))
      : typeof body === 'object' && body !== null && !Array.isArray(body)
        ? (body as Record<string, unknown>)
        : {};
  const issue = requestBoundsIssue(request);
  if (!issue) return next();
  const error = new GraphQLError(issue, { extensions: { code: 'BAD_REQUEST' } });
  res.status(400).json({ errors: [formatGraphqlError(error.toJSON(), error)] });
}
