import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { markerOf, newDelivery, type Delivery } from '#lambdas/webhooks/deliveries';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { admin, runtimeFileFor } from '../fixtures/admin-cli.js';
import { controlledResolver } from '../fixtures/webhook-receiver.js';
import { adminCall, ENGINE_NAME, newApp, startTestRuntime } from '../support/runtime.js';

/**
 * What on-call acts on in the dead-letter room, through the admin API and the CLI: each dead letter names its
 * destination, application and location and its age since it was dead-lettered; the list narrows to one
 * destination or a search; a selection, or all of one destination's, is redriven on the bounded redrive. Dead
 * letters are seeded as the deliverer leaves them (a DEAD_LETTER record and its marker) so their times are set.
 */
let runtime: LocalRuntime;
let runtimeFile: string;
let dir: string | undefined;
let clientId: string;
const destinations: { id: string; name: string }[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: 0.01 },
  });
  dir = mkdtempSync(join(tmpdir(), 'dead-letter-actions-'));
  runtimeFile = runtimeFileFor(runtime, dir, 'runtime.json');
  ({ clientId } = await newApp(runtime, { scopes: ['bevq:read'] }));
  for (const name of ['Kitchen printer', 'Loyalty sync']) {
    const { destination } = await addDestination(runtime.deps, { clientId, name, url: 'https://hooks.example.test/h' });
    destinations.push({ id: destination.destinationId, name });
    // Disabled: what is redriven here ends FAILED without a request, never dead-lettered again meanwhile.
    await runtime.store.destinations.update(destination.destinationId, { enabled: false });
  }
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A delivery the deliverer gave up on `deadForSeconds` ago, created an hour before that. */
async function deadLetter(destinationId: string, deadForSeconds: number): Promise<Delivery> {
  const now = runtime.deps.clock.now();
  const destination = (await runtime.store.destinations.get(destinationId))!;
  const created = newDelivery(
    {
      eventId: `evt_${Math.random().toString(16).slice(2)}`,
      eventType: 'customer_api.webhook.test',
      occurredAt: new Date(now).toISOString(),
      groupId: 'demo-group',
      locationId: 'nyc-midtown',
      revision: '',
    },
    destination,
    now - (deadForSeconds + 3600) * 1000,
  );
  const dead: Delivery = {
    ...created,
    status: 'DEAD_LETTER',
    attempts: 5,
    timeline: [
      {
        kind: 'attempt',
        attempt: 5,
        at: new Date(now - deadForSeconds * 1000).toISOString(),
        status: 'DEAD_LETTER',
        code: 'http_503',
        ms: 80,
        next: null,
      },
    ],
    deadLetterReason: 'attempts_exhausted',
    updatedAt: new Date(now - deadForSeconds * 1000).toISOString(),
  };
  expect(await runtime.store.deliveries.create(dead)).toBe(true);
  await runtime.store.deliveries.markDeadLetter(markerOf(dead, 'attempts_exhausted'));
  return dead;
}

const listed = async (query = '') => (await adminCall(runtime, 'GET', `/dead-letters${query}`)).body.deadLetters as any[];

