/**
 * Webhook URL and address safety (contract 6.5 rule 4), pure: which URLs may
 * be saved and which resolved addresses may be connected to. Only global
 * unicast addresses pass; every local, private, reserved, documentation,
 * benchmarking, multicast and metadata range is refused, also when it hides
 * inside an IPv4-mapped, NAT64, 6to4 or Teredo IPv6 address.
 */

export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };
export type SafetyOptions = {
  /** Local runtime only (WEBHOOK_ALLOW_LOOPBACK=1): 127.0.0.0/8 and ::1 pass, nothing else changes. */
  allowLoopback?: boolean;
  /**
   * Local runtime only: the origin of the `npm run listen` inbox it reserved (`https://127.0.0.1:PORT`). A URL with
   * exactly this origin passes although its host is loopback; any other port, loopback name or range stays refused.
   */
  listenInbox?: string;
};

/**
 * Parses an IPv4 address in any notation inet_aton accepts: 1 to 4 parts,
 * each decimal, octal (leading 0) or hex (0x); the last part fills the
 * remaining bytes (`127.1`, `0x7f.0.0.1`, `017700000001`, `2130706433`).
 * Returns the 32-bit value, or null when the text is not such an address.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]*$/.test(part)) value = parseInt(part, 8);
    else if (/^[1-9][0-9]*$/.test(part)) value = parseInt(part, 10);
    else return null;
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return null;
  if (last >= 2 ** (8 * (4 - values.length))) return null;
  return values.reduce((acc, v, i) => acc + v * 2 ** (8 * (3 - i)), 0) + last;
}

/** Parses an IPv6 address (with `::`, an embedded dotted IPv4 tail, and an optional zone) into 16 bytes. */
export function parseIPv6(text: string): Uint8Array | null {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!/^[0-9a-f:.]+$/i.test(address) || !address.includes(':')) return null;
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parseHalf = (half: string): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const pieces = half.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes('.')) {
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(piece)) return null;
        const octets = piece.split('.').map(Number);
        if (octets.some((o) => o > 255)) return null;
        out.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(piece)) return null;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = parseHalf(halves[0]!);
  const tail = halves.length === 2 ? parseHalf(halves[1]!) : [];
  if (!head || !tail) return null;
  // The groups `::` stands for: at least one; without `::`, the address spells all eight.
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return Uint8Array.from([...head, ...new Array<number>(missing).fill(0), ...tail].flatMap((g) => [g >> 8, g & 0xff]));
}

