import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { appKeys } from '#data/apps';
import { deliveryKeys, type DeadLetterMarker } from '#data/deliveries';
import { destinationKeys, type Destination } from '#data/destinations';
import { listApps } from '#lambdas/admin/apps';
import { backfillGroupIndex } from '#lambdas/admin/backfill';
import { listDestinations } from '#lambdas/admin/destinations';
import { listDeadLetters } from '#lambdas/admin/dlq';
import type { LocalRuntime } from '#lib/local/runtime';
import { storedDestination } from '../fixtures/stored-destination.js';
import { admin, runtimeFileFor } from '../fixtures/admin-cli.js';
import { ENGINE_NAME, manualClock, newApp, scanTable, startTestRuntime, watchingDynamo } from '../support/runtime.js';

/**
 * Applications, destinations and dead letters are listed from one GSI1
 * partition per group: no index key is one value written by the whole
 * service. A list of every group walks the groups a bounded number of
 * partitions per page; items of the earlier shape (one fixed partition per
 * kind) are listed until `index backfill-groups` moves them.
 */
const clock = manualClock();
let runtime: LocalRuntime;
/** Groups with items, between runs of more empty groups than one page reads: a walk must cross them. */
const GROUPS = Array.from({ length: 29 }, (_, i) => `gi-${String(i).padStart(2, '0')}`);
const filled = GROUPS.filter((_, i) => i % 14 === 0);

const at = () => new Date(clock.now()).toISOString();
const destination = (clientId: string, groupId: string, n: number): Destination =>
  storedDestination({ destinationId: `dst_${groupId}_${n}`, clientId, groupId, url: 'https://hooks.example.test/x' }, at());
