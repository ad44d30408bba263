import { OrganizationSecret } from '../../entities/organization-secret';
import { BadRequestError } from '../../errors/api-error';
import type { BridgeHeader } from './bridge-endpoints';
import type { RequestContext } from '../../engine/context';

/** `${secrets.NAME}` in a bridge header's value. */
const SECRET_PLACEHOLDER = /\$\{secrets\.([A-Za-z0-9_]+)\}/g;

/** Whether a header value puts in an organization secret. */
export function namesSecret(value: string): boolean {
  return value.includes('${secrets.') && new RegExp(SECRET_PLACEHOLDER.source).test(value);
}

/** An HTTP field name (RFC 9110 token) and what a field value may hold (no CR, LF or NUL). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export interface ResolvedHeaders {
  /** By lower-case name, placeholders replaced; a later header of the same name wins. */
  values: Record<string, string>;
  /** The (lower-case) names of the headers that carry a secret: sent to the bridge's own origin only. */
  secretHeaders: string[];
  /** The plain values used, never to appear in an answer. */
  secrets: string[];
}

/**
 * The headers a bridge sends, each `${secrets.NAME}` replaced by the organization's secret, decrypted
 * here, at call time. A secret the organization does not have is 400 naming it (and the header); an
 * invalid header name or a value that is not a valid header value is 400 naming the header, never the value.
 */
export async function resolveHeaders(ctx: RequestContext, organizationId: string, headers: BridgeHeader[]): Promise<ResolvedHeaders> {
  const plain = await secretValues(ctx, organizationId, headers);
  const resolved: ResolvedHeaders = { values: {}, secretHeaders: [], secrets: [...plain.values()] };
  for (const header of headers) {
    if (!HEADER_NAME.test(header.name)) throw new BadRequestError(`service bridge header "${header.name}" is not a valid header name`);
    const name = header.name.toLowerCase();
    let carriesSecret = false;
    const value = header.value.replace(SECRET_PLACEHOLDER, (_placeholder, secret: string) => {
      carriesSecret = true;
      return plain.get(secret)!;
    });
    if (!HEADER_VALUE.test(value)) throw new BadRequestError(`service bridge header ${header.name}: its value is not a valid header value`);
    resolved.values[name] = value;
    if (carriesSecret) resolved.secretHeaders.push(name);
  }
  return resolved;
}

/** The plain values of the secrets the headers name, by name; 400 naming the first one the organization lacks. */
async function secretValues(ctx: RequestContext, organizationId: string, headers: BridgeHeader[]): Promise<Map<string, string>> {
  const wanted = new Map<string, string>();
  for (const header of headers) {
    for (const [, secret] of header.value.matchAll(SECRET_PLACEHOLDER)) if (!wanted.has(secret)) wanted.set(secret, header.name);
  }
  if (wanted.size === 0) return new Map();
  const rows = await ctx.em
    .createQueryBuilder(OrganizationSecret)
    .select(['name', 'sealedValue'])
    .where({ organizationId, name: { $in: [...wanted.keys()] } })
    .execute('all', true);
  const sealed = new Map(rows.map((row) => [row.name, row.sealedValue]));
  for (const [secret, header] of wanted) {
    if (!sealed.has(secret)) throw new BadRequestError(`service bridge header ${header} names secret ${secret}, which this organization does not have`);
  }
  const box = ctx.services.secrets;
  if (!box) throw new Error('service bridge secrets need a secrets key (SECRETS_KEY)');
  return new Map([...sealed].map(([name, value]) => [name, box.open(value)]));
}
