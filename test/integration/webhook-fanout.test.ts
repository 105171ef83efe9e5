import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeleteCommand, DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { DESTINATIONS_PER_APPLICATION } from '#lambdas/webhooks/destination-limit';
import { destinationKeys } from '#lambdas/webhooks/destinations';
import { addDestination, listDestinations, showDestination } from '#lambdas/webhooks/destination-operations';
import { dispatchMenuEvent } from '#lambdas/webhooks/fan-out';
import { publishMenu, writeMenu } from '#lambdas/webhooks/publish';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { newApp, scanTable, startTestRuntime } from '../support/runtime.js';
import { eventually } from '../support/eventually.js';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';

/**
 * One event to many receivers: records created in parallel (conditionally),
 * messages sent in batches of 10. More destinations than one round of
 * creates (25) and than one batch (10), each a real HTTPS receiver with its
 * own secret.
 */
const DESTINATIONS = 40;

let runtime: LocalRuntime;
let firstEventId = '';
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'] });

beforeAll(async () => {
  runtime = await startTestRuntime({ resolver: dns.resolver, config: { webhookAllowLoopback: true, webhookTimeScale: SEQUENCE_SCALE } });
  // Applications enough for DESTINATIONS, each with the most destinations it may have.
  const apps = [];
  for (let i = 0; i < DESTINATIONS; i += DESTINATIONS_PER_APPLICATION) apps.push(await newApp(runtime, { scopes: ['bevq:read'] }));
  for (let i = 0; i < DESTINATIONS; i++) {
    const clientId = apps[Math.floor(i / DESTINATIONS_PER_APPLICATION)]!.clientId;
    const holder = { secret: '' };
    const receiver = await startReceiver({ secret: () => holder.secret });
    receivers.push(receiver);
    holder.secret = (
      await addDestination(runtime.deps, { clientId, name: `fan-${i}`, url: receiver.url, locationIds: ['london-soho'] })
    ).signingSecret;
  }
});
afterAll(async () => {
  for (const r of receivers) await r.stop();
  await runtime?.stop();
});

const recordsOf = async (eventId: string) =>
  (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('DELIVERY#') && i.eventId === eventId);

describe(`fan-out to ${DESTINATIONS} receivers`, () => {
  it('delivers one verified request to each, with exactly one record per receiver', async () => {
    const published = await publishMenu(runtime.deps, {
      groupId: 'demo-group',
      locationId: 'london-soho',
      menu: sampleMenu({ price: 11 }),
    });
    expect(published.deliveries).toBe(DESTINATIONS);
    firstEventId = published.eventId!;
    const got = await Promise.all(receivers.map((r) => r.waitFor(1)));
    expect(got.every(([request]) => request!.verified && request!.body.eventId === published.eventId)).toBe(true);
    const records = await recordsOf(published.eventId!);
    expect(records).toHaveLength(DESTINATIONS);
    expect(new Set(records.map((r) => r.destinationId)).size).toBe(DESTINATIONS);
  });

  it('never overwrites a record or sends again when the same event is dispatched again', async () => {
    const written = await writeMenu(runtime.deps, { groupId: 'demo-group', locationId: 'london-soho', menu: sampleMenu({ price: 12 }) });
    const event = written.event!;
    await dispatchMenuEvent(runtime.deps, event);
    await Promise.all(receivers.map((r) => r.waitFor(2)));
    // The outcome is written once the receiver has answered: wait until every record says so.
    // (A loaded engine may time an attempt out: its retry, a backoff later, succeeds.)
    let before = await recordsOf(event.eventId);
    await eventually(
      async () => ((before = await recordsOf(event.eventId)).every((r) => r.status === 'SUCCEEDED') ? true : undefined),
      () => `records ${before.map((r) => r.status).join(' ')}`,
    );
    expect(before).toHaveLength(DESTINATIONS);
    // A second dispatch of the same event (the sweeper after a crash): the records stand, nothing is queued again.
    let queued = 0;
    const counting = {
      ...runtime.deps.queue,
      sendAll: (bodies: readonly string[]) => ((queued += bodies.length), runtime.deps.queue.sendAll(bodies)),
    };
    await dispatchMenuEvent({ ...runtime.deps, queue: counting }, event);
    expect(queued).toBe(0);
    const after = await recordsOf(event.eventId);
    expect(after.map((r) => [r.deliveryId, r.status, r.version]).sort()).toEqual(
      before.map((r) => [r.deliveryId, r.status, r.version]).sort(),
    );
    // Each receiver heard of exactly these two events (a late answer may bring a second POST of the same event: at least once).
    const events = (r: (typeof receivers)[number]) => [...new Set(r.received.map((q) => q.body.eventId as string))].sort();
    expect(receivers.map(events)).toEqual(receivers.map(() => [firstEventId, event.eventId].sort()));
  });

  it('records health apart from the indexed destination item, and shows the health an item of the old shape holds', async () => {
    // Health is recorded just after the outcome it follows: wait until every destination's last outcome is in.
    const healthy = (all: Record<string, any>[]) => all.filter((i) => i.SK === 'HEALTH' && i.health === 'HEALTHY').length === DESTINATIONS;
    let items = await scanTable(runtime);
    await eventually(
      async () => (healthy((items = await scanTable(runtime))) ? true : undefined),
      () => 'every destination HEALTHY',
    );
    const indexed = items.filter((i) => i.GSI1PK === destinationKeys.index.of('demo-group'));
    // Attempts never rewrote an index entry: the destination items are as created.
    expect(indexed).toHaveLength(DESTINATIONS);
    expect(indexed.every((i) => i.health === 'NOT_TESTED' && i.lastSuccessAt === null)).toBe(true);
    const health = items.filter((i) => i.SK === 'HEALTH');
    expect(health).toHaveLength(DESTINATIONS);
    expect(health.every((i) => i.health === 'HEALTHY' && typeof i.lastSuccessAt === 'string' && i.GSI1PK === undefined)).toBe(true);
    expect((await listDestinations(runtime.deps)).destinations.every((d) => d.health === 'HEALTHY')).toBe(true);

    // A destination written before health items existed keeps showing the health its own item recorded.
    const [old] = indexed;
    const doc = DynamoDBDocumentClient.from(runtime.dynamo);
    await doc.send(new DeleteCommand({ TableName: runtime.tableName, Key: { PK: old!.PK, SK: 'HEALTH' } }));
    await doc.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: { PK: old!.PK, SK: 'DEST' },
        UpdateExpression: 'SET health = :h, consecutiveFailures = :n, lastFailureAt = :at',
        ExpressionAttributeValues: { ':h': 'FAILING', ':n': 3, ':at': '2026-11-01T00:00:00.000Z' },
      }),
    );
    const shown = (await showDestination(runtime.deps, String(old!.destinationId))).destination;
    expect(shown).toMatchObject({ health: 'FAILING', consecutiveFailures: 3, lastFailureAt: '2026-11-01T00:00:00.000Z' });
  });
});
