import type { LookupAddress, LookupOptions } from 'node:dns';
import { ALLOWED_HOSTS_HINT, isGlobalUnicast, ResolveHost, WebhookAddressPolicy } from './webhook-address-policy';

/** A resolver answering from `names` (lower case); other names fail as getaddrinfo does. */
function fakeResolver(names: Record<string, string[]>): ResolveHost {
  return async (hostname) => {
    const addresses = names[hostname.toLowerCase()];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const resolver = fakeResolver({
  'public.example': ['93.184.216.34', '2606:4700::1111'],
  'mixed.example': ['93.184.216.34', '10.0.0.1'],
  'internal.example': ['192.168.1.10'],
  'empty.example': [],
  'dev.local': ['10.1.2.3'],
});
const policy = new WebhookAddressPolicy(['Dev.Local', '::1', ' 127.0.0.1 ', ''], resolver);

/** Calls `policy.lookup` as Node's net does and settles with what its callback got. */
function lookup(hostname: string, options: LookupOptions): Promise<string | LookupAddress[]> {
  return new Promise((resolve, reject) =>
    policy.lookup(hostname, options, (error, address, family) =>
      error ? reject(error) : resolve(typeof address === 'string' ? `${address}/${family}` : address),
    ),
  );
}

describe('WebhookAddressPolicy.addressRefusal', () => {
  it.each<[string, string, string]>([
    ['RFC 1918 10/8', '10.0.0.1', 'a private address'],
    ['RFC 1918 172.16/12', '172.16.5.4', 'a private address'],
    ['RFC 1918 192.168/16', '192.168.0.1', 'a private address'],
    ['IPv6 unique-local', 'fd12:3456::1', 'a private (unique-local) address'],
    ['IPv4 loopback', '127.0.0.1', 'a loopback address'],
    ['IPv6 loopback', '::1', 'a loopback address'],
    ['IPv4 link-local', '169.254.1.1', 'a link-local address'],
    ['IPv6 link-local', 'fe80::1', 'a link-local address'],
    ['cloud metadata (IPv4)', '169.254.169.254', 'a cloud metadata address'],
    ['cloud metadata (IPv6)', 'fd00:ec2::254', 'a cloud metadata address'],
    ['shared CGNAT', '100.64.0.1', 'a shared (CGNAT) address'],
    ['IPv4 unspecified', '0.0.0.0', 'an unspecified address'],
    ['IPv4 "this network"', '0.1.2.3', 'an unspecified address'],
    ['IPv6 unspecified', '::', 'an unspecified address'],
    ['IPv4 multicast', '224.0.0.1', 'a multicast address'],
    ['IPv6 multicast', 'ff02::1', 'a multicast address'],
    ['broadcast', '255.255.255.255', 'a broadcast address'],
    ['TEST-NET-1', '192.0.2.1', 'a documentation address'],
    ['TEST-NET-2', '198.51.100.7', 'a documentation address'],
    ['TEST-NET-3', '203.0.113.9', 'a documentation address'],
    ['IPv6 documentation', '2001:db8::1', 'a documentation address'],
    ['IPv4 reserved 240/4', '240.0.0.1', 'a reserved address'],
    ['IPv4 benchmarking', '198.18.0.1', 'a reserved address'],
    ['IPv6 outside 2000::/3', '4000::1', 'a reserved address'],
    ['IPv4-compatible IPv6 (deprecated)', '::a00:1', 'a reserved address'],
    ['IPv4-mapped private', '::ffff:10.0.0.1', 'a private address'],
    ['IPv4-mapped loopback', '::ffff:127.0.0.1', 'a loopback address'],
    ['IPv4-mapped metadata', '::ffff:169.254.169.254', 'a cloud metadata address'],
    ['NAT64 of a private address', '64:ff9b::a00:1', 'a private address'],
    ['NAT64 local-use prefix', '64:ff9b:1::808:808', 'a special-purpose (rfc6052) address'],
    ['IPv4-translated', '::ffff:0:808:808', 'a special-purpose (rfc6145) address'],
    ['6to4', '2002:808:808::1', 'a special-purpose (6to4) address'],
    ['Teredo', '2001::1', 'a special-purpose (teredo) address'],
    ['a host name', 'example.com', 'not an IP address'],
    ['a non-standard IPv4 form', '127.1', 'not an IP address'],
  ])('refuses %s (%s)', (_name, address, kind) => {
    expect(policy.addressRefusal(address)).toBe(`${address} is ${kind}`);
    expect(isGlobalUnicast(address)).toBe(false);
  });

  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    'lets global unicast %s through',
    (address) => {
      expect(policy.addressRefusal(address)).toBeNull();
      expect(isGlobalUnicast(address)).toBe(true);
    },
  );
});

describe('WebhookAddressPolicy.refusal', () => {
  it.each<[string, string, string | null]>([
    ['an https URL whose every address is public', 'https://public.example/hook', null],
    ['a public IPv4 literal', 'https://93.184.216.34/hook', null],
    ['a public IPv6 literal', 'https://[2606:4700::1111]:8443/hook', null],
    ['an allowed host in other case, over http', 'http://DEV.local:3000/hook', null],
    ['an allowed IPv6 loopback literal, over http', 'http://[::1]:3000/hook', null],
    ['an allowed IPv4 loopback literal', 'https://127.0.0.1/hook', null],
    ['http to a host not allowed', 'http://public.example/hook', 'url must use https'],
    ['another scheme', 'ftp://public.example/hook', 'url must use https'],
    ['userinfo', 'https://user:secret@public.example/hook', 'url must not contain credentials'],
    ['userinfo on an allowed host', 'http://user@dev.local/hook', 'url must not contain credentials'],
    ['a relative URL', '/hook', 'url must be an absolute URL'],
    [
      'a name with one public and one private address',
      'https://mixed.example/',
      "url's host resolves to a private address (10.0.0.1)",
    ],
    [
      'a name with a private address',
      'https://internal.example/',
      "url's host resolves to a private address (192.168.1.10)",
    ],
    ['a name that does not resolve', 'https://nowhere.example/', "url's host does not resolve"],
    ['a name that resolves to nothing', 'https://empty.example/', "url's host does not resolve"],
    ['a private IPv4 literal', 'https://10.0.0.1/', "url's host is a private address (10.0.0.1)"],
    [
      'a loopback IPv4 literal in a non-standard form',
      'https://0x7f000002/',
      "url's host is a loopback address (127.0.0.2)",
    ],
    ['an IPv6 literal outside 2000::/3', 'https://[0::2]/', "url's host is a reserved address (::2)"],
    ['an IPv4-mapped literal', 'https://[::ffff:127.0.0.1]/', "url's host is a loopback address (::ffff:7f00:1)"],
    ['a NAT64 literal', 'https://[64:ff9b::a9fe:a9fe]/', "url's host is a cloud metadata address (64:ff9b::a9fe:a9fe)"],
  ])('judges %s', async (_name, url, expected) => {
    await expect(policy.refusal(url)).resolves.toBe(expected);
  });
});

describe('WebhookAddressPolicy.refusal with the development hint', () => {
  const hinting = new WebhookAddressPolicy(['dev.local'], resolver, true);

  it.each<[string, string, string | null]>([
    ['a loopback literal', 'https://127.0.0.1/', `url's host is a loopback address (127.0.0.1); ${ALLOWED_HOSTS_HINT}`],
    [
      'a name with a private address',
      'https://internal.example/',
      `url's host resolves to a private address (192.168.1.10); ${ALLOWED_HOSTS_HINT}`,
    ],
    ['http to a public host', 'http://public.example/hook', 'url must use https'],
    ['a name that does not resolve', 'https://nowhere.example/', "url's host does not resolve"],
    ['an allowed host', 'http://dev.local/hook', null],
  ])('names WEBHOOK_ALLOWED_HOSTS only when refusing an address: %s', async (_name, url, expected) => {
    await expect(hinting.refusal(url)).resolves.toBe(expected);
  });

  it('keeps the delivery-time refusal of an address short', () => {
    expect(hinting.urlRefusal('https://127.0.0.1/')).toBe("url's host is a loopback address (127.0.0.1)");
  });
});

describe('WebhookAddressPolicy.isAllowedHost', () => {
  it.each<[string, boolean]>([
    ['dev.local', true],
    ['DEV.LOCAL', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['127.0.0.1', true],
    ['localhost', false],
    ['dev.local.evil.example', false],
    ['', false],
  ])('%s → %s', (hostname, allowed) => {
    expect(policy.isAllowedHost(hostname)).toBe(allowed);
  });
});

describe('WebhookAddressPolicy.lookup', () => {
  it.each<[string, LookupOptions, string | LookupAddress[]]>([
    ['one address', { all: false }, '93.184.216.34/4'],
    ['one IPv6 address', { family: 6 }, '2606:4700::1111/6'],
    ['one address of family "IPv6"', { family: 'IPv6' }, '2606:4700::1111/6'],
    [
      'all addresses',
      { all: true },
      [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
    ],
    ['all IPv4 addresses', { all: true, family: 4 }, [{ address: '93.184.216.34', family: 4 }]],
  ])('resolves a public name to %s', async (_name, options, expected) => {
    await expect(lookup('public.example', options)).resolves.toEqual(expected);
  });

  it.each<[string, LookupOptions]>([
    ['one address', { all: false }],
    ['all addresses', { all: true }],
    ['IPv4 addresses only', { all: true, family: 4 }],
  ])('fails a name with a private address when asked for %s', async (_name, options) => {
    await expect(lookup('mixed.example', options)).rejects.toMatchObject({
      code: 'EWEBHOOKADDRESS',
      message: 'mixed.example resolves to a private address (10.0.0.1)',
    });
  });

  it.each<[string, LookupOptions, string | LookupAddress[]]>([
    ['one address', { all: false }, '10.1.2.3/4'],
    ['all addresses', { all: true }, [{ address: '10.1.2.3', family: 4 }]],
  ])('resolves an allowed host to its private address when asked for %s', async (_name, options, expected) => {
    await expect(lookup('DEV.LOCAL', options)).resolves.toEqual(expected);
  });

  it.each<[string, string, LookupOptions]>([
    ['does not resolve', 'nowhere.example', { all: true }],
    ['has no address of the family asked for', 'dev.local', { family: 6 }],
  ])('passes on ENOTFOUND for a name that %s', async (_name, hostname, options) => {
    await expect(lookup(hostname, options)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});
