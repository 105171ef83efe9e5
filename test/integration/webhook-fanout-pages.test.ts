import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboxKeys } from '#lambdas/webhooks/outbox';
import { continueDispatch, DISPATCH_PAGE, dispatchMenuEvent, sweepOutbox, writePace } from '#lambdas/webhooks/fan-out';
import { publishMenu, writeMenu } from '#lambdas/webhooks/publish';
import { parseFanOutMessage } from '#lambdas/webhooks/messages';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { storedDestination } from '../fixtures/stored-destination.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { manualClock, newApp, scanTable, startTestRuntime } from '../support/runtime.js';
import { eventually } from '../support/eventually.js';

/**
 * A fan-out larger than one page: the publish dispatches the first page, each
 * further page is dispatched by a deliverer woken by a message, and a fan-out
 * cut between pages is resumed by the sweeper from the entry's cursor. One
 * receiver stands for every destination, a path and a secret each.
 */
const DESTINATIONS = 2 * DISPATCH_PAGE + 30;
const secretOf = (path: string) => `secret-for-${path}`.padEnd(43, '.');

const clock = manualClock();
let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'] });
  // 0.2: a 2 s attempt and a 6 s function timeout, so a page of 100 deliveries on a loaded machine is not cut by the
  // scaled clock (a page cut short comes back and, past its receives, lands in the DLQ: nobody hears it). No retry here.
  runtime = await startTestRuntime({ clock, resolver: dns.resolver, config: { webhookAllowLoopback: true, webhookTimeScale: 0.2 } });
  receiver = await startReceiver({ secret: secretOf });
  const app = await newApp(runtime, { scopes: ['bevq:read'] });
  const at = new Date(clock.now()).toISOString();
  const base = new URL(receiver.url);
  await Promise.all(
    Array.from({ length: DESTINATIONS }, (_, i) => {
      const path = `/d/${i}`;
      const destination = storedDestination(
        {
          destinationId: `dst_page_${String(i).padStart(4, '0')}`,
          clientId: app.clientId,
          groupId: 'demo-group',
          url: `https://hooks.example.test:${base.port}${path}`,
          signingSecret: secretOf(path),
        },
        at,
      );
      return runtime.store.destinations.put(destination, { mustExist: false });
    }),
  );
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
});

const recordsOf = async (eventId: string) =>
  (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('DELIVERY#') && i.eventId === eventId);
const pathsHeard = (eventId: string) =>
  new Set(receiver.received.filter((r) => r.body.eventId === eventId && r.verified).map((r) => r.path));

async function until(
  check: () => Promise<boolean> | boolean,
  what: string,
  seen: () => Promise<string> | string = () => '',
): Promise<void> {
  await eventually(
    async () => ((await check()) ? true : undefined),
    async () => `${what}; ${await seen()}`,
  );
}
/** What the destinations heard and the records' statuses: said when a wait runs out. */
async function statusesOf(eventId: string): Promise<string> {
  const counts: Record<string, number> = {};
  for (const r of await recordsOf(eventId)) counts[String(r.status)] = (counts[String(r.status)] ?? 0) + 1;
  return `heard ${pathsHeard(eventId).size}, records ${JSON.stringify(counts)}, received ${receiver.received.length}`;
}

describe(`fan-out in pages of ${DISPATCH_PAGE} (${DESTINATIONS} destinations)`, () => {
  it('puts an entry the sweeper could not dispatch behind the others of its shard', async () => {
    const { event } = await writeMenu(runtime.deps, { groupId: 'demo-group', locationId: 'london-soho', menu: sampleMenu({ price: 23 }) });
    const failing = {
      ...runtime.deps.queue,
      send: async () => Promise.reject(new Error('queue down')),
      sendAll: async () => Promise.reject(new Error('queue down')),
    };
    clock.advance(61_000);
    await sweepOutbox({ ...runtime.deps, queue: failing });
    const entry = (await scanTable(runtime)).find((i) => i.PK === outboxKeys.event(event!.eventId).PK);
    expect(entry?.GSI1SK).toBe(`${new Date(clock.now()).toISOString()}#${event!.eventId}`);
    // Once the queue is back, the sweeper settles it after the grace like any other.
    clock.advance(61_000);
    await runtime.sweep();
    await until(async () => (await runtime.store.outbox.get(event!.eventId)) === null, 'the postponed fan-out to finish');
  });

  it('the publish queues one page; the others follow through the queue; each destination gets one record and one verified POST', async () => {
    const published = await publishMenu(runtime.deps, {
      groupId: 'demo-group',
      locationId: 'london-soho',
      menu: sampleMenu({ price: 21 }),
    });
    expect(published.deliveries).toBe(DISPATCH_PAGE);
    const eventId = published.eventId!;
    await until(
      () => pathsHeard(eventId).size === DESTINATIONS,
      'every destination to hear the event',
      () => statusesOf(eventId),
    );
    const records = await recordsOf(eventId);
    expect(records).toHaveLength(DESTINATIONS);
    expect(new Set(records.map((r) => r.destinationId)).size).toBe(DESTINATIONS);
    // The last page took the event out of the outbox.
    await until(async () => (await runtime.store.outbox.get(eventId)) === null, 'the outbox entry to go');
  });

  it('of two runs on the same page only one goes on; a stale wake-up does nothing', async () => {
    const { event } = await writeMenu(runtime.deps, { groupId: 'demo-group', locationId: 'london-soho', menu: sampleMenu({ price: 22 }) });
    const wakeUps: string[] = [];
    const held = {
      ...runtime.deps.queue,
      fanOut: { ...runtime.deps.queue.fanOut, send: async (body: string) => (wakeUps.push(body), 'held') },
    };
    const deps = { ...runtime.deps, queue: held };
    // The publish's own run and a sweeper's, both on the first page.
    await Promise.all([dispatchMenuEvent(deps, event!), dispatchMenuEvent(deps, event!)]);
    expect(wakeUps).toHaveLength(1);
    const wake = parseFanOutMessage(wakeUps[0]!);
    expect(wake).toMatchObject({ dispatch: event!.eventId });
    const entry = await runtime.store.outbox.get(event!.eventId);
    expect(entry).toMatchObject({ confirmed: true, cursor: wake && 'cursor' in wake ? wake.cursor : '' });
    expect(await recordsOf(event!.eventId)).toHaveLength(DISPATCH_PAGE);

    // A wake-up naming a cursor the entry no longer holds: nothing created, nothing sent.
    await continueDispatch(
      deps,
      event!.eventId,
      JSON.stringify({ PK: 'DEST#elsewhere', SK: 'DEST', GSI1PK: 'x', GSI1SK: 'y' }),
      writePace(),
    );
    expect(wakeUps).toHaveLength(1);
    expect(await recordsOf(event!.eventId)).toHaveLength(DISPATCH_PAGE);

    // The held wake-up was lost: within the grace the sweeper leaves the entry, after it goes on from the cursor to the end.
    await runtime.sweep();
    expect(await recordsOf(event!.eventId)).toHaveLength(DISPATCH_PAGE);
    clock.advance(61_000);
    await runtime.sweep();
    await until(
      async () => (await recordsOf(event!.eventId)).length === DESTINATIONS && (await runtime.store.outbox.get(event!.eventId)) === null,
      'the fan-out to finish',
    );
    await until(() => pathsHeard(event!.eventId).size === DESTINATIONS, 'every destination to hear the second event');
  });
});
