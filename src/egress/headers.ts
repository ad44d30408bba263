import type { IncomingHttpHeaders } from 'node:http';

/** Headers that describe one connection, not the message (RFC 9110 7.6.1): never carried across a proxy. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A message's headers as carried onwards: without hop-by-hop ones, those its `Connection` names, and `drop`. */
export function endToEndHeaders(headers: IncomingHttpHeaders, drop: ReadonlySet<string> = new Set()): Record<string, string | string[]> {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || named.includes(lower) || drop.has(lower)) continue;
    kept[lower] = value;
  }
  return kept;
}
