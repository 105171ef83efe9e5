import { decodeCursor, encodeCursor } from '#platform/page-cursor';

/**
 * Review page tokens: page cursors bound to the location and the exact
 * filter set (platform/page-cursor.ts), so a token minted for another
 * location or other filters is refused with 400.
 */

export type PagePosition = { groupId: string; locationId: string; filters: string; after: string };

const bindingOf = (p: Omit<PagePosition, 'after'>) => ({ g: p.groupId, l: p.locationId, f: p.filters });

export const encodePageToken = (key: string, position: PagePosition): string => encodeCursor(key, bindingOf(position), position.after);

/** The position a token carries, after checking its signature and that it was issued for this location and these filters. */
export const decodePageToken = (key: string, token: string, expected: Omit<PagePosition, 'after'>): string =>
  decodeCursor(key, token, bindingOf(expected), 'Query parameter pageToken: not a page token of this location and these filters; start again without it.');
