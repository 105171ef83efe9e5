/**
 * The admin lists' search (`q`): an item matches when one of its ids or names contains the text (any case).
 * A page of a search reads the list from where the last one stopped until `limit` items match, the list ends,
 * or SEARCH_BOUND is reached, so a page costs a bounded number of reads however large the list; a page short
 * of `limit` may still have a next. A whole id is looked up directly instead (one read).
 */
const SEARCH_BOUND = { items: 1000, reads: 20 } as const;

export function matches(q: string, fields: readonly (string | null | undefined | false)[]): boolean {
  const wanted = q.trim().toLowerCase();
  return fields.some((f) => typeof f === 'string' && f.toLowerCase().includes(wanted));
}

type Read<T, K> = (limit: number, startKey?: K) => Promise<{ items: T[]; lastKey?: K }>;

/** One page of a search: each read asks for no more than the matches still wanted, so a page never holds more than `limit`. */
export async function searchPage<T, K>(read: Read<T, K>, keep: (items: T[]) => Promise<T[]> | T[], limit: number, startKey?: K) {
  const items: T[] = [];
  let key = startKey;
  let scanned = 0;
  let reads = 0;
  do {
    const page = await read(limit - items.length, key);
    items.push(...(await keep(page.items)));
    scanned += page.items.length;
    reads++;
    key = page.lastKey;
  } while (key && items.length < limit && scanned < SEARCH_BOUND.items && reads < SEARCH_BOUND.reads);
  return { items, ...(key ? { lastKey: key } : {}) };
}
