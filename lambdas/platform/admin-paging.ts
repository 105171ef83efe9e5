import { AdminInputError } from '#domain/inputs';
import type { Deps } from './deps.js';
import { decodeCursor, encodeCursor, pageKey, type CursorBinding } from './page-cursor.js';

/**
 * The admin lists (applications, destinations, dead letters) page like the
 * group lists: `limit` (1–1,000, default 100) and a signed `cursor` bound
 * to the list and its filter; `nextCursor` while DynamoDB says more may
 * follow. Each request is one Query page, however many items the service holds.
 */
export const ADMIN_PAGE_LIMIT = { min: 1, max: 1000, default: 100 } as const;

export type PageQuery = { limit?: number; cursor?: string };
type Read<T, K> = (limit: number, startKey?: K) => Promise<{ items: T[]; lastKey?: K }>;

/** `K`: the position a list's store pages from (an index key, or a walk over partitions). */
export async function adminPage<T, K extends object = Record<string, unknown>>(
  deps: Deps,
  binding: CursorBinding,
  query: PageQuery,
  read: Read<T, K>,
): Promise<{ items: T[]; nextCursor?: string }> {
  const key = await pageKey(deps);
  let startKey: K | undefined;
  if (query.cursor !== undefined) {
    try {
      // Signed by this service: the position is a key it wrote itself.
      startKey = JSON.parse(decodeCursor(key, query.cursor, binding, 'cursor')) as K;
    } catch {
      throw new AdminInputError('cursor: not a cursor of this list and filter; start again without it');
    }
  }
  const { items, lastKey } = await read(query.limit ?? ADMIN_PAGE_LIMIT.default, startKey);
  return { items, ...(lastKey ? { nextCursor: encodeCursor(key, binding, JSON.stringify(lastKey)) } : {}) };
}

/** Every page, for the CLI, which prints whole lists (an operator's command, not a request). */
export async function allPages<T>(page: (cursor?: string) => Promise<{ nextCursor?: string } & T>): Promise<T[]> {
  const pages: T[] = [];
  let cursor: string | undefined;
  do {
    const next = await page(cursor);
    pages.push(next);
    cursor = next.nextCursor;
  } while (cursor);
  return pages;
}
