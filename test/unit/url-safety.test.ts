import { describe, expect, it } from 'vitest';
import { checkDestinationUrl, classifyAddress, parseIPv4, parseIPv6, resolveDestination } from '#domain/url-safety';

describe('parseIPv4', () => {
  it('reads every inet_aton notation', () => {
    const loopback = 0x7f000001;
    for (const text of [
      '127.0.0.1',
      '127.1',
      '127.0.1',
      '0x7f.0.0.1',
      '0x7F.1',
      '0177.0.0.1',
      '017700000001',
      '2130706433',
      '0x7f000001',
    ]) {
      expect(parseIPv4(text), text).toBe(loopback);
    }
    expect(parseIPv4('0')).toBe(0);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
  });
  it('rejects what is not an address', () => {
    for (const text of ['256.0.0.1', '1.2.3.4.5', '1..2', '09', '0xg', 'example.com', '1.2.3.256', '4294967296', '1.16777216', '']) {
      expect(parseIPv4(text), text).toBeNull();
    }
  });
});

describe('parseIPv6', () => {
  it('reads compressed, embedded-IPv4 and bracketed forms', () => {
    expect(Array.from(parseIPv6('::1')!)).toEqual([...new Array(15).fill(0), 1]);
    expect(Array.from(parseIPv6('[::ffff:127.0.0.1]')!.slice(10))).toEqual([0xff, 0xff, 127, 0, 0, 1]);
    expect(parseIPv6('fe80::1%eth0')).not.toBeNull();
    for (const bad of ['1::2::3', '12345::', '1:2:3:4:5:6:7:8:9', 'g::1', '::1.2.3.256', '127.0.0.1'])
      expect(parseIPv6(bad), bad).toBeNull();
  });
});

describe('classifyAddress', () => {
  const blocked: [string, string][] = [
    ['0.0.0.0', 'this-network'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'metadata'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b:1::1', 'nat64-local'],
    ['2002:7f00:1::1', '6to4-loopback'],
    ['2002:a00:1::1', '6to4-private'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001:2::1', 'benchmarking'],
    ['fd00:ec2::254', 'metadata'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['4000::1', 'not-global-unicast'],
  ];
  for (const [address, reason] of blocked) {
    it(`blocks ${address} (${reason})`, () => expect(classifyAddress(address)).toEqual({ allowed: false, reason }));
  }
  it('allows global unicast, also inside mapped, NAT64 and 6to4 forms', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '1.1.1.1',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
      '64:ff9b::808:808',
      '2002:808:808::1',
    ]) {
      expect(classifyAddress(address), address).toEqual({ allowed: true });
    }
  });
  it('allows loopback (and only loopback) when the local runtime says so', () => {
    expect(classifyAddress('127.0.0.1', { allowLoopback: true })).toEqual({ allowed: true });
    expect(classifyAddress('::1', { allowLoopback: true })).toEqual({ allowed: true });
    expect(classifyAddress('10.0.0.1', { allowLoopback: true }).allowed).toBe(false);
    expect(classifyAddress('169.254.169.254', { allowLoopback: true }).allowed).toBe(false);
  });
});

describe('checkDestinationUrl', () => {
  it('accepts public HTTPS URLs with paths, queries and ports', () => {
    expect(checkDestinationUrl('https://hooks.example.com/path?x=1')).toMatchObject({ ok: true, hostname: 'hooks.example.com' });
    expect(checkDestinationUrl('https://93.184.216.34:8443/h')).toMatchObject({ ok: true });
    expect(checkDestinationUrl('https://[2606:4700::1111]/h')).toMatchObject({ ok: true, hostname: '2606:4700::1111' });
  });
  it('refuses other schemes, credentials, fragments and every literal notation of a blocked address', () => {
    const refused = [
      'http://hooks.example.com/',
      'ftp://hooks.example.com/',
      'https://user@hooks.example.com/',
      'https://user:pw@hooks.example.com/',
      'https://hooks.example.com/#',
      'https://hooks.example.com/#x',
      'https://',
      'https://hooks.example.com/ spaced',
      'https://127.1/',
      'https://0x7f.0.0.1/',
      'https://017700000001/',
      'https://2130706433/',
      'https://[::ffff:127.0.0.1]/',
      'https://[::1]/',
      'https://[fd00:ec2::254]/',
      'https://169.254.169.254/',
      'https://0251.0376.0251.0376/',
      'https://localhost/',
      'https://a.localhost/',
      `https://h.example.com/${'x'.repeat(2100)}`,
      'nonsense',
    ];
    for (const url of refused) expect(checkDestinationUrl(url).ok, url).toBe(false);
  });
});

