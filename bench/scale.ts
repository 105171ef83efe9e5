import { activeBusinessDate, formatIsoDate, parseCompactDate } from '#contract/business-date';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { MODULES, SCOPES } from '#contract/scopes';
import type { Location } from '#data/locations';
import { publishMenu } from '#lambdas/webhooks/publish';
import { writeCampaign } from '#lambdas/producers/campaigns';
import { sampleMenu } from '../local/demo-menu.js';
import { startEngines } from '../local/engines.js';
import { startLocalRuntime, type LocalRuntime } from '../local/runtime.js';
import { createApp } from '#lambdas/admin/apps';
import { benchAuthHeaders } from './bench-app.js';
import { meterCapacity, perRequest, type Capacity } from './capacity.js';
import { getWire } from './load.js';
import { storedDestination } from '../test/fixtures/stored-destination.js';

/**
 * Per-request cost as a group grows: for every authenticated GET route,
 * DynamoDB calls, consumed read/write units (ReturnConsumedCapacity) and
 * response bytes on the wire (gzip accepted), on groups of 10, 1,000 and 10,000 locations (each with a
 * published demo menu and campaigns) on the embedded engine. Path-keyed
 * reads should stay flat in N; lists bounded by their page.
 * BENCH_SCALE_SIZES=10,100 runs other sizes.
 */
const SIZES = (process.env.BENCH_SCALE_SIZES ?? '10,1000,10000').split(',').map(Number);
const REQUESTS = 3;
const CAMPAIGNS = 20;
const SEED_CONCURRENCY = 50;

type Figures = Capacity & { status: number; bytes: number };

export const locationId = (i: number) => `site-${String(i).padStart(5, '0')}`;

/** Seeds the service-wide sets the admin lists read: an application, a destination and a dead letter per location (destinations up to 1,000). */
async function seedAdminSets(runtime: LocalRuntime, groupId: string, size: number): Promise<void> {
  const at = new Date(runtime.deps.clock.now()).toISOString();
  const expires = Math.floor(runtime.deps.clock.now() / 1000) + 86_400;
  for (let start = 0; start < size; start += SEED_CONCURRENCY) {
    await Promise.all(
      Array.from({ length: Math.min(SEED_CONCURRENCY, size - start) }, async (_, k) => {
        const i = start + k;
        const { app } = await createApp(
          runtime.store,
          { groupId, name: `Scale app ${i}`, scopes: ['bevq:read'] },
          runtime.deps.clock.now(),
        );
        if (i < 1000) {
          await runtime.store.destinations.put(
            storedDestination(
              { destinationId: `dst_${groupId}_${i}`, clientId: app.clientId, groupId, url: `https://hooks.example.test/${i}` },
              at,
            ),
            { mustExist: false },
          );
        }
        await runtime.store.deliveries.markDeadLetter(
          {
            deliveryId: `dlv_${String(i).padStart(8, '0')}${groupId.length.toString(16).padStart(24, '0')}`,
            groupId,
            clientId: app.clientId,
            locationId: null,
            reason: 'attempts_exhausted',
            since: at,
            status: 'DEAD_LETTER',
            eventId: `evt_${'0'.repeat(32)}`,
            eventType: 'bevq.menu.updated',
            destinationId: `dst_${groupId}_${i % 1000}`,
            destinationHost: 'hooks.example.test',
            attempts: 5,
            lastErrorCode: 'http_503',
            createdAt: at,
          },
          expires,
        );
      }),
    );
  }
}

export async function seedGroup(runtime: LocalRuntime, groupId: string, size: number): Promise<void> {
  const at = new Date(runtime.deps.clock.now()).toISOString();
  await runtime.store.groups.put({ groupId, name: `Scale ${size}`, createdAt: at });
  const modulesEnabled = Object.fromEntries(MODULES.map((m) => [m, true])) as Location['modulesEnabled'];
  for (let start = 0; start < size; start += SEED_CONCURRENCY) {
    await Promise.all(
      Array.from({ length: Math.min(SEED_CONCURRENCY, size - start) }, async (_, k) => {
        const id = locationId(start + k);
        await runtime.store.locations.put({
          groupId,
          id,
          name: `Venue ${id}`,
          locationShortName: id,
          timezone: 'America/Chicago',
          slug: id,
          status: 'active',
          modulesEnabled,
          createdAt: at,
        });
        await publishMenu(runtime.deps, { groupId, locationId: id, menu: sampleMenu() });
      }),
    );
  }
  const now = runtime.deps.clock.now();
  for (let c = 0; c < CAMPAIGNS; c++) {
    const campaign = {
      groupId,
      id: `campaign-${c}`,
      name: `Campaign ${c}`,
      locationIds: Array.from({ length: Math.min(size, 10) }, (_, i) => locationId((c * 7 + i) % size)),
      startsAt: at,
      endsAt: new Date(now + 86_400_000).toISOString(),
      paused: false,
    };
    await writeCampaign(runtime.store, campaign, { sourceMs: now, sequence: c }, now);
  }
}