const marker = (groupId: string | undefined, n: number): DeadLetterMarker => ({
  deliveryId: `dlv_${n.toString(16).padStart(32, '0')}`,
  ...(groupId === undefined ? {} : { groupId }),
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
async function allPages<T>(list: (query: { limit: number; cursor?: string }) => Promise<{ nextCursor?: string } & Record<string, unknown>>, key: string, limit: number) {
  const items: T[] = [];
  const calls: number[] = [];
  let cursor: string | undefined;
  do {
    let n = 0;
    const page = await watchingDynamo(runtime, () => n++, () => list({ limit, ...(cursor ? { cursor } : {}) }));
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
    const fixed = new Set([appKeys.index.legacy, destinationKeys.index.legacy, deliveryKeys.deadLetters.legacy]);
    expect(all.filter((i) => fixed.has(i.GSI1PK))).toEqual([]);
  });

  it('a list of every group walks the groups in order, a bounded number of queries a page, and misses or repeats nothing', async () => {
    const stored = (await items()).filter((i) => i.SK === 'APP');
    for (const limit of [1, 4, 100]) {
      const { items: listed, calls } = await allPages<{ clientId: string; groupId: string }>((q) => listApps(runtime.deps, q), 'apps', limit);
      expect(sortedIds(listed, (a) => a.clientId)).toEqual(sortedIds(stored, (a) => String(a.clientId)));
      expect(new Set(listed.map((a) => a.clientId)).size).toBe(listed.length);
      // Group after group: the group ids come in order.
      expect(listed.map((a) => a.groupId)).toEqual(listed.map((a) => a.groupId).sort());
      // The completion check, up to 10 partition queries and the group lookups that name them: never one query per group.
      for (const n of calls) expect(n).toBeLessThanOrEqual(14);
      // A page that only crossed empty groups still says where to go on.
      if (limit === 1) expect(calls.length).toBeGreaterThan(listed.length + 1);
    }
    // One group's list reads that group's partition only.
    const { items: one, calls } = await allPages<{ groupId: string }>((q) => listApps(runtime.deps, { ...q, groupId: filled[1]! }), 'apps', 100);
    expect(one).toHaveLength(3);
    expect(one.every((a) => a.groupId === filled[1])).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it('lists the dead letters of every group and the destinations of one application from their partitions', async () => {
    const { items: dead } = await allPages<{ deliveryId: string; groupId: string }>((q) => listDeadLetters(runtime.deps, q), 'deadLetters', 4);
    expect(dead).toHaveLength(filled.length * 3);
    expect(new Set(dead.map((d) => d.groupId))).toEqual(new Set(filled));
    const app = (await items()).find((i) => i.SK === 'DEST' && i.groupId === filled[2]);
    const { destinations } = await listDestinations(runtime.deps, { clientId: app!.clientId });
    expect(destinations.map((d) => d.destinationId)).toEqual([app!.destinationId]);
    // An application that does not exist owns nothing.
    expect((await listDestinations(runtime.deps, { clientId: 'app_unknown' })).destinations).toEqual([]);
  });

  it('lists items of the earlier shape until `index backfill-groups` moves them; then every list reads the group partitions only', async () => {
    const doc = DynamoDBDocumentClient.from(runtime.dynamo);
    const groupId = filled[1]!;
    const toLegacy = (key: Record<string, unknown>, legacy: string, remove = '') =>
      doc.send(
        new UpdateCommand({
          TableName: runtime.tableName,
          Key: key,
          UpdateExpression: `SET GSI1PK = :legacy${remove ? ` REMOVE ${remove}` : ''}`,
          ExpressionAttributeValues: { ':legacy': legacy },
        }),
      );
    // An application, a destination and a marker written before the partitions were per group; a marker of no known delivery.
    const { clientId } = await newApp(runtime, { groupId, name: 'Old shape' });
    const old = destination(clientId, groupId, 9);
    await runtime.store.destinations.put(old, { mustExist: false });
    await runtime.store.deliveries.markDeadLetter(marker(groupId, 900), expires());
    await runtime.store.deliveries.markDeadLetter(marker(undefined, 901), expires());
    await toLegacy(appKeys.app(clientId), appKeys.index.legacy);
    await toLegacy(destinationKeys.destination(old.destinationId), destinationKeys.index.legacy);
    await toLegacy(deliveryKeys.deadLetter(marker(groupId, 900).deliveryId), deliveryKeys.deadLetters.legacy);
    await toLegacy(deliveryKeys.deadLetter(marker(undefined, 901).deliveryId), deliveryKeys.deadLetters.legacy);

    const snapshot = async () => ({
      apps: sortedIds((await allPages<{ clientId: string }>((q) => listApps(runtime.deps, q), 'apps', 5)).items, (a) => a.clientId),
      groupApps: sortedIds((await listApps(runtime.deps, { groupId })).apps, (a) => a.clientId),
      destinations: (await listDestinations(runtime.deps, { clientId })).destinations.map((d) => d.destinationId),
      deadLetters: sortedIds((await allPages<{ deliveryId: string }>((q) => listDeadLetters(runtime.deps, q), 'deadLetters', 5)).items, (d) => d.deliveryId),
    });
    const before = await snapshot();
    expect(before.groupApps).toContain(clientId);
    expect(before.groupApps).toHaveLength(4);
    expect(before.apps).toContain(clientId);
    expect(before.destinations).toEqual([old.destinationId]);
    expect(before.deadLetters).toEqual(expect.arrayContaining([marker(groupId, 900).deliveryId, marker(undefined, 901).deliveryId]));
    expect(before.deadLetters).toHaveLength(filled.length * 3 + 2);

    expect(await backfillGroupIndex(runtime.deps)).toEqual({ apps: 1, destinations: 1, deadLetters: 2 });
    const all = await items();
    const fixed = new Set([appKeys.index.legacy, destinationKeys.index.legacy, deliveryKeys.deadLetters.legacy]);
    expect(all.filter((i) => fixed.has(i.GSI1PK))).toEqual([]);
    expect(all.find((i) => i.deliveryId === marker(undefined, 901).deliveryId && i.SK === 'DEAD_LETTER')?.GSI1PK).toBe(deliveryKeys.deadLetters.unowned);
    expect(all.find((i) => i.deliveryId === marker(groupId, 900).deliveryId && i.SK === 'DEAD_LETTER')?.GSI1PK).toBe(deliveryKeys.deadLetters.of(groupId));
    expect(await snapshot()).toEqual(before);
    // Safe to repeat, here through the admin CLI: nothing left to move.
    const dir = mkdtempSync(join(tmpdir(), 'group-index-'));
    try {
      const again = await admin(runtimeFileFor(runtime, dir, 'runtime.json'), ['index', 'backfill-groups', '--json']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.json).toEqual({ apps: 0, destinations: 0, deadLetters: 0 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
