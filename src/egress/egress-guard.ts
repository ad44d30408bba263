import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import { Agent } from 'undici';
import { EgressDeniedError } from '../errors/api-error';
import { bareHost, isAddressLiteral, isMetadataAddress, isMetadataHost, refusedAddress } from './address-policy';

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address of a host name (the system resolver by default; tests inject their own). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface EgressSettings {
  /** BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST: exact host names (any case) exempt from the address ranges. */
  privateHostAllowlist?: readonly string[];
  /** How host names are resolved; default the system resolver (getaddrinfo, as the rest of the process). */
  resolve?: HostResolver;
  /** How long one call may take in all, redirects and body included; default 30 s. */
  timeoutMs?: number;
}

export const DEFAULT_EGRESS_TIMEOUT_MS = 30_000;

const systemResolver: HostResolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** BRIDGE_EGRESS_PRIVATE_HOST_ALLOWLIST as a list: comma-separated, blanks dropped. */
export function parseHostAllowlist(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((host) => host.trim())
    .filter((host) => host !== '');
}

/**
 * The one way out of the server to hosts a tenant names. A target is checked before anything is sent
 * (protocol, metadata host names, address literals), and the connection's own DNS lookup checks every
 * address a host name resolves to and hands only those checked addresses to the socket: the address
 * connected to is one that was checked, and no second lookup can answer differently (DNS rebinding).
 * An allowlisted host name skips the range checks (a literal address only when written in the list);
 * cloud metadata addresses and host names are refused even then.
 */
export class EgressGuard {
  /** The undici dispatcher every call through the guard must use. */
  readonly dispatcher: Agent;
  readonly timeoutMs: number;
  private readonly allowlist: ReadonlySet<string>;
  private readonly resolve: HostResolver;

  constructor(settings: EgressSettings = {}) {
    this.allowlist = new Set((settings.privateHostAllowlist ?? []).map(bareHost));
    this.resolve = settings.resolve ?? systemResolver;
    this.timeoutMs = settings.timeoutMs ?? DEFAULT_EGRESS_TIMEOUT_MS;
    this.dispatcher = new Agent({ connect: { lookup: this.lookup } });
  }

  /** Refuses, before any connection, a target that is not http(s), a metadata host or a refused address literal. */
  assertTarget(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EgressDeniedError(`${url.protocol} is not an allowed protocol (http or https)`);
    const host = bareHost(url.hostname);
    if (isMetadataHost(host)) throw new EgressDeniedError(`${host} is a cloud metadata host`);
    if (isAddressLiteral(host)) this.assertAddress(host, host);
  }

  /**
   * Ends every connection to upstreams, failing the calls still waiting on one: the application closes
   * last, when no request or job is left to wait for them (a call cut off by the end of the shutdown
   * grace period would otherwise hold the process for up to the call timeout).
   */
  close(): Promise<void> {
    return this.dispatcher.destroy();
  }

  /** The addresses of `hostname`, each one checked; the socket connects to one of these and no other. */
  private async checkedAddresses(hostname: string): Promise<ResolvedAddress[]> {
    const host = bareHost(hostname);
    const addresses = await this.resolve(host);
    if (addresses.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
    for (const { address } of addresses) this.assertAddress(host, address);
    return addresses;
  }

  private assertAddress(host: string, address: string): void {
    const exempt = this.allowlist.has(host) && !isMetadataAddress(address);
    const refused = exempt ? undefined : refusedAddress(address);
    if (!refused) return;
    if (host === bareHost(address)) throw new EgressDeniedError(`${refused.address} is ${refused.kind}`);
    throw new EgressDeniedError(`${host} resolves to ${refused.address}, ${refused.kind}`, `${host} resolves to ${refused.kind}`);
  }

  /** net.connect's `lookup` (undici passes it through): answers only checked addresses. */
  private readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.checkedAddresses(hostname).then(
      (checked) => {
        const family = familyNumber(options.family);
        const addresses = family ? checked.filter((a) => a.family === family) : checked;
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }), '');
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

/** The address family a lookup asks for (0: any). */
function familyNumber(family: number | 'IPv4' | 'IPv6' | undefined): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}