export async function benchScale(): Promise<string[]> {
  const engines = await startEngines({ dataDir: null });
  const runtime = await startLocalRuntime({ port: 0, dataDir: null, seed: false, logLevel: 'SILENT', engines });
  const metered = meterCapacity(runtime.dynamo);
  const routes = ROUTES.filter((r) => r.method === 'GET' && r.scope !== null);
  const adminLists = ['/admin/v1/apps', '/admin/v1/destinations', '/admin/v1/dead-letters'];
  const results = new Map<string, Figures[]>([
    ...routes.map((r) => [r.path, []] as [string, Figures[]]),
    ...adminLists.map((p) => [p, []] as [string, Figures[]]),
  ]);
  const seedSeconds: string[] = [];
  try {
    for (const size of SIZES) {
      const groupId = `scale-${size}`;
      const t0 = performance.now();
      await seedGroup(runtime, groupId, size);
      await seedAdminSets(runtime, groupId, size);
      seedSeconds.push(`${size}: ${((performance.now() - t0) / 1000).toFixed(0)} s`);
      const headers = await benchAuthHeaders(runtime, groupId, `Scale bench ${size}`, SCOPES);
      const today = formatIsoDate(parseCompactDate(activeBusinessDate('America/Chicago', runtime.deps.clock.now()))!);
      const measure = async (path: string, url: string, requestHeaders: Record<string, string>) => {
        await fetch(url, { headers: requestHeaders }).then((r) => r.arrayBuffer()); // warm: the token and page keys, the location's zone
        const before = { ...metered };
        let bytes = 0;
        let status = 0;
        for (let i = 0; i < REQUESTS; i++) {
          const reply = await getWire(url, requestHeaders);
          status = reply.status;
          bytes += reply.bytes;
        }
        results.get(path)!.push({ ...perRequest(before, metered, REQUESTS), status, bytes: bytes / REQUESTS });
      };
      for (const route of routes) {
        await measure(
          route.path,
          `${runtime.url}${route.path.replace('{group_id}', groupId).replace('{location_id}', locationId(0)).replace('{date}', today)}`,
          headers,
        );
      }
      for (const path of adminLists) await measure(path, `${runtime.url}${path}`, { Authorization: `Bearer ${runtime.adminKey}` });
    }
  } finally {
    await runtime.stop();
    await engines.stop();
  }
  const sizes = SIZES.map((n) => n.toLocaleString('en-US'));
  const cells = (list: Figures[], pick: (f: Figures) => string) => list.map(pick).join(' / ');
  // Flat: the same calls and units at every size. Bounded: the same at the two largest sizes (a page's worth, however large the group).
  const same = (a: Figures, b: Figures) => a.calls === b.calls && Math.abs(a.readUnits - b.readUnits) <= Math.max(1, 0.1 * a.readUnits);
  const shape = (list: Figures[]) =>
    list.every((f) => same(f, list[0]!)) ? 'flat' : list.length > 2 && same(list.at(-1)!, list.at(-2)!) ? 'bounded' : 'GROWS';
  return [
    `Per request at ${sizes.join(' / ')} locations in the group (the token's own group; location ${locationId(0)}); ${REQUESTS} requests each after a warm-up.`,
    `Seeded with a published demo menu per location and ${CAMPAIGNS} campaigns (seeding took ${seedSeconds.join(', ')}).`,
    `| route | status | DynamoDB calls | read units | write units | response bytes | in N |`,
    `| --- | --- | ---: | ---: | ---: | ---: | --- |`,
    ...[...routes.map((r) => r.path), ...adminLists].map((path) => {
      const list = results.get(path)!;
      return `| GET ${path} | ${cells(list, (f) => String(f.status))} | ${cells(list, (f) => f.calls.toFixed(1))} | ${cells(list, (f) => f.readUnits.toFixed(1))} | ${cells(list, (f) => f.writeUnits.toFixed(1))} | ${cells(list, (f) => Math.round(f.bytes).toLocaleString('en-US'))} | ${shape(list)} |`;
    }),
    `The admin lists (of every group, first page of 100) walk the groups' index partitions, at most ten a page, over what every size seeded so far holds: an application and a dead letter per location, a destination per location up to 1,000 a group.`,
  ];
}
