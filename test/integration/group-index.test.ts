import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appKeys } from '#data/apps';
import { deliveryKeys, type DeadLetterMarker } from '#lambdas/webhooks/deliveries';
import { destinationKeys, type Destination } from '#lambdas/webhooks/destinations';
import { listApps } from '#lambdas/admin/apps';
import { listDestinations } from '#lambdas/webhooks/destination-operations';
import { listDeadLetters } from '#lambdas/webhooks/dead-letter-operations';
import type { LocalRuntime } from '#local/runtime';
import { storedDestination } from '../fixtures/stored-destination.js';
import { ENGINE_NAME, manualClock, newApp, scanTable, startTestRuntime, watchingDynamo } from '../support/runtime.js';

/**
 * Applications, destinations and dead letters are listed from one GSI1
 * partition per group: no index key is one value written by the whole
 * service. A list of every group walks the groups a bounded number of
 * partitions per page.
 */
const clock = manualClock();
let runtime: LocalRuntime;
/** Groups with items, between runs of more empty groups than one page reads: a walk must cross them. */
const GROUPS = Array.from({ length: 29 }, (_, i) => `gi-${String(i).padStart(2, '0')}`);
const filled = GROUPS.filter((_, i) => i % 14 === 0);

const at = () => new Date(clock.now()).toISOString();
const destination = (clientId: string, groupId: string, n: number): Destination =>
  storedDestination({ destinationId: `dst_${groupId}_${n}`, clientId, groupId, url: 'https://hooks.example.test/x' }, at());
const marker = (groupId: string, n: number): DeadLetterMarker => ({
  deliveryId: `dlv_${n.toString(16).padStart(32, '0')}`,
  groupId,
  clientId: null,
  locationId: null,
  reason: 'attempts_exhausted',
  since: at(),
  status: 'DEAD_LETTER',
  eventId: `evt_${'0'.repeat(32)}`,
  eventType: 'bevq.menu.updated',
  destinationId: 'dst_x',
  destinationHost: 'hooks.example.test',
  attempts: 5,
  lastErrorCode: 'http_503',
  createdAt: at(),
});
const expires = () => Math.floor(clock.now() / 1000) + 86_400;

/** Every page of an admin list, and the DynamoDB calls each page made. */
async function allPages<T>(
  list: (query: { limit: number; cursor?: string }) => Promise<{ nextCursor?: string } & Record<string, unknown>>,
  key: string,
  limit: number,
) {
  const items: T[] = [];
  const calls: number[] = [];
  let cursor: string | undefined;
  do {
    let n = 0;
    const page = await watchingDynamo(
      runtime,
      () => n++,
      () => list({ limit, ...(cursor ? { cursor } : {}) }),
    );
    items.push(...(page[key] as T[]));
    cursor = page.nextCursor;
    calls.push(n);
  } while (cursor);
  return { items, calls };
}

const items = async () => scanTable(runtime);
const sortedIds = <T>(all: T[], id: (t: T) => string) => all.map(id).sort();

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  for (const groupId of GROUPS) await runtime.store.groups.put({ groupId, name: groupId, createdAt: at() });
  let n = 0;
  for (const groupId of filled) {
    for (let k = 0; k < 3; k++) {
      const { clientId } = await newApp(runtime, { groupId });
      await runtime.store.destinations.put(destination(clientId, groupId, k), { mustExist: false });
      await runtime.store.deliveries.markDeadLetter(marker(groupId, ++n), expires());
    }
  }
});
afterAll(async () => {
  await runtime?.stop();
});

describe(`per-group index partitions (${ENGINE_NAME})`, () => {
  it("indexes each item under its group's partition; no item sits in a partition of the whole service", async () => {
    const all = await items();
    const apps = all.filter((i) => i.SK === 'APP');
    const destinations = all.filter((i) => i.SK === 'DEST');
    const markers = all.filter((i) => i.SK === 'DEAD_LETTER');
    expect(apps.length).toBeGreaterThanOrEqual(filled.length * 3);
    expect(destinations.length).toBeGreaterThanOrEqual(filled.length * 3);
    expect(markers).toHaveLength(filled.length * 3);
    for (const a of apps) expect(a.GSI1PK).toBe(appKeys.index.of(a.groupId));
    for (const d of destinations) expect(d.GSI1PK).toBe(destinationKeys.index.of(d.groupId));
    for (const m of markers) expect(m.GSI1PK).toBe(deliveryKeys.deadLetters.of(m.groupId));
  });

  it('a list of every group walks the groups in order, a bounded number of queries a page, and misses or repeats nothing', async () => {
    const stored = (await items()).filter((i) => i.SK === 'APP');
    for (const limit of [1, 4, 100]) {
      const { items: listed, calls } = await allPages<{ clientId: string; groupId: string }>(
        (q) => listApps(runtime.deps, q),
        'apps',
        limit,
      );
      expect(sortedIds(listed, (a) => a.clientId)).toEqual(sortedIds(stored, (a) => String(a.clientId)));
      expect(new Set(listed.map((a) => a.clientId)).size).toBe(listed.length);
      // Group after group: the group ids come in order.
      expect(listed.map((a) => a.groupId)).toEqual(listed.map((a) => a.groupId).sort());
      // Up to 10 partition queries and the group lookups that name them: never one query per group.
      for (const n of calls) expect(n).toBeLessThanOrEqual(14);
      // A page that only crossed empty groups still says where to go on.
      if (limit === 1) expect(calls.length).toBeGreaterThan(listed.length + 1);
    }
    // One group's list reads that group's partition only: no marker or partition of an earlier shape (3 calls, was 5).
    const { items: one, calls } = await allPages<{ groupId: string }>(
      (q) => listApps(runtime.deps, { ...q, groupId: filled[1]! }),
      'apps',
      100,
    );
    expect(one).toHaveLength(3);
    expect(one.every((a) => a.groupId === filled[1])).toBe(true);
    expect(calls).toEqual([3]);
  });

  it('lists the dead letters of every group and the destinations of one application from their partitions', async () => {
    const { items: dead } = await allPages<{ deliveryId: string; groupId: string }>(
      (q) => listDeadLetters(runtime.deps, q),
      'deadLetters',
      4,
    );
    expect(dead).toHaveLength(filled.length * 3);
    expect(new Set(dead.map((d) => d.groupId))).toEqual(new Set(filled));
    const app = (await items()).find((i) => i.SK === 'DEST' && i.groupId === filled[2]);
    const { destinations } = await listDestinations(runtime.deps, { clientId: app!.clientId });
    expect(destinations.map((d) => d.destinationId)).toEqual([app!.destinationId]);
    // An application that does not exist owns nothing.
    expect((await listDestinations(runtime.deps, { clientId: 'app_unknown' })).destinations).toEqual([]);
  });
});
