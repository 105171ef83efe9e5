import { sha256Hex } from '#domain/crypto';
import { parseIPv4, parseIPv6 } from '#domain/url-safety';

/**
 * The address a failed exchange is charged to: an IPv4 address as it is, an IPv6 address by its /64 (one
 * customer's allocation: a host holding a /64 can pick a fresh address for every request), an IPv4-mapped IPv6
 * address as the IPv4 address it carries. Unknown (no source address reported) is one bucket of its own.
 */
export function addressBucket(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const v6 = parseIPv6(ip);
  if (v6) {
    const isMapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
    if (isMapped) return `4:${v6.slice(12).join('.')}`;
    return `6:${Buffer.from(v6.slice(0, 8)).toString('hex')}/64`;
  }
  const v4 = parseIPv4(ip);
  if (v4 !== null) return `4:${[24, 16, 8, 0].map((s) => Math.floor(v4 / 2 ** s) % 256).join('.')}`;
  // Not an address (never from API Gateway): bounded by the hash below all the same.
  return `?:${ip.slice(0, 64)}`;
}

/**
 * The attempt counter's subject for a client id and source address: a SHA-256, so the key is 64 characters
 * whatever was sent and no address is stored in the clear.
 */
export function attemptSubject(clientId: string, ip: string | undefined): string {
  return sha256Hex(`${clientId}\n${addressBucket(ip)}`);
}
