import type { Request, Response } from 'express';
import type { RequestContext } from '../engine/context';
import { EXPORT_BATCH_BYTES } from '../engine/resource-service';
import { BadRequestError, InternalError, NotAcceptableError, type ApiError } from '../errors/api-error';
import { normalizeError } from '../errors/normalize-error';
import { logger } from '../logging/logger';
import type { Resource } from '../model/resource';
import { requestedPath } from './method-not-allowed';
import { presentAll, presentedFieldNames, type Json } from './present';

/** What the export of a list answers: every matching row, as CSV or as one JSON object per line. */
export type ExportFormat = 'csv' | 'ndjson';

const MEDIA_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' };

/** The last of a repeated query parameter. */
function lastOf(value: unknown): unknown {
  return Array.isArray(value) ? value[value.length - 1] : value;
}

/**
 * The format an export request asks for: `?format=csv|ndjson` (which wins), else CSV when the Accept
 * header prefers `text/csv` to `application/x-ndjson`; NDJSON otherwise (no Accept header, any type, or neither of the two).
 */
export function exportFormatOf(req: Request): ExportFormat {
  const format = lastOf(req.query.format);
  if (format !== undefined) {
    if (format === 'csv' || format === 'ndjson') return format;
    throw BadRequestError.forField('format', 'must be csv or ndjson');
  }
  return req.accepts(['application/x-ndjson', 'text/csv']) === 'text/csv' ? 'csv' : 'ndjson';
}

/**
 * A list answers JSON pages only, so that its operation has one answer type: a `format` parameter, or
 * an Accept header that admits no JSON, asks for what the list's export (`exportPath`) answers, and is
 * 406 naming it rather than a page the client said it cannot read.
 */
export function assertListAnswerAccepted(req: Request, exportPath: string): void {
  const refused = lastOf(req.query.format) !== undefined ? 'the format parameter' : req.accepts('application/json') === false ? 'Accept' : undefined;
  if (refused === undefined) return;
  throw new NotAcceptableError(
    `${requestedPath(req)} answers application/json only (${refused} asks for another type); every matching row as CSV or NDJSON is at GET ${exportPath}`,
  );
}

/** How one format spells an export: its first text, each row, its last text, and its end after a failure. */
interface ExportWriter {
  start: string;
  row(row: Json): string;
  end: string;
  failed(error: ApiError): string;
}

/**
 * CSV: the header record, then each record preceded by its line break, and the last line break at the
 * end only: an export that fails ends without it, which tells it from a whole one.
 */
function csvWriter(names: string[]): ExportWriter {
  return {
    start: csvRecord(names),
    row: (row) => `\r\n${csvRecord(names.map((name) => (row as Record<string, Json>)[name]))}`,
    end: '\r\n',
    failed: () => '',
  };
}

/** NDJSON: one object per line; an export that fails ends with a line `{"error": <the API's error body>}`. */
const ndjsonWriter: ExportWriter = {
  start: '',
  row: (row) => `${JSON.stringify(row)}\n`,
  end: '',
  failed: (error) => `${JSON.stringify({ error: error.toBody() })}\n`,
};

/**
 * Streams the rows of an export as they are read, batch by batch: the next batch is read only once
 * the client has taken the last (backpressure), and a client that goes away stops the reading. A
 * failure once the status line has gone (the row limit reached as the rows moved, the database gone)
 * ends the answer as its format says and is logged.
 */
export async function sendExport(
  ctx: RequestContext,
  res: Response,
  resource: Resource,
  format: ExportFormat,
  batches: AsyncGenerator<object[]>,
): Promise<void> {
  const writer = format === 'csv' ? csvWriter(presentedFieldNames(resource)) : ndjsonWriter;
  res.status(200).type(MEDIA_TYPES[format]);
  res.setHeader('content-disposition', `attachment; filename="${resource.path.replaceAll('/', '-').replace(/[{}]/g, '')}.${format}"`);
  // HEAD: the status and headers a GET would have (the rows counted, EXPORT_MAX_ROWS checked), no rows read.
  if (res.req.method === 'HEAD') {
    await batches.return(undefined);
    return void res.end();
  }
  try {
    await written(res, writer.start);
    for await (const batch of batches) {
      if (res.destroyed) break;
      for await (const chunk of encoded(ctx, resource, batch, writer)) await written(res, chunk);
    }
    ended(res, writer.end);
  } catch (thrown) {
    const error = normalizeError(thrown);
    // A hidden failure (500) is the server's; a described refusal (a 503 of the statement timeout ...) a warning.
    const log = error instanceof InternalError ? logger.error.bind(logger) : logger.warn.bind(logger);
    log({ resource: resource.path, status: error.status, userId: ctx.user?.id }, `export ended early: ${error.message}`);
    ended(res, writer.failed(error));
  }
}

/**
 * The text of one batch, its rows presented as the JSON list shows them, in chunks of about
 * EXPORT_BATCH_BYTES written one after another as the client takes them: a row embeds its references
 * (a large project repeated in every row of the batch), which the batch's size, counted on the rows'
 * own columns, does not hold.
 */
async function* encoded(ctx: RequestContext, resource: Resource, batch: object[], writer: ExportWriter): AsyncGenerator<string> {
  const presented = await presentAll(ctx, resource, batch);
  ctx.loaders.clear();
  let chunk = '';
  for (const row of presented) {
    chunk += writer.row(row);
    if (chunk.length < EXPORT_BATCH_BYTES) continue;
    yield chunk;
    chunk = '';
  }
  if (chunk) yield chunk;
}

/** Waits until `chunk` is taken by the client (or the client is gone). */
async function written(res: Response, chunk: string): Promise<void> {
  if (res.destroyed || res.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/** Ends the answer with `last`, unless the client has gone. */
function ended(res: Response, last: string): void {
  if (!res.destroyed) res.end(last);
}

/** One CSV record (RFC 4180) without its line break: objects and arrays as JSON text, numbers and booleans as theirs, null as an empty cell. */
function csvRecord(cells: (Json | undefined)[]): string {
  return cells.map(csvCell).join(',');
}

function csvCell(value: Json | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? notAFormula(value) : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** What a spreadsheet reads as the start of a formula (OWASP's list): such text gets a leading `'`, which keeps it text. */
const FORMULA_START = /^[=+\-@\t\r]/;

function notAFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
