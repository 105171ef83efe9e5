import { describe, expect, it } from 'vitest';
import { checkDestinationUrl, classifyAddress, parseIPv4, parseIPv6, resolveDestination } from '#domain/url-safety';

/**
 * Contract 6.5 rule 4 at its edges: blocked ranges end where they end (the next address is public), every
 * reserved IPv6 block is refused, credentials in any spelling are refused, and a public address is judged
 * public, so the blocking is the ranges' doing and not a parser refusing everything.
 */
describe('blocked IPv4 ranges end exactly at their bounds', () => {
  it.each([
    '0.255.255.255',
    '10.255.255.255',
    '100.127.255.255',
    '172.31.255.255',
    '192.88.99.255',
    '198.19.255.255',
    '203.0.113.255',
    '255.255.255.255',
  ])('refuses %s, the last address of a blocked range', (address) => expect(classifyAddress(address).allowed).toBe(false));
  it.each([
    '1.0.0.0',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
  ])('allows %s, just outside every blocked range', (address) => expect(classifyAddress(address)).toEqual({ allowed: true }));
});

describe('reserved IPv6 blocks inside global unicast', () => {
  it.each([
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'Teredo'],
    ['2001:2::1', 'benchmarking'],
    ['2001:10::1', 'IETF protocol assignments'],
    ['5f00::1', 'segment routing'],
    ['64:ff9b:1::1', 'local-use NAT64'],
  ])('refuses %s (%s)', (address) => expect(classifyAddress(address).allowed).toBe(false));

  it.each(['2606:4700::1111', '2001:4860:4860::8888', '2a00:1450::1'])('allows the public address %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true });
  });

  it('refuses a name, which is no address at all', () => {
    expect(classifyAddress('example.com').allowed).toBe(false);
  });
});

describe('address notation', () => {
  it('reads an empty hex part as zero and refuses hex with other characters', () => {
    expect(parseIPv4('0x')).toBe(0);
    expect(parseIPv4('0x.0.0.1')).toBe(1);
    expect(parseIPv4('0x1g')).toBeNull();
  });
  it("reads a '::' at the end standing for one group, and refuses one that stands for none", () => {
    expect(Array.from(parseIPv6('1:2:3:4:5:6:7::')!)).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 0]);
    expect(parseIPv6('1:2:3:4:5:6:7:8::')).toBeNull();
  });
  it('reads an embedded IPv4 tail up to 255 in each octet, and only a four-octet one', () => {
    expect(Array.from(parseIPv6('::ffff:203.0.113.255')!.slice(12))).toEqual([203, 0, 113, 255]);
    for (const bad of ['::ffff:1.2.3', '::ffff:1.2.3.4.5', '::ffff:x1.2.3.4', '::ffff:1.2.3.4x']) expect(parseIPv6(bad), bad).toBeNull();
  });
});

describe('credentials in the URL are refused in every spelling (6.5 rule 4)', () => {
  it.each(['https://user@example.com/h', 'https://:secret@example.com/h', 'https://user:secret@example.com/h', 'https://@example.com/h'])(
    '%s',
    (url) => {
      expect(checkDestinationUrl(url)).toMatchObject({ ok: false, code: 'invalid_url' });
    },
  );
  it('accepts an @ in the path or the query, which is no credential', () => {
    expect(checkDestinationUrl('https://example.com/a@b').ok).toBe(true);
    expect(checkDestinationUrl('https://example.com/cb?next=https://user@elsewhere.example').ok).toBe(true);
  });
});

describe('the scheme is written out, and loopback names follow the loopback switch', () => {
  it.each(['https:example.com/h', 'https:/example.com/h', 'https:///example.com/h', 'https:/example.com/?next=https://example.org'])(
    'refuses %s',
    (url) => {
      expect(checkDestinationUrl(url)).toMatchObject({ ok: false, code: 'invalid_url' });
    },
  );
  it('refuses localhost names unless loopback is allowed (the local runtime only)', () => {
    for (const url of ['https://localhost/h', 'https://api.localhost/h']) {
      expect(checkDestinationUrl(url), url).toMatchObject({ ok: false, code: 'blocked_address' });
      expect(checkDestinationUrl(url, { allowLoopback: true }).ok, url).toBe(true);
    }
  });
});

describe('a public IPv6 literal host connects to that address, without DNS', () => {
  it('keeps the literal and its family', async () => {
    const target = await resolveDestination('https://[2606:4700::1111]/hook', async () => {
      throw new Error('a literal host is not looked up');
    });
    expect(target).toMatchObject({ ok: true, address: { address: '2606:4700::1111', family: 6 } });
  });
});
