import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Resolves a host name to all its addresses (as `dns.promises.lookup(host, { all: true, verbatim: true })`). */
export type ResolveHost = (hostname: string) => Promise<readonly { address: string; family: number }[]>;

const cidr = (text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] => ipaddr.parseCIDR(text);

/**
 * Refused ranges that ipaddr.js's `range()` files under broader names ('linkLocal', 'reserved', ...), checked first
 * so the reason is specific. Beyond them, an address is refused unless `range()` says 'unicast'.
 */
const NAMED_RANGES: Record<string, [ipaddr.IPv4 | ipaddr.IPv6, number][]> = {
  metadata: ['169.254.169.254/32', 'fd00:ec2::254/128'].map(cidr),
  documentation: ['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'].map(cidr),
};

/** IANA allocates global IPv6 unicast from 2000::/3 only; `range()` also calls e.g. `::a00:1` or `4000::1` 'unicast'. */
const GLOBAL_IPV6 = cidr('2000::/3');

/** NAT64 well-known prefix (RFC 6052): the last 32 bits are the IPv4 address reached. */
const NAT64 = cidr('64:ff9b::/96');

/** Phrases for the refused ranges, by ipaddr.js range name; others read "a special-purpose (<name>) address". */
const KINDS: Record<string, string> = {
  private: 'a private',
  uniqueLocal: 'a private (unique-local)',
  loopback: 'a loopback',
  linkLocal: 'a link-local',
  carrierGradeNat: 'a shared (CGNAT)',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  reserved: 'a reserved',
  documentation: 'a documentation',
  metadata: 'a cloud metadata',
};

/** What kind of refused address `address` is ("a private address"), or null for a global unicast address. */
function refusedKind(address: string): string | null {
  if (!isIP(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(NAT64)) ip = ipaddr.fromByteArray(v6.toByteArray().slice(12));
  }
  let range = ipaddr.subnetMatch(ip, NAMED_RANGES, ip.range());
  if (range === 'unicast' && ip.kind() === 'ipv6' && !ip.match(GLOBAL_IPV6)) range = 'reserved';
  return range === 'unicast' ? null : `${KINDS[range] ?? `a special-purpose (${range})`} address`;
}

/** Whether `address` (an IPv4 or IPv6 literal) is a global unicast address; IPv4-mapped and NAT64 by their IPv4. */
export function isGlobalUnicast(address: string): boolean {
  return refusedKind(address) === null;
}

/** Lower case, without brackets, IPv6 in its canonical (RFC 5952) text as URL host names have it. */
function normalizeHost(host: string): string {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return isIP(bare) === 6 ? ipaddr.parse(bare).toString() : bare;
}

/** Error a refusing `lookup` fails the connection with. */
function addressError(message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code: 'EWEBHOOKADDRESS' });
}

/** Appended, outside production, to a 400 that refuses a host by its address. */
export const ALLOWED_HOSTS_HINT = 'WEBHOOK_ALLOWED_HOSTS can let a development host through';

/** The SSRF rules for webhook URLs: https to hosts whose every address is global unicast, or a listed host. */
export class WebhookAddressPolicy {
  private readonly allowed: ReadonlySet<string>;

  /**
   * `allowedHosts` (WEBHOOK_ALLOWED_HOSTS: names or IP literals) skip the address rules and may use http;
   * `hint`, when true, appends {@link ALLOWED_HOSTS_HINT} to {@link refusal}'s refusals of an address.
   */
  constructor(
    allowedHosts: readonly string[],
    private readonly resolve: ResolveHost = (hostname) => dns.lookup(hostname, { all: true, verbatim: true }),
    private readonly hint = false,
  ) {
    this.allowed = new Set(
      allowedHosts
        .map((host) => host.trim())
        .filter(Boolean)
        .map(normalizeHost),
    );
  }

  /**
   * Why `url` may not receive webhooks (one short sentence fit for a 400 message), or null when it may.
   * Resolves the host name; every address must be global unicast.
   */
  async refusal(url: string): Promise<string | null> {
    const refused = this.urlRefusal(url);
    if (refused) return refused.startsWith("url's host is ") ? this.withHint(refused) : refused;
    const host = normalizeHost(new URL(url).hostname);
    if (this.isAllowedHost(host) || isIP(host)) return null;
    const addresses = await this.resolve(host).catch(() => []);
    if (addresses.length === 0) return "url's host does not resolve";
    return this.withHint(this.resolvedRefusal("url's host", addresses));
  }

  /**
   * Why `url` may not receive webhooks judging its text only (no DNS): a scheme other than https (or http for an
   * allowed host), userinfo, or an IP-literal host that is not global unicast. Null when the text passes.
   */
  urlRefusal(url: string): string | null {
    const parsed = URL.parse(url);
    if (!parsed) return 'url must be an absolute URL';
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'url must use https';
    if (parsed.username || parsed.password) return 'url must not contain credentials';
    const host = normalizeHost(parsed.hostname);
    if (this.isAllowedHost(host)) return null;
    if (parsed.protocol !== 'https:') return 'url must use https';
    const kind = isIP(host) ? refusedKind(host) : null;
    return kind && `url's host is ${kind} (${host})`;
  }

  /** Whether `hostname` (no brackets) is in WEBHOOK_ALLOWED_HOSTS, ignoring case. */
  isAllowedHost(hostname: string): boolean {
    return this.allowed.has(normalizeHost(hostname));
  }

  /** Why the one address `address` may not be contacted ("10.0.0.1 is a private address"), or null (no DNS). */
  addressRefusal(address: string): string | null {
    const kind = refusedKind(address);
    return kind && `${address} is ${kind}`;
  }

  /**
   * A `lookup` for `http.request`/`https.request` options: resolves like `dns.lookup` (`all` or one address, by
   * `family`) and, unless the host is allowed, fails with an Error coded 'EWEBHOOKADDRESS' when any address is refused.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    this.resolve(hostname).then(
      (resolved) => {
        const refused = this.isAllowedHost(hostname) ? null : this.resolvedRefusal(hostname, resolved);
        const addresses = resolved.filter((a) => family === 0 || a.family === family);
        if (refused) return callback(addressError(refused), '');
        if (addresses.length === 0) {
          return callback(Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' }), '');
        }
        if (options.all) callback(null, [...addresses]);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

  private withHint(refusal: string | null): string | null {
    return refusal && this.hint ? `${refusal}; ${ALLOWED_HOSTS_HINT}` : refusal;
  }

  private resolvedRefusal(subject: string, addresses: readonly { address: string }[]): string | null {
    for (const { address } of addresses) {
      const kind = refusedKind(address);
      if (kind) return `${subject} resolves to ${kind} (${address})`;
    }
    return null;
  }
}
