import { createHmac } from 'node:crypto';
import { randomSecret, safeEqual } from '#domain/crypto';
import type { Deps } from './deps.js';
import { ApiError } from '#contract/errors';

/**
 * Opaque page cursors: the position (the last key returned) bound to what
 * was listed (the list, its group or location, its filters), HMAC-SHA256
 * signed with the server's page key. A cursor that was altered, signed with
 * another key, or made for another list, place or filter set is refused with
 * 400: it can never move a reader into data it did not ask for.
 */

/** What a cursor is bound to: short names, compared exactly. */
export type CursorBinding = Record<string, string>;

const VERSION = 1;
const sign = (key: string, payload: string) => createHmac('sha256', key).update(payload, 'utf8').digest('base64url');

/** By configuration, which lives as long as the process's dependencies (a request's store is its own). */
const storedKeys = new WeakMap<Deps['config'], Promise<string>>();

/**
 * The server key: PAGE_TOKEN_KEY when configured, otherwise a random key
 * created once in the table and shared by every instance (read once per process).
 */
export function pageKey(deps: Pick<Deps, 'config' | 'store'>): Promise<string> {
  if (deps.config.pageTokenKey) return Promise.resolve(deps.config.pageTokenKey);
  let key = storedKeys.get(deps.config);
  if (!key) {
    key = deps.store.tokenKeys.pageKey(randomSecret());
    storedKeys.set(deps.config, key);
    key.catch(() => storedKeys.delete(deps.config));
  }
  return key;
}

export function encodeCursor(key: string, binding: CursorBinding, after: string): string {
  const payload = Buffer.from(JSON.stringify({ v: VERSION, ...binding, a: after }), 'utf8').toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

/** The position a cursor carries, after checking its signature and its binding; `refusal` is the 400's message. */
export function decodeCursor(key: string, cursor: string, expected: CursorBinding, refusal: string): string {
  const refuse = () => new ApiError('invalid_request', refusal);
  const [payload, signature, ...rest] = cursor.split('.');
  if (!payload || !signature || rest.length || !safeEqual(signature, sign(key, payload))) throw refuse();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  } catch {
    throw refuse();
  }
  if (body === null || typeof body !== 'object' || body.v !== VERSION) throw refuse();
  if (!Object.entries(expected).every(([name, value]) => body[name] === value)) throw refuse();
  if (typeof body.a !== 'string') throw refuse();
  return body.a;
}
