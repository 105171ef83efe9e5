import { createHmac } from 'node:crypto';
import { randomSecret, safeEqual } from '#domain/crypto';
import type { Deps } from '#platform/deps';
import { ApiError } from '#contract/errors';

/**
 * Opaque review page tokens: the position (last sort key returned) bound to
 * the location and the exact filter set, HMAC-SHA256 signed with a server key.
 * A token that was altered, signed with another key, or minted for another
 * location or other filters is refused with 400 — it can never move a reader
 * to another location's data.
 */

export type PagePosition = { groupId: string; locationId: string; filters: string; after: string };

const sign = (key: string, payload: string) => createHmac('sha256', key).update(payload, 'utf8').digest('base64url');

/** By configuration, which lives as long as the process's dependencies (a request's store is its own). */
const storedKeys = new WeakMap<Deps['config'], Promise<string>>();

/**
 * The server key: PAGE_TOKEN_KEY when configured, otherwise a random key
 * created once in the table and shared by every instance (read once per process).
 */
export function pageTokenKey(deps: Pick<Deps, 'config' | 'store'>): Promise<string> {
  if (deps.config.pageTokenKey) return Promise.resolve(deps.config.pageTokenKey);
  let key = storedKeys.get(deps.config);
  if (!key) {
    key = deps.store.shiftq.pageTokenKey(randomSecret());
    storedKeys.set(deps.config, key);
    key.catch(() => storedKeys.delete(deps.config));
  }
  return key;
}

export function encodePageToken(key: string, position: PagePosition): string {
  const payload = Buffer.from(
    JSON.stringify({ v: 1, g: position.groupId, l: position.locationId, f: position.filters, a: position.after }),
    'utf8',
  ).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

const refuse = () =>
  new ApiError('invalid_request', 'Query parameter pageToken: not a page token of this location and these filters; start again without it.');

/** The position a token carries, after checking its signature and that it was issued for this location and these filters. */
export function decodePageToken(key: string, token: string, expected: Omit<PagePosition, 'after'>): string {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length || !safeEqual(signature, sign(key, payload))) throw refuse();
  let body: { v?: unknown; g?: unknown; l?: unknown; f?: unknown; a?: unknown };
  try {
    body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof body;
  } catch {
    throw refuse();
  }
  if (body.v !== 1 || body.g !== expected.groupId || body.l !== expected.locationId || body.f !== expected.filters) throw refuse();
  if (typeof body.a !== 'string') throw refuse();
  return body.a;
}