type V4Range = [base: string, prefix: number, reason: string];
const V4_BLOCKED: V4Range[] = [
  ['0.0.0.0', 8, 'this-network'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.169.254', 32, 'metadata'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V4_TABLE = V4_BLOCKED.map(([base, prefix, reason]) => ({ base: parseIPv4(base)!, prefix, reason }));

function classifyIPv4(value: number, options: SafetyOptions = {}): AddressVerdict {
  const hit = V4_TABLE.find((r) => value >= r.base && value < r.base + 2 ** (32 - r.prefix));
  if (!hit) return { allowed: true };
  if (hit.reason === 'loopback' && options.allowLoopback) return { allowed: true };
  return { allowed: false, reason: hit.reason };
}

const hex = (bytes: Uint8Array, from: number, to: number) =>
  Array.from(bytes.slice(from, to), (b) => b.toString(16).padStart(2, '0')).join('');
const v4At = (bytes: Uint8Array, offset: number) =>
  ((bytes[offset]! << 24) >>> 0) + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) + bytes[offset + 3]!;

/** Prefixes (as hex of the leading bytes) of IPv6 ranges that are never a public destination. */
const V6_BLOCKED: [prefixHex: string, bits: number, reason: string][] = [
  ['fd000ec2000000000000000000000254', 128, 'metadata'],
  ['0064ff9b0001', 48, 'nat64-local'],
  ['0100000000000000', 64, 'discard'],
  ['20010000', 32, 'teredo'],
  ['20010db8', 32, 'documentation'],
  ['200100020000', 48, 'benchmarking'],
  ['2001', 23, 'reserved'],
  ['3fff', 20, 'documentation'],
  ['5f00', 16, 'reserved'],
  ['fc', 7, 'unique-local'],
  ['fe80', 10, 'link-local'],
  ['fec0', 10, 'site-local'],
  ['ff', 8, 'multicast'],
];

function hasPrefix(bytes: Uint8Array, prefixHex: string, bits: number): boolean {
  const want = BigInt(`0x${prefixHex.padEnd(32, '0')}`);
  const have = BigInt(`0x${hex(bytes, 0, 16)}`);
  const shift = BigInt(128 - bits);
  return want >> shift === have >> shift;
}

function classifyIPv6(bytes: Uint8Array, options: SafetyOptions = {}): AddressVerdict {
  const all = hex(bytes, 0, 16);
  if (all === '0'.repeat(32)) return { allowed: false, reason: 'unspecified' };
  if (all === `${'0'.repeat(31)}1`) {
    return options.allowLoopback ? { allowed: true } : { allowed: false, reason: 'loopback' };
  }
  // Forms that carry an IPv4 address: judge the IPv4 address they carry.
  if (hex(bytes, 0, 12) === '00000000000000000000ffff') return classifyIPv4(v4At(bytes, 12), options);
  if (hex(bytes, 0, 12) === '0'.repeat(24)) return { allowed: false, reason: 'ipv4-compatible' };
  if (hex(bytes, 0, 12) === '0064ff9b0000000000000000') return classifyIPv4(v4At(bytes, 12), options);
  if (hex(bytes, 0, 2) === '2002') {
    const inner = classifyIPv4(v4At(bytes, 2), { allowLoopback: false });
    if (!inner.allowed) return { allowed: false, reason: `6to4-${inner.reason}` };
  }
  for (const [prefixHex, bits, reason] of V6_BLOCKED) {
    if (hasPrefix(bytes, prefixHex, bits)) return { allowed: false, reason };
  }
  // Global unicast is 2000::/3; everything outside it is unassigned or special.
  if ((bytes[0]! & 0xe0) !== 0x20) return { allowed: false, reason: 'not-global-unicast' };
  return { allowed: true };
}

/** Classifies a textual address (a resolver's answer or a URL literal) in any notation. */
export function classifyAddress(text: string, options: SafetyOptions = {}): AddressVerdict {
  const v4 = parseIPv4(text);
  if (v4 !== null) return classifyIPv4(v4, options);
  const v6 = parseIPv6(text);
  if (v6) return classifyIPv6(v6, options);
  return { allowed: false, reason: 'not-an-address' };
}

/** An IP literal host in any notation, or null for a DNS name. */
function literalAddress(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '');
  // A name whose last label is numeric is an IPv4 literal to WHATWG URL and to inet_aton alike.
  return parseIPv6(bare) || parseIPv4(bare) !== null ? bare : null;
}

export type ParsedDestinationUrl =
  { ok: true; url: URL; hostname: string } | { ok: false; code: 'invalid_url' | 'blocked_address'; reason: string };

const invalid = (reason: string) => ({ ok: false, code: 'invalid_url', reason }) as const;

/** The only port below 1024 a destination may name (HTTPS's own, dropped from the stored URL as the default). */
const HTTPS_PORT = 443;
/** Ports from here up are unprivileged: no well-known service (SSH, SMTP, ...) listens there by convention. */
const FIRST_UNPRIVILEGED_PORT = 1024;

/**
 * Static URL rules: HTTPS written out with its `//` and no backslash (what every URL parser reads the same way), no
 * credentials, no fragment, a host, port 443 or an unprivileged one; an IP literal must be public. `url.href` is
 * the canonical form to store: scheme and host lower-case, IDN as punycode, IPv4 in dotted decimal, the default
 * port dropped (docs/decisions/destination-urls.md).
 */
