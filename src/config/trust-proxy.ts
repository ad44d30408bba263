import ipaddr from 'ipaddr.js';
import { InvalidVariable } from './invalid-configuration';

/**
 * TRUST_PROXY as Express's `trust proxy` setting takes it: `false` (X-Forwarded-For is never read), a
 * hop count (the address that many proxies in front of the server saw), or the proxies' addresses and
 * CIDR ranges (and Express's names `loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = false | number | string[];

/** Express's names for the usual proxy ranges. */
const RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

const ALLOWED = 'a hop count (0 or more), or a comma-separated list of IP addresses, CIDR ranges and loopback, linklocal or uniquelocal';

/** Unset, empty, `0` or `false`: off. Anything that is neither a count nor a list of addresses stops the start. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false' || value === '0') return false;
  if (/^\d+$/.test(value)) return Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  const refused = entries.find((entry) => !isProxyEntry(entry));
  if (refused !== undefined) throw new InvalidVariable('TRUST_PROXY', ALLOWED, raw);
  return entries;
}

/** A range name, an address (IPv4 in four parts), or `address/bits` or `address/netmask` as Express's proxy-addr reads them. */
function isProxyEntry(entry: string): boolean {
  if (RANGE_NAMES.includes(entry)) return true;
  const [address, range, ...rest] = entry.split('/');
  const ipv4 = ipaddr.IPv4.isValidFourPartDecimal(address);
  if (rest.length > 0 || !(ipv4 || ipaddr.IPv6.isValid(address))) return false;
  if (range === undefined) return true;
  if (/^\d+$/.test(range)) return Number(range) <= (ipv4 ? 32 : 128);
  return ipv4 && ipaddr.IPv4.isValidFourPartDecimal(range);
}