describe('checkDestinationUrl: ports, the written-out form and the canonical URL', () => {
  it('refuses port 0 and every port below 1024 but 443; takes 443 (dropped) and unprivileged ports', () => {
    for (const url of [
      'https://1.1.1.1:22/',
      'https://1.1.1.1:0/',
      'https://h.example.com:80/',
      'https://h.example.com:25/',
      'https://h.example.com:1023/',
      'https://h.example.com:00022/',
    ]) {
      expect(checkDestinationUrl(url), url).toMatchObject({ ok: false, code: 'invalid_url', reason: expect.stringMatching(/port/) });
    }
    expect(checkDestinationUrl('https://h.example.com:443/x')).toMatchObject({ ok: true, url: { href: 'https://h.example.com/x' } });
    expect(checkDestinationUrl('https://h.example.com:1024/x')).toMatchObject({ ok: true, url: { href: 'https://h.example.com:1024/x' } });
    expect(checkDestinationUrl('https://h.example.com:65535/x').ok).toBe(true);
    expect(checkDestinationUrl('https://h.example.com:65536/x').ok).toBe(false);
  });
  it('takes only https:// followed by the host, without backslashes (what WHATWG URL would silently repair)', () => {
    for (const url of [
      'https:1.1.1.1/x',
      'https:/h.example.com/x',
      'https:///h.example.com/x',
      'HTTPS:h.example.com',
      'https:\\\\h.example.com\\x',
      'https://h.example.com\\x',
      'https://h.example.com/a?b=\\',
    ]) {
      expect(checkDestinationUrl(url).ok, url).toBe(false);
    }
  });
  it('gives the canonical form: scheme and host lower-case, IDN as punycode, IPv4 dotted decimal, default port dropped', () => {
    const canonical = (url: string) => {
      const checked = checkDestinationUrl(url);
      return checked.ok ? checked.url.href : checked.reason;
    };
    expect(canonical('HTTPS://Hooks.EXAMPLE.com:443/Path?Q=1')).toBe('https://hooks.example.com/Path?Q=1');
    expect(canonical('https://bücher.example/x')).toBe('https://xn--bcher-kva.example/x');
    expect(canonical('https://0x01010101:8443')).toBe('https://1.1.1.1:8443/');
    expect(canonical('https://[2606:4700:0:0::1111]/h')).toBe('https://[2606:4700::1111]/h');
  });
});

describe('resolveDestination', () => {
  const resolver = async (host: string) => {
    const table: Record<string, string[]> = {
      'pub.test': ['93.184.216.34', '2606:4700::1'],
      'mix.test': ['93.184.216.34', '10.0.0.1'],
      'meta.test': ['fd00:ec2::254'],
      'empty.test': [],
    };
    if (!(host in table)) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    return table[host]!.map((address) => {
      const family: 4 | 6 = address.includes(':') ? 6 : 4;
      return { address, family };
    });
  };
  it('connects to the first address when every answer is public', async () => {
    expect(await resolveDestination('https://pub.test/h', resolver)).toMatchObject({
      ok: true,
      hostname: 'pub.test',
      address: { address: '93.184.216.34', family: 4 },
    });
  });
  it('refuses a name with any non-public answer, and names that do not resolve', async () => {
    expect(await resolveDestination('https://mix.test/h', resolver)).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(await resolveDestination('https://meta.test/h', resolver)).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(await resolveDestination('https://empty.test/h', resolver)).toMatchObject({ ok: false, code: 'dns_failure' });
    expect(await resolveDestination('https://nx.test/h', resolver)).toMatchObject({ ok: false, code: 'dns_failure' });
    expect(await resolveDestination('http://pub.test/h', resolver)).toMatchObject({ ok: false, code: 'invalid_url' });
    expect(await resolveDestination('https://127.1/h', resolver)).toMatchObject({ ok: false, code: 'blocked_address' });
  });
  it('uses an IP literal as is, normalised, without DNS', async () => {
    const none = async () => {
      throw new Error('no DNS for literals');
    };
    expect(await resolveDestination('https://127.1/h', none, { allowLoopback: true })).toMatchObject({
      ok: true,
      address: { address: '127.0.0.1', family: 4 },
    });
  });
});

describe("the listen inbox's allowance", () => {
  const inbox = { listenInbox: 'https://127.0.0.1:41234' };
  const local = (name: string) => async () => [{ address: name === 'localhost' ? '127.0.0.1' : '10.0.0.1', family: 4 as const }];

  it('lets through exactly its origin, in any notation of that address, on save and before an attempt alike', async () => {
    for (const url of ['https://127.0.0.1:41234/listen', 'https://127.1:41234/other?q=1', 'https://0x7f.0.0.1:41234/listen']) {
      expect(checkDestinationUrl(url, inbox).ok, url).toBe(true);
      expect(await resolveDestination(url, local(''), inbox), url).toMatchObject({ ok: true, address: { address: '127.0.0.1' } });
    }
  });
  it('lets nothing else on this machine or in a private range through', async () => {
    for (const url of [
      'https://127.0.0.1:41235/listen',
      'https://127.0.0.1/listen',
      'https://127.0.0.2:41234/listen',
      'https://[::1]:41234/listen',
      'https://[::ffff:127.0.0.1]:41234/listen',
      'https://localhost:41234/listen',
    ]) {
      expect(await resolveDestination(url, local('localhost'), inbox), url).toMatchObject({ ok: false, code: 'blocked_address' });
    }
    // An origin outside loopback is never let through by the allowance, whoever set it.
    const privateInbox = { listenInbox: 'https://10.0.0.1:41234' };
    expect(checkDestinationUrl('https://10.0.0.1:41234/listen', privateInbox)).toMatchObject({ ok: false, code: 'blocked_address' });
    expect(checkDestinationUrl('http://127.0.0.1:41234/listen', inbox)).toMatchObject({ ok: false, code: 'invalid_url' });
  });
});
