import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry } from '#lambdas/admin/audit-records';
import { listAudit } from '#lambdas/admin/audit';
import type { LocalRuntime } from '#local/runtime';
import { ENGINE_NAME, manualClock, startTestRuntime, watchingDynamo } from '../support/runtime.js';

/** The trail across days: newest first, a bounded number of day partitions a page, ending at the retention. */
const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
let runtime: LocalRuntime;
const DAY = 86_400_000;

const entry = (daysAgo: number, n: number, clientId: string): AuditEntry => ({
  at: new Date(clock.now() - daysAgo * DAY + n * 1000).toISOString(),
  requestId: `req-${daysAgo}-${n}`,
  actor: 'arn:aws:iam::123456789012:user/ops',
  operation: 'revokeApp',
  clientId,
  destinationId: null,
  deliveryId: null,
  groupId: null,
  locationId: null,
  details: {},
});

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  for (const [daysAgo, n, clientId] of [
    [0, 1, 'app_a'],
    [0, 2, 'app_b'],
    [3, 1, 'app_a'],
    [150, 1, 'app_a'],
    [399, 1, 'app_b'],
  ] as const) {
    await runtime.store.audit.record(entry(daysAgo, n, clientId));
  }
});
afterAll(async () => {
  await runtime?.stop();
});

describe(`audit trail across days (${ENGINE_NAME})`, () => {
  it('lists newest first over the days, of one application if asked, each page reading at most 100 days, ending at the retention', async () => {
    const pages: { ids: string[]; calls: number }[] = [];
    let cursor: string | undefined;
    do {
      let calls = 0;
      const page = await watchingDynamo(
        runtime,
        () => calls++,
        () => listAudit(runtime.deps, { clientId: 'app_a', limit: 100, ...(cursor ? { cursor } : {}) }),
      );
      pages.push({ ids: page.entries.map((e) => e.requestId), calls });
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.flatMap((p) => p.ids)).toEqual(['req-0-1', 'req-3-1', 'req-150-1']);
    // 401 days of retention, 100 a page: five pages, each a day's Query at most 100 times (and the cursor key's read).
    expect(pages.length).toBe(5);
    for (const { calls } of pages) expect(calls).toBeLessThanOrEqual(101);
    const all = await listAudit(runtime.deps, { limit: 3 });
    expect(all.entries.map((e) => e.requestId)).toEqual(['req-0-2', 'req-0-1', 'req-3-1']);
  });
});