describe(`dead letters on-call can act on (${ENGINE_NAME})`, () => {
  it('names the destination, application and location, and counts the age from when it was dead-lettered', async () => {
    const d = await deadLetter(destinations[0]!.id, 600);
    const row = (await listed()).find((x) => x.deliveryId === d.deliveryId);
    expect(row).toMatchObject({
      destinationId: destinations[0]!.id,
      destinationName: 'Kitchen printer',
      destinationHost: 'hooks.example.test',
      clientId,
      locationId: 'nyc-midtown',
      eventType: 'customer_api.webhook.test',
      reason: 'attempts_exhausted',
      deadSince: d.updatedAt,
      // Ten minutes since it was dead-lettered, not the hour and ten since the delivery was created.
      ageSeconds: 600,
    });
    await runtime.store.deliveries.unmarkDeadLetter(d.deliveryId);
  });

  it('narrows the list to one destination or a search, in bounded pages, and refuses a malformed filter', async () => {
    const [a, b] = [await deadLetter(destinations[0]!.id, 60), await deadLetter(destinations[1]!.id, 60)];
    expect((await listed(`?destinationId=${destinations[1]!.id}`)).map((x) => x.deliveryId)).toEqual([b.deliveryId]);
    expect((await listed('?q=kitchen')).map((x) => x.deliveryId)).toEqual([a.deliveryId]);
    expect((await listed(`?q=${b.deliveryId.slice(4, 20)}`)).map((x) => x.deliveryId)).toEqual([b.deliveryId]);
    // One a page: the search reads on to its match, and the next page goes on from there.
    const first = (await adminCall(runtime, 'GET', '/dead-letters?q=hooks.example&limit=1')).body;
    expect(first.deadLetters).toHaveLength(1);
    expect((await adminCall(runtime, 'GET', '/dead-letters?destinationId=nope!')).status).toBe(400);
    expect((await adminCall(runtime, 'GET', '/dead-letters?q=')).status).toBe(400);
    // A cursor of another filter is refused.
    const paged = (await adminCall(runtime, 'GET', '/dead-letters?limit=1')).body;
    expect((await adminCall(runtime, 'GET', `/dead-letters?q=kitchen&cursor=${encodeURIComponent(paged.nextCursor)}`)).status).toBe(400);
    for (const d of [a, b]) await runtime.store.deliveries.unmarkDeadLetter(d.deliveryId);
  });

  it('redrives a selection, naming what it skipped and why, and refuses a selection it cannot take', async () => {
    const [a, b] = [await deadLetter(destinations[0]!.id, 60), await deadLetter(destinations[1]!.id, 60)];
    const live = (await deadLetter(destinations[0]!.id, 60)).deliveryId;
    await runtime.store.deliveries.unmarkDeadLetter(live);
    const record = (await runtime.store.deliveries.get(live))!;
    await runtime.store.deliveries.write({ ...record, status: 'SUCCEEDED', deadLetterReason: null }, record);
    const unknown = `dlv_${'0'.repeat(32)}`;
    const r = await adminCall(runtime, 'POST', '/dead-letters/redrive', { deliveryIds: [a.deliveryId, b.deliveryId, live, unknown] });
    expect(r.status).toBe(200);
    expect(r.body.redriven.sort()).toEqual([a.deliveryId, b.deliveryId].sort());
    expect(r.body.skipped).toEqual(
      expect.arrayContaining([
        { deliveryId: live, reason: 'not_dead_lettered' },
        { deliveryId: unknown, reason: 'not_found' },
      ]),
    );
    for (const d of [a, b]) expect(await runtime.store.deliveries.get(d.deliveryId)).toMatchObject({ redrives: 1, deadLetterReason: null });
    expect((await listed()).map((x) => x.deliveryId)).not.toContain(a.deliveryId);
    for (const bad of [
      { deliveryIds: [] },
      { deliveryIds: ['dlv_x'] },
      { deliveryIds: [a.deliveryId, a.deliveryId] },
      { deliveryIds: Array.from({ length: 101 }, (_, i) => `dlv_${i.toString(16).padStart(32, '0')}`) },
      { deliveryIds: [a.deliveryId], cursor: 'x' },
    ]) {
      const refused = await adminCall(runtime, 'POST', '/dead-letters/redrive', bad);
      expect(refused.status, JSON.stringify(bad).slice(0, 80)).toBe(400);
    }
  });

  it("redrives all of one destination's and leaves the others' listed, through the API and the CLI", async () => {
    const [a1, a2, b] = [
      await deadLetter(destinations[0]!.id, 60),
      await deadLetter(destinations[0]!.id, 60),
      await deadLetter(destinations[1]!.id, 60),
    ];
    const redriven: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await adminCall(runtime, 'POST', '/dead-letters/redrive', {
        destinationId: destinations[0]!.id,
        ...(cursor ? { cursor } : {}),
      });
      expect(page.status).toBe(200);
      redriven.push(...page.body.redriven);
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(redriven.sort()).toEqual([a1.deliveryId, a2.deliveryId].sort());
    expect((await listed()).map((x) => x.deliveryId)).toContain(b.deliveryId);

    const cli = await admin(runtimeFile, ['dlq', 'redrive', '--destination', destinations[1]!.id, '--json']);
    expect(cli.code).toBe(0);
    expect(cli.json.redriven).toEqual([b.deliveryId]);
    const c = await deadLetter(destinations[1]!.id, 60);
    const selected = await admin(runtimeFile, ['dlq', 'redrive', '--ids', `${c.deliveryId},dlv_${'0'.repeat(32)}`]);
    expect(selected.stdout).toContain('Redrove 1 delivery(ies)');
    expect(selected.stdout).toContain('not_found');
    const list = await admin(runtimeFile, ['dlq', 'list', '--destination', destinations[1]!.id, '--json']);
    expect(list.json.deadLetters).toEqual([]);
    expect((await admin(runtimeFile, ['dlq', 'redrive', '--all', '--destination', destinations[1]!.id])).code).toBe(2);
  });

  it('searches applications and destinations by part of a name and by a whole id', async () => {
    const byName = await adminCall(runtime, 'GET', '/destinations?q=LOYALTY');
    expect(byName.body.destinations.map((d: any) => d.name)).toEqual(['Loyalty sync']);
    const byId = await adminCall(runtime, 'GET', `/destinations?q=${destinations[0]!.id}`);
    expect(byId.body.destinations.map((d: any) => d.name)).toEqual(['Kitchen printer']);
    const app = await adminCall(runtime, 'GET', `/apps?q=${clientId}`);
    expect(app.body.apps.map((a: any) => a.clientId)).toEqual([clientId]);
    const none = await adminCall(runtime, 'GET', '/apps?q=no such application anywhere');
    expect(none.body.apps).toEqual([]);
    expect((await adminCall(runtime, 'GET', `/apps?q=${'x'.repeat(201)}`)).status).toBe(400);
    const cli = await admin(runtimeFile, ['destinations', 'list', '--search', 'kitchen', '--json']);
    expect(cli.json.destinations.map((d: any) => d.name)).toEqual(['Kitchen printer']);
  });
});
