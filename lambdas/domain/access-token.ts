import { createHmac, timingSafeEqual } from 'node:crypto';
import { isId } from '#contract/ids';
import { randomSecret } from './crypto.js';

/**
 * Access tokens that name their application:
 *
 *   <clientId>.<expiresAt, epoch seconds>.<256 random bits>.<tag>
 *
 * The random part is what makes the token a secret; the store keeps only the
 * SHA-256 of the whole token, as for every credential. The tag (HMAC-SHA256
 * under the service's token key, 128 bits) lets a function trust the client
 * id and expiry before reading anything, so it can fetch the credential, the
 * application, the location and the path's data in one round trip beside the
 * rate counter's write, and a string nobody issued (or an expired token)
 * never spends an application's rate limit: it is refused from memory.
 * Tokens without this shape are legacy credentials, found by hash first.
 */
const SHAPE = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63})\.(\d{1,12})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{22})$/;

export type NamedToken = { clientId: string; expiresAtSeconds: number };

function tagOf(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body, 'utf8').digest().subarray(0, 16);
}

export function mintAccessToken(key: Buffer, clientId: string, expiresAtSeconds: number): string {
  const body = `${clientId}.${expiresAtSeconds}.${randomSecret(32)}`;
  return `${body}.${tagOf(key, body).toString('base64url')}`;
}

/** Whether a bearer value has the shape of a token that names its application (else: a legacy credential). */
export function namesApplication(token: string): boolean {
  return SHAPE.test(token);
}

/** The client id and expiry a token names, when its tag is ours; null for a forged or altered token. */
export function readAccessToken(key: Buffer, token: string): NamedToken | null {
  const match = SHAPE.exec(token);
  if (!match || !isId(match[1]!)) return null;
  const tag = Buffer.from(match[4]!, 'base64url');
  const expected = tagOf(key, token.slice(0, token.lastIndexOf('.')));
  if (tag.length !== expected.length || !timingSafeEqual(tag, expected)) return null;
  return { clientId: match[1]!, expiresAtSeconds: Number(match[2]) };
}
