import { type Location, locationKeys } from '#data/locations';
import type { ItemQuery } from '#data/store';
import { GROUP_PAGE_LIMIT } from '#contract/schemas/requests';
import type { GroupRequest, ReadHints } from './api-handler.js';
import type { Deps } from './deps.js';
import { decodeCursor, encodeCursor, pageKey } from './page-cursor.js';

/**
 * One page of a group's locations for a group list (`limit`, `cursor`;
 * docs/decisions/paging.md): one Query, so no request reads more than a
 * page of a group however large it grows. The cursor is bound to the list
 * and the group. A token limited to some locations sees those of the page
 * only, so its pages may hold fewer than `limit`.
 */
export type GroupPage = { locations: Location[]; nextCursor?: string };

const CURSOR_REFUSAL = 'Query parameter cursor: not a cursor of this list; start again without it.';
const limitOf = (query: Record<string, string>) => Number(query.limit ?? GROUP_PAGE_LIMIT.default);

export async function groupPage(req: GroupRequest, deps: Deps, list: string): Promise<GroupPage> {
  const { app } = req.auth;
  const binding = { r: list, g: app.groupId };
  const after = req.query.cursor ? decodeCursor(await pageKey(deps), req.query.cursor, binding, CURSOR_REFUSAL) : undefined;
  const page = await deps.store.locations.page(app.groupId, { limit: limitOf(req.query), ...(after !== undefined ? { after } : {}) });
  const locations = app.allowedLocationIds ? page.locations.filter((l) => app.allowedLocationIds!.includes(l.id)) : page.locations;
  return { locations, ...(page.next !== null ? { nextCursor: encodeCursor(await pageKey(deps), binding, page.next) } : {}) };
}

/** The first page's Query, read ahead; a later page starts from its cursor, read with the request. */
export const groupPageReads = ({ params, query }: ReadHints): ItemQuery[] =>
  query.cursor ? [] : [locationKeys.ofGroup(params.group_id!, { limit: limitOf(query) })];