export function checkDestinationUrl(raw: string, options: SafetyOptions = {}): ParsedDestinationUrl {
  if (raw.length > 2048) return invalid('url is longer than 2048 characters');
  if (/\s/.test(raw)) return invalid('url contains whitespace');
  // WHATWG URL repairs `https:host`, `https:/host`, `https:///host` and backslashes into `https://host/`; other
  // parsers (and people) read them otherwise, so only the unambiguous form is taken.
  if (raw.includes('\\')) return invalid('url must not contain a backslash');
  if (/^https:/i.test(raw) && !/^https:\/\/[^/]/i.test(raw)) {
    return invalid('url must start with https:// followed by the host');
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return invalid('url is not an absolute URL');
  }
  if (url.protocol !== 'https:') return invalid('url must use https');
  // `url.port` is empty for the default (443, also when written out) and for none.
  if (url.port !== '' && Number(url.port) < FIRST_UNPRIVILEGED_PORT) {
    return invalid(`url port must be ${HTTPS_PORT} or ${FIRST_UNPRIVILEGED_PORT}-65535, not ${url.port}`);
  }
  if (url.username || url.password || /^https:\/\/[^/?#]*@/i.test(raw)) {
    return invalid('url must not contain credentials');
  }
  // `new URL` drops an empty fragment, so look at the raw text.
  if (raw.includes('#')) return invalid('url must not contain a fragment');
  const hostname = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (!hostname) return invalid('url has no host');
  const literal = literalAddress(hostname);
  if (literal) {
    const verdict = classifyAddress(literal, options);
    // Only a loopback literal can be the inbox: an origin naming any other range is never let through by it.
    const inbox = options.listenInbox !== undefined && url.origin === options.listenInbox;
    if (!verdict.allowed && !(verdict.reason === 'loopback' && inbox))
      return { ok: false, code: 'blocked_address', reason: `url host is a ${verdict.reason} address` };
  } else if (hostname === 'localhost' || hostname.endsWith('.localhost')) {
    if (!options.allowLoopback) return { ok: false, code: 'blocked_address', reason: 'url host is a loopback name' };
  }
  return { ok: true, url, hostname };
}

export type ResolvedAddress = { address: string; family: 4 | 6 };
/** Injected like the clock: production uses dns.promises.lookup(host, { all: true }). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export type ResolvedTarget =
  | { ok: true; url: URL; hostname: string; address: ResolvedAddress }
  | { ok: false; code: 'invalid_url' | 'dns_failure' | 'blocked_address'; reason: string };

/**
 * The full check made on save and before every attempt: static rules, then
 * DNS; every resolved address must be public (one private answer refuses the
 * name), and the first is the one to connect to.
 */
export async function resolveDestination(raw: string, resolve: Resolver, options: SafetyOptions = {}): Promise<ResolvedTarget> {
  const parsed = checkDestinationUrl(raw, options);
  if (!parsed.ok) return parsed;
  const literal = literalAddress(parsed.hostname);
  if (literal) {
    // An IPv4 literal in any notation is connected to in dotted decimal.
    const v4 = parseIPv4(literal);
    const address = v4 === null ? literal : [24, 16, 8, 0].map((shift) => Math.floor(v4 / 2 ** shift) % 256).join('.');
    return { ok: true, url: parsed.url, hostname: parsed.hostname, address: { address, family: v4 === null ? 6 : 4 } };
  }
  const answers = await resolve(parsed.hostname).catch((): ResolvedAddress[] => []);
  if (answers.length === 0) return { ok: false, code: 'dns_failure', reason: `${parsed.hostname} does not resolve` };
  for (const answer of answers) {
    const verdict = classifyAddress(answer.address, options);
    if (!verdict.allowed) {
      return { ok: false, code: 'blocked_address', reason: `${parsed.hostname} resolves to a ${verdict.reason} address` };
    }
  }
  return { ok: true, url: parsed.url, hostname: parsed.hostname, address: answers[0]! };
}
