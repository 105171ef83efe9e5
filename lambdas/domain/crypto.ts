import { createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { isId } from '#contract/ids';

/** 256 random bits, base64url: access tokens, client secrets, signing secrets. */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/**
 * Tokens and client secrets are 256-bit random values, so a plain SHA-256 is
 * enough to store them: there is no low-entropy password to slow-hash. Node's
 * one-shot digest of the UTF-8 text, in hex.
 */
export const sha256Hex = hash.bind(null, 'sha256') as (value: string) => string;

/** Constant-time equality of two strings (lengths are compared first; length is not secret). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Access tokens that name their application:
 *
 *   <clientId>.<expiresAt, epoch seconds>.<256 random bits>.<tag>
 *
 * The random part is what makes the token a secret; the store keeps only the
 * SHA-256 of the whole token, as for every credential. The tag (HMAC-SHA256
 * under the service's current token key version, 128 bits; data/token-keys.ts) lets a function trust the client
 * id and expiry before reading anything, so it can fetch the credential, the
 * application, the location and the path's data in one round trip beside the
 * rate counter's write, and a string nobody issued (or an expired token)
 * never spends an application's rate limit: it is refused from memory.
 * Tokens without this shape are legacy credentials, found by hash first.
 */
export const NAMED_TOKEN = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.(\d{1,12})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{22})$/;

export type NamedToken = { clientId: string; expiresAtSeconds: number };

function tagOf(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body, 'utf8').digest().subarray(0, 16);
}

export function mintAccessToken(key: Buffer, clientId: string, expiresAtSeconds: number): string {
  const body = `${clientId}.${expiresAtSeconds}.${randomSecret(32)}`;
  return `${body}.${tagOf(key, body).toString('base64url')}`;
}

/**
 * The client id and expiry a token names, when its tag is one of `keys` (the key versions accepted now: a few at
 * most, during a rotation); null for a forged or altered token, or one signed by a version no longer accepted.
 */
export function readAccessToken(keys: readonly Buffer[], token: string): NamedToken | null {
  const match = NAMED_TOKEN.exec(token);
  if (!match || !isId(match[1]!)) return null;
  const tag = Buffer.from(match[4]!, 'base64url');
  const body = token.slice(0, token.lastIndexOf('.'));
  const ours = keys.some((key) => {
    const expected = tagOf(key, body);
    return tag.length === expected.length && timingSafeEqual(tag, expected);
  });
  return ours ? { clientId: match[1]!, expiresAtSeconds: Number(match[2]) } : null;
}
