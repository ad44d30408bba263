import type { IncomingHttpHeaders } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { ServiceBridge } from '../../entities/service-bridge';
import { BadRequestError, ForbiddenError, type FieldIssue } from '../../errors/api-error';
import { endToEndHeaders } from '../../egress/headers';
import { redactHeaders, redactSecrets } from '../../egress/redact';
import { callUpstream } from '../../egress/upstream-call';
import { logger } from '../../logging/logger';
import { isUuid } from '../../model/uuid';
import { endpointsOf, headersOf, missesRequiredField, queryStringOf, selectEndpoint, upstreamUrl } from './bridge-endpoints';
import { namesSecret, resolveHeaders } from './bridge-secrets';
import type { RequestContext } from '../../engine/context';
import { isPlainObject } from '../../engine/input';
import type { ResourceRules } from '../../engine/resource-rules';
import { memberships } from '../../engine/tenancy';

/** One call of a bridge endpoint, from the proxy route, an agent tool or a BRIDGE_CALL step. */
export interface BridgeCall {
  /** Absent: the sole endpoint of a single-endpoint bridge. */
  endpointName?: string;
  /** Sent when the endpoint declares no method. */
  method: string;
  /** The query string (without `?`), passed on as it is. */
  query: string;
  /** The JSON body, if any (not sent with GET or HEAD). */
  body?: unknown;
  /** The caller's headers: the end-to-end ones that carry no credentials go on to the upstream. */
  headers?: IncomingHttpHeaders;
}

