import type { ShiftqRun } from './store.js';
import { ok, type GroupRequest } from '#platform/api-handler';
import { activeBusinessDate } from '#contract/business-date';
import type { StoredDay } from './records.js';
import { groupPage } from '#platform/group-page';
import { SHIFTQ_REFRESH } from '#contract/refresh';
import { locationPath } from './dated-reads.js';
import { laborView, type LeaderboardRow, rankLocations, salesView } from './sales.js';

/**
 * The group's shiftq locations the token may see, ranked on their current
 * business date's sales and labor: one page of the group's locations at a
 * time (docs/decisions/paging.md), so the reads are bounded by the page.
 */

export const shiftqGroupLeaderboard: ShiftqRun<GroupRequest> = async (req, deps) => {
  const { app } = req.auth;
  const page = await groupPage(req, deps, 'leaderboard');
  const locations = page.locations.filter((l) => l.modulesEnabled.shiftq);
  const dates = locations.map((l) => activeBusinessDate(l.timezone, req.now));
  const stored = await deps.store.shiftq.getDatedMany(
    locations.flatMap((l, i) =>
      (['sales', 'labor'] as const).map((kind) => ({ groupId: l.groupId, locationId: l.id, kind, businessDate: dates[i]! })),
    ),
    req.now,
  );
  const rows: LeaderboardRow[] = [];
  const updates: string[] = [];
  locations.forEach((l, i) => {
    const sales = stored[2 * i] as StoredDay['sales'];
    const labor = stored[2 * i + 1] as StoredDay['labor'];
    if (!sales || !labor) return;
    const s = salesView(sales.data, l.timezone);
    const laborPercent = laborView(labor.data, sales.data).laborPercent;
    if (s.discountsPercent === null || s.voidsPercent === null || laborPercent === null) return;
    updates.push(sales.data.updatedAt, labor.data.updatedAt);
    rows.push({
      locationId: l.id,
      locationName: l.name,
      locationShortName: l.locationShortName,
      businessDate: dates[i]!,
      netSales: s.netSales,
      discountsPercent: s.discountsPercent,
      laborPercent,
      voidsPercent: s.voidsPercent,
    });
  });
  const latest = updates.length ? new Date(Math.max(...updates.map((u) => Date.parse(u)))).toISOString() : null;
  return ok(req, {
    groupId: app.groupId,
    refresh: SHIFTQ_REFRESH.groupLeaderboard,
    updatedAt: latest,
    count: rows.length,
    leaderboard: rankLocations(rows),
    locationEndpoints: locations.map((l) => ({
      id: l.id,
      name: l.name,
      shiftq: locationPath(req, l),
      sales: `${locationPath(req, l)}/sales`,
    })),
    ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
  });
};
