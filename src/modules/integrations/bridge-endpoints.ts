import type { ServiceBridge } from '../../entities/service-bridge';
import { BadRequestError, NotFoundError } from '../../errors/api-error';
import { isPlainObject } from '../../engine/input';

/**
 * How a service bridge's stored JSON (`defaultHeaders`, `endpoints`) is read for a call: entries that
 * are not objects with a string `name` are ignored, as they could never be named or sent.
 */

/** A header a bridge sends: `value` may hold `${secrets.NAME}` placeholders. */
export interface BridgeHeader {
  name: string;
  value: string;
}

export interface BridgeEndpoint {
  name: string;
  /** The upstream method; absent, the caller's. */
  method?: string;
  path: string;
  /** Fields the call must carry (in its JSON body or query string) for the upstream to be called at all. */
  required: string[];
  headers: BridgeHeader[];
}

export function headersOf(entries: unknown): BridgeHeader[] {
  if (!Array.isArray(entries)) return [];
  return entries.filter(isNamed).map((entry) => ({ name: entry.name, value: typeof entry.value === 'string' ? entry.value : String(entry.value ?? '') }));
}

export function endpointsOf(bridge: Pick<ServiceBridge, 'endpoints'>): BridgeEndpoint[] {
  return (bridge.endpoints ?? []).filter(isNamed).map((entry) => ({
    name: entry.name,
    method: typeof entry.method === 'string' && entry.method.trim() !== '' ? entry.method.trim().toUpperCase() : undefined,
    path: typeof entry.path === 'string' ? entry.path : '',
    required: requiredFieldsOf(entry.requestSchema),
    headers: headersOf(entry.headers),
  }));
}

function isNamed(entry: unknown): entry is Record<string, unknown> & { name: string } {
  return isPlainObject(entry) && typeof entry.name === 'string' && entry.name !== '';
}

function requiredFieldsOf(schema: unknown): string[] {
  if (!isPlainObject(schema) || !Array.isArray(schema.required)) return [];
  return schema.required.filter((field): field is string => typeof field === 'string');
}

/**
 * The endpoint a call names; without a name, the sole endpoint of a single-endpoint bridge (400 listing
 * the names otherwise). An unknown name is 404 listing the bridge's endpoints: never a fallback.
 */
export function selectEndpoint(bridge: Pick<ServiceBridge, 'slug' | 'endpoints'>, name: string | undefined): BridgeEndpoint {
  const endpoints = endpointsOf(bridge);
  const names = endpoints.map((e) => e.name).join(', ') || 'none';
  if (name === undefined) {
    if (endpoints.length === 1) return endpoints[0];
    throw new BadRequestError(`service bridge ${bridge.slug} has ${endpoints.length} endpoints: name one in the path (its endpoints: ${names})`);
  }
  const endpoint = endpoints.find((e) => e.name === name);
  if (!endpoint) throw new NotFoundError(`service bridge ${bridge.slug} has no endpoint "${name}" (its endpoints: ${names})`);
  return endpoint;
}

/** Whether a required field is missing from both the JSON body and the query string; presence counts (`""`, `0`, `false` satisfy it). */
export function missesRequiredField(endpoint: BridgeEndpoint, body: unknown, query: URLSearchParams): boolean {
  const fields = isPlainObject(body) ? body : {};
  return endpoint.required.some((field) => !Object.hasOwn(fields, field) && !query.has(field));
}

/** `baseUrl + endpoint.path`, then the caller's query string (after any query the path has). */
export function upstreamUrl(bridge: Pick<ServiceBridge, 'slug' | 'baseUrl'>, endpoint: BridgeEndpoint, query: string): URL {
  const base = (bridge.baseUrl ?? '').replace(/\/+$/, '');
  const path = endpoint.path === '' || endpoint.path.startsWith('/') ? endpoint.path : `/${endpoint.path}`;
  let url: URL;
  try {
    url = new URL(base + path);
  } catch {
    throw new BadRequestError(`service bridge ${bridge.slug}: baseUrl and the path of endpoint "${endpoint.name}" do not make a valid URL`);
  }
  if (query !== '') url.search = url.search === '' ? query : `${url.search.slice(1)}&${query}`;
  return url;
}

/** A query object (`{q: "x", tags: ["a", "b"]}`) as a query string; arrays repeat the name, null and undefined are left out. */
export function queryStringOf(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === null || item === undefined) continue;
      params.append(name, typeof item === 'object' ? JSON.stringify(item) : String(item));
    }
  }
  return params.toString();
}