/** The upstream's answer as the caller gets it: status, end-to-end headers (content type among them), body. */
export interface BridgeAnswer {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** Caller headers never sent upstream: its credentials, and those this server sets itself (the body is sent anew, as plain JSON). */
const NOT_FORWARDED = new Set([
  'x-api-key',
  'x-access-token',
  'authorization',
  'cookie',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'accept-encoding',
  'expect',
]);
/** Upstream headers never answered: cookies for this server's origin, and the length (the answer's own). */
const NOT_RETURNED = new Set(['set-cookie', 'content-length']);

/** The answer of a call whose required fields are missing: the upstream is not called. */
const NOT_CALLED: BridgeAnswer = { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from('[]') };

/** The proxy: the bridge read as GET /api/service-bridges/{id} reads it (404, 403 alike), then called. */
export async function callBridgeEndpoint(ctx: RequestContext, id: string, call: BridgeCall): Promise<BridgeAnswer> {
  const bridge = await ctx.services.forEntity(ServiceBridge)!.get(ctx, id);
  return callBridge(ctx, bridge, call);
}

/**
 * Calls an endpoint of `bridge` through the egress guard: `baseUrl + path` and the query string, the
 * endpoint's method (or the call's), the JSON body; the caller's end-to-end headers without credentials,
 * then `defaultHeaders`, then the endpoint's `headers`, with their secrets filled in. Secrets the
 * upstream echoes are redacted from the answer.
 */
export async function callBridge(ctx: RequestContext, bridge: ServiceBridge, call: BridgeCall): Promise<BridgeAnswer> {
  const guard = ctx.services.egress;
  if (!guard) throw new Error('service bridge calls need an egress guard');
  const endpoint = selectEndpoint(bridge, call.endpointName);
  if (missesRequiredField(endpoint, call.body, new URLSearchParams(call.query))) return NOT_CALLED;
  const url = upstreamUrl(bridge, endpoint, call.query);
  const configured = await resolveHeaders(ctx, bridge.organizationId, [...headersOf(bridge.defaultHeaders), ...endpoint.headers]);
  const method = endpoint.method ?? call.method.toUpperCase();
  const body = method === 'GET' || method === 'HEAD' || call.body === undefined ? undefined : JSON.stringify(call.body);
  const headers = {
    ...endToEndHeaders(call.headers ?? {}, NOT_FORWARDED),
    'accept-encoding': 'identity',
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    ...configured.values,
  };
  const started = Date.now();
  const answer = await callUpstream(guard, { url, method, headers, body, originBoundHeaders: configured.secretHeaders });
  logger.debug(
    { bridgeId: bridge.id, endpoint: endpoint.name, method, host: url.host, status: answer.status, ms: Date.now() - started },
    'service bridge call',
  );
  return {
    status: answer.status,
    headers: redactHeaders(endToEndHeaders(answer.headers, NOT_RETURNED), configured.secrets),
    body: redactSecrets(answer.body, configured.secrets),
  };
}

/** A live bridge of the organization by id or slug (any case), if there is one. */
export async function findBridge(ctx: RequestContext, organizationId: string, ref: string): Promise<ServiceBridge | null> {
  const lowered = ref.trim().toLowerCase();
  return ctx.em.findOne(ServiceBridge, { organizationId, deleted: false, ...(isUuid(lowered) ? { id: lowered } : { slug: lowered }) });
}

/** Largest upstream body kept in a result (an agent's answer, a step's output); the rest is cut. */
const BRIDGE_RESULT_BODY_LIMIT = 256 * 1024;

/**
 * A call the server makes on a tenant's behalf (an agent tool, a BRIDGE_CALL step): a query object,
 * a body that makes POST the method where the endpoint declares none (else GET); the answer as a value.
 */
export async function callBridgeForResult(
  ctx: RequestContext,
  bridge: ServiceBridge,
  call: { endpointName: string; query?: Record<string, unknown>; body?: unknown },
): Promise<BridgeResult> {
  const method = call.body === undefined ? 'GET' : 'POST';
  return bridgeResult(await callBridge(ctx, bridge, { endpointName: call.endpointName, method, query: queryStringOf(call.query), body: call.body }));
}

/** An answer as a value: `ok` for a 2xx status, the body parsed when it is JSON, else text (null when empty). */
export interface BridgeResult {
  status: number;
  ok: boolean;
  body: unknown;
  /** The body was longer than the limit: `body` is its first part, as text. */
  truncated: boolean;
}

function bridgeResult(answer: BridgeAnswer): BridgeResult {
  const status = answer.status;
  const ok = status >= 200 && status < 300;
  if (answer.body.length > BRIDGE_RESULT_BODY_LIMIT) {
    return { status, ok, body: new StringDecoder('utf8').write(answer.body.subarray(0, BRIDGE_RESULT_BODY_LIMIT)), truncated: true };
  }
  const text = answer.body.toString('utf8');
  return { status, ok, body: text === '' ? null : isJson(answer.headers['content-type']) ? parsedOrText(text) : text, truncated: false };
}

function isJson(contentType: string | string[] | undefined): boolean {
  return /[/+]json\b/i.test(String(contentType ?? ''));
}

function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * Header entries must put secrets in by `${secrets.NAME}` in their value: an entry carrying `secretRef`
 * (in `defaultHeaders` or an endpoint's `headers`) is 400 naming the header, on create and update.
 * A secret goes only where an owner sent it: see assertMayRouteSecrets.
 */
export const serviceBridgeRules: ResourceRules<ServiceBridge> = {
  async beforeCreate(ctx, values, sent) {
    refuseSecretRefs(sent);
    if (referencesSecrets(values)) await assertMayRouteSecrets(ctx, values.organizationId, 'create a service bridge whose headers reference its secrets');
  },
  async beforeUpdate(ctx, bridge, changes, sent) {
    refuseSecretRefs(sent);
    const rerouted = ROUTING_FIELDS.filter((field) => changes[field] !== undefined);
    if (rerouted.length === 0 || !(referencesSecrets(bridge) || referencesSecrets({ ...bridge, ...changes }))) return;
    await assertMayRouteSecrets(ctx, bridge.organizationId, `change the ${rerouted.join(', ')} of a service bridge whose headers reference its secrets`);
  },
};

/** What decides where a bridge's headers, and the secrets in them, are sent (its organization is set once, on create). */
const ROUTING_FIELDS = ['baseUrl', 'endpoints', 'defaultHeaders'] as const satisfies readonly (keyof ServiceBridge)[];

/** Whether a header of the bridge (a default one or an endpoint's) puts in an organization secret. */
export function referencesSecrets(bridge: Partial<Pick<ServiceBridge, 'defaultHeaders' | 'endpoints'>>): boolean {
  const headers = [...headersOf(bridge.defaultHeaders), ...endpointsOf({ endpoints: bridge.endpoints ?? [] }).flatMap((endpoint) => endpoint.headers)];
  return headers.some((header) => namesSecret(header.value));
}

/**
 * Secrets are the owners' (only they read and write them), so only owners (and administrators) decide
 * where they are sent: a member could otherwise point a bridge at a host of their own and receive them.
 */
async function assertMayRouteSecrets(ctx: RequestContext, organizationId: string | undefined, action: string): Promise<void> {
  if (ctx.isAdmin) return;
  if (organizationId && (await memberships(ctx)).owner.has(organizationId)) return;
  throw new ForbiddenError(`only owners of organization ${organizationId ?? '(none)'} may ${action}`);
}

function refuseSecretRefs(sent: Partial<ServiceBridge>): void {
  const issues: FieldIssue[] = [];
  const check = (entries: unknown, field: string) => {
    if (!Array.isArray(entries)) return;
    entries.forEach((entry, index) => {
      if (!isPlainObject(entry) || !Object.hasOwn(entry, 'secretRef')) return;
      const name = typeof entry.name === 'string' ? entry.name : `#${index}`;
      issues.push({
        field: `${field}[${index}].secretRef`,
        message: `header ${name} carries secretRef, which is not supported: put \${secrets.NAME} in its value`,
      });
    });
  };
  check(sent.defaultHeaders, 'defaultHeaders');
  (Array.isArray(sent.endpoints) ? sent.endpoints : []).forEach((endpoint, index) =>
    check(isPlainObject(endpoint) ? endpoint.headers : undefined, `endpoints[${index}].headers`),
  );
  if (issues.length) throw BadRequestError.forFields(issues);
}
