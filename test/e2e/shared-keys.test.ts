import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { SCOPES } from '#contract/scopes';
import { SHARED_SCHEDULE_TTL_MS } from '#data/sports';
import { businessDateAt } from '#domain/sports-day';
import type { LocalRuntime } from '#local/runtime';
import { dynamoCallLog } from '../support/call-log.js';
import { call, manualClock, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * No item is read by every tenant on a request path: DynamoDB cannot spread one item's reads, so such an item caps
 * every tenant's reads of the routes that read it. Two tenants (groups) call every /v1 GET route, warm, and the
 * partitions each request reads are compared: a partition both read is shared. What every tenant needs alike (the
 * token key versions, a date's sports schedule) is kept in the function's memory, so a warm request reads none.
 */

const clock = manualClock();
let runtime: LocalRuntime;
let log: ReturnType<typeof dynamoCallLog>;
const tenants: { groupId: string; locationId: string; token: string }[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({ clock, sweepEveryMs: 24 * 3_600_000, deliverWebhooks: false });
  const at = new Date(clock.now()).toISOString();
  await runtime.store.groups.put({ groupId: 'rival-group', name: 'Rival', createdAt: at });
  const seeded = (await runtime.store.locations.get('demo-group', 'nyc-midtown'))!;
  await runtime.store.locations.put({ ...seeded, groupId: 'rival-group', id: 'rival-pub', name: 'Rival Pub' });
  for (const [groupId, locationId] of [
    ['demo-group', 'nyc-midtown'],
    ['rival-group', 'rival-pub'],
  ] as const) {
    const { token } = await tokenFor(runtime, { groupId, scopes: [...SCOPES] });
    tenants.push({ groupId, locationId, token });
  }
  log = dynamoCallLog(runtime);
});
afterAll(async () => {
  log?.stop();
  await runtime?.stop();
});

const today = () => businessDateAt({ timezone: 'America/New_York' }, clock.now()).calendarDate;
const pathOf = (template: string, t: (typeof tenants)[number]) =>
  template.replace('{group_id}', t.groupId).replace('{location_id}', t.locationId).replace('{date}', today());
const READ_ROUTES = ROUTES.filter((r) => r.method === 'GET' && r.scope !== null && r.path.includes('{group_id}'));

/** The partitions one warm request of `path` reads (the first, unmeasured, warms the function's memory). */
async function partitionsRead(path: string, token: string): Promise<Set<string>> {
  expect((await call(runtime, path, { token })).status, path).toBeLessThan(500);
  const calls = await log.during(() => call(runtime, path, { token }));
  return new Set(calls.filter((c) => c.name !== 'UpdateItem' && c.name !== 'PutItem').flatMap((c) => c.partitions));
}

describe('no partition is read by every tenant on a request path', () => {
  it('two tenants calling every /v1 read route, warm, read no partition in common', async () => {
    expect(READ_ROUTES.length).toBeGreaterThan(25);
    const shared: string[] = [];
    for (const route of READ_ROUTES) {
      // One after the other: the call log holds one request's calls at a time.
      const first = await partitionsRead(pathOf(route.path, tenants[0]!), tenants[0]!.token);
      const second = await partitionsRead(pathOf(route.path, tenants[1]!), tenants[1]!.token);
      for (const pk of first) if (second.has(pk)) shared.push(`${route.path}: ${pk}`);
    }
    expect(shared).toEqual([]);
  });

  it('the sports schedule, which every tenant needs, is read once a minute per function: what is kept serves for at most SHARED_SCHEDULE_TTL_MS', async () => {
    const [t] = tenants;
    const path = `/v1/${t!.groupId}/${t!.locationId}/sportsq/${today()}`;
    const reads = async () =>
      (await log.during(() => call(runtime, path, { token: t!.token }))).flatMap((c) => c.partitions).filter((p) => p === 'SPORTS_SCHEDULE')
        .length;
    clock.advance(SHARED_SCHEDULE_TTL_MS);
    expect(await reads()).toBe(1);
    expect(await reads()).toBe(0);
    // A schedule written now is served once what the function keeps has aged out, not before.
    const shown = async () => (await call(runtime, path, { token: t!.token })).body.data.updatedAt as string | null;
    const before = await shown();
    const stored = (await runtime.store.sports.getSchedule(today())) ?? { date: today(), events: [], updatedAt: '' };
    const updatedAt = new Date(clock.now()).toISOString();
    await runtime.store.sports.putSchedule({ ...stored, updatedAt }, { sourceMs: clock.now(), sequence: 0 });
    clock.advance(SHARED_SCHEDULE_TTL_MS - 1);
    expect(await reads()).toBe(0);
    expect(await shown()).toBe(before);
    clock.advance(1);
    expect(await reads()).toBe(1);
    expect(await shown()).toBe(updatedAt);
  });
});
