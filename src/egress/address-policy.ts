import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which network addresses a call on a tenant's behalf may reach: only global unicast ones. Every
 * special range ipaddr.js knows (loopback, RFC 1918 and unique-local fc00::/7, link-local,
 * unspecified, carrier-grade NAT 100.64/10, multicast, broadcast, documentation, benchmarking,
 * NAT64 and 6to4 ...) is refused, and IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4
 * address it carries.
 */

/** Cloud metadata services, refused by name and by address whatever the allowlist says. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog']);
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/** How a refusal names a range (ipaddr.js's names); a range not listed is named as ipaddr.js does. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT',
  private: 'a private',
  uniqueLocal: 'a private (unique-local)',
  reserved: 'a reserved',
};

/** A host name as the URL parser leaves it: `[::1]` without brackets, lower case, no trailing dot or blanks around. */
export function bareHost(hostname: string): string {
  return hostname.trim().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '').toLowerCase();
}

export function isAddressLiteral(host: string): boolean {
  return isIP(bareHost(host)) !== 0;
}

export function isMetadataHost(host: string): boolean {
  return METADATA_HOSTS.has(bareHost(host));
}

/** A refused address: its canonical form (an IPv4-mapped one as IPv4) and what it is (`a loopback address`). */
export interface RefusedAddress {
  address: string;
  kind: string;
}

/** Why `address` (an IP address in any standard notation) may not be reached; undefined when it may. */
export function refusedAddress(address: string): RefusedAddress | undefined {
  const bare = bareHost(address);
  if (!ipaddr.isValid(bare)) return { address: bare, kind: 'not an IP address' };
  const parsed = ipaddr.process(bare);
  const canonical = parsed.toString();
  if (METADATA_ADDRESSES.has(canonical)) return { address: canonical, kind: 'a cloud metadata address' };
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return { address: canonical, kind: `${RANGE_NAMES[range] ?? `a special-purpose (${range})`} address` };
}

/** Cloud metadata addresses are refused even for an allowlisted host name. */
export function isMetadataAddress(address: string): boolean {
  const bare = bareHost(address);
  return ipaddr.isValid(bare) && METADATA_ADDRESSES.has(ipaddr.process(bare).toString());
}
