import type { Request, Response } from 'express';
import type { RequestContext } from '../engine/context';
import { BadRequestError } from '../errors/api-error';
import { logger } from '../logging/logger';
import type { Resource } from '../model/resource';
import { presentAll, presentedFieldNames, type Json } from './present';

/** What a list answers besides its JSON page: every matching row, as CSV or as one JSON object per line. */
export type ExportFormat = 'csv' | 'ndjson';

const MEDIA_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', ndjson: 'application/x-ndjson; charset=utf-8' };

/**
 * The export a list request asks for: `?format=csv|ndjson` (which wins; `json` is the page), else an
 * Accept header that prefers `text/csv` or `application/x-ndjson` to JSON; undefined: the JSON page.
 */
export function exportFormatOf(req: Request): ExportFormat | undefined {
  const raw = req.query.format;
  const format = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (format !== undefined) {
    if (format === 'csv' || format === 'ndjson') return format;
    if (format === 'json') return undefined;
    throw BadRequestError.forField('format', 'must be csv, ndjson or json');
  }
  const preferred = req.accepts(['application/json', 'text/csv', 'application/x-ndjson']);
  return preferred === 'text/csv' ? 'csv' : preferred === 'application/x-ndjson' ? 'ndjson' : undefined;
}

/**
 * Streams the rows of an export as they are read, batch by batch: the next batch is read only once
 * the client has taken the last (backpressure), and a client that goes away stops the reading.
 */
export async function sendExport(
  ctx: RequestContext,
  res: Response,
  resource: Resource,
  format: ExportFormat,
  batches: AsyncGenerator<object[]>,
): Promise<void> {
  const names = presentedFieldNames(resource);
  const encode =
    format === 'csv' ? (row: Json) => csvLine(names.map((name) => (row as Record<string, Json>)[name])) : (row: Json) => `${JSON.stringify(row)}\n`;
  res.status(200).type(MEDIA_TYPES[format]);
  res.setHeader('content-disposition', `attachment; filename="${resource.path.replaceAll('/', '-').replace(/[{}]/g, '')}.${format}"`);
  try {
    if (format === 'csv') await written(res, csvLine(names));
    for await (const batch of batches) {
      if (res.destroyed) break;
      const presented = await presentAll(ctx, resource, batch);
      ctx.loaders.clear();
      await written(res, presented.map(encode).join(''));
    }
    res.end();
  } catch (error) {
    // The status line has gone: all a client can be told is that the answer ends early.
    logger.error({ err: error, resource: resource.path }, 'export failed while streaming');
    res.destroy();
  }
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

/** One CSV record (RFC 4180): objects and arrays as JSON text, numbers and booleans as theirs, null as an empty cell. */
function csvLine(cells: (Json | undefined)[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

function csvCell(value: Json | undefined): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
