import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which network addresses a call on a tenant's behalf may reach: only global unicast ones. The ranges
 * of the IANA IPv4 and IPv6 Special-Purpose Address Registries, the deprecated IPv4-compatible `::/96`
 * and site-local `fec0::/10`, multicast, broadcast and IPv6 outside the global unicast space 2000::/3
 * are refused from an explicit table (SPECIAL_RANGES), so that none depends on how ipaddr.js classes
 * it; whatever else ipaddr.js calls special (AS112, AMT ...) is refused too. IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries.
 */

/** Cloud metadata services, refused by name and by address whatever the allowlist says. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata.goog']);
const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/** How a refusal names what ipaddr.js classes as special and the table does not list (e.g. AS112, AMT). */
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

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * The refused ranges and how a refusal names each, the more specific before the range holding it.
 * The names of the ranges refused before this table keep their wording (`a private address`).
 */
const SPECIAL_RANGES: { range: Range; kind: string }[] = (
  [
    ['0.0.0.0/32', 'an unspecified address'],
    ['0.0.0.0/8', 'a "this network" address (0.0.0.0/8)'],
    ['10.0.0.0/8', 'a private address'],
    ['100.64.0.0/10', 'a carrier-grade NAT address'],
    ['127.0.0.0/8', 'a loopback address'],
    ['169.254.0.0/16', 'a link-local address'],
    ['172.16.0.0/12', 'a private address'],
    ['192.0.0.0/24', 'an IETF protocol assignment address (192.0.0.0/24)'],
    ['192.0.2.0/24', 'a documentation address (192.0.2.0/24)'],
    ['192.88.99.0/24', 'a 6to4 relay anycast address (192.88.99.0/24, deprecated)'],
    ['192.168.0.0/16', 'a private address'],
    ['198.18.0.0/15', 'a benchmarking address (198.18.0.0/15)'],
    ['198.51.100.0/24', 'a documentation address (198.51.100.0/24)'],
    ['203.0.113.0/24', 'a documentation address (203.0.113.0/24)'],
    ['224.0.0.0/4', 'a multicast address'],
    ['255.255.255.255/32', 'a broadcast address'],
    ['240.0.0.0/4', 'a reserved address (240.0.0.0/4)'],
    ['::/128', 'an unspecified address'],
    ['::1/128', 'a loopback address'],
    // Deprecated (RFC 4291) but still routed to the IPv4 address in its last 32 bits by some stacks.
    ['::/96', 'an IPv4-compatible address (::/96, deprecated)'],
    // ipaddr.process turns ::ffff:0:0/96 into the IPv4 address it carries, judged as such; kept should it not.
    ['::ffff:0:0/96', 'an IPv4-mapped address (::ffff:0:0/96)'],
    ['::ffff:0:0:0/96', 'an IPv4-translated address (::ffff:0:0:0/96)'],
    ['64:ff9b::/96', 'a NAT64 address (64:ff9b::/96)'],
    ['64:ff9b:1::/48', 'a local-use NAT64 address (64:ff9b:1::/48)'],
    ['100::/64', 'a discard-only address (100::/64)'],
    ['100:0:0:1::/64', 'a dummy address (100:0:0:1::/64)'],
    ['2001::/32', 'a Teredo address (2001::/32)'],
    ['2001:2::/48', 'a benchmarking address (2001:2::/48)'],
    ['2001:10::/28', 'an ORCHID address (2001:10::/28, deprecated)'],
    ['2001:20::/28', 'an ORCHIDv2 address (2001:20::/28)'],
    ['2001::/23', 'an IETF protocol assignment address (2001::/23)'],
    ['2001:db8::/32', 'a documentation address (2001:db8::/32)'],
    ['2002::/16', 'a 6to4 address (2002::/16)'],
    ['3fff::/20', 'a documentation address (3fff::/20)'],
    ['5f00::/16', 'an SRv6 SID address (5f00::/16)'],
    ['fc00::/7', 'a private (unique-local) address'],
    ['fe80::/10', 'a link-local address'],
    ['fec0::/10', 'a site-local address (fec0::/10, deprecated)'],
    ['ff00::/8', 'a multicast address'],
  ] as const
).map(([cidr, kind]) => ({ range: ipaddr.parseCIDR(cidr), kind }));

/** IANA allocates global unicast IPv6 only from 2000::/3; the rest is reserved by the IETF. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** What the table says of `address` (IPv4 ranges for IPv4 only, IPv6 ones for IPv6 only). */
function specialRangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  for (const { range, kind } of SPECIAL_RANGES) {
    if (range[0].kind() === address.kind() && address.match(range)) return kind;
  }
  if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_V6)) return 'an address outside the IPv6 global unicast space (2000::/3)';
  return undefined;
}

/** A host name as the URL parser leaves it: `[::1]` without brackets, lower case, no trailing dot or blanks around. */
export function bareHost(hostname: string): string {
  return hostname
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')
    .toLowerCase();
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
  const parsed = processed(bare);
  const canonical = parsed.toString();
  if (METADATA_ADDRESSES.has(canonical)) return { address: canonical, kind: 'a cloud metadata address' };
  const special = specialRangeOf(parsed);
  if (special) return { address: canonical, kind: special };
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  return { address: canonical, kind: `${RANGE_NAMES[range] ?? `a special-purpose (${range})`} address` };
}

/** Cloud metadata addresses are refused even for an allowlisted host name. */
export function isMetadataAddress(address: string): boolean {
  const bare = bareHost(address);
  return ipaddr.isValid(bare) && METADATA_ADDRESSES.has(processed(bare).toString());
}

/**
 * A valid address parsed, IPv4-mapped IPv6 as IPv4. IPv6 is read in the URL parser's canonical form:
 * ipaddr.js reads `::a.b.c.d` (IPv4-compatible) as if it were `::ffff:a.b.c.d` (IPv4-mapped).
 */
function processed(bare: string): ipaddr.IPv4 | ipaddr.IPv6 {
  if (isIP(bare) !== 6) return ipaddr.process(bare);
  let canonical = bare;
  try {
    canonical = bareHost(new URL(`http://[${bare}]`).hostname);
  } catch {
    // A zone id (`fe80::1%eth0`) is no URL host: ipaddr.js reads it as written.
  }
  return ipaddr.process(canonical);
}
