import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';
import {
  addDestination,
  editDestination,
  removeDestination,
  rotateSecret,
  sendTest,
  setEnabled,
  showDestination,
} from '#lambdas/webhooks/destination-operations';
import { publishMenu, writeMenu } from '#lambdas/webhooks/publish';
import { AdminInputError } from '#domain/inputs';
import { deliveryIdOf, menuEventId } from '#lambdas/webhooks/messages';
import { deliveryHistory } from '#lambdas/webhooks/delivery-history';
import { SWEEP_PAGE } from '#lambdas/webhooks/fan-out';
import { outboxKeys } from '#lambdas/webhooks/outbox';
import { lastOutcome } from '#lambdas/webhooks/deliveries';
import { withOutcome } from '../fixtures/delivery-record.js';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { sign } from '#lambdas/webhooks/attempt-rules';
import { backoffBounds } from '#lambdas/webhooks/delivery-policy';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { overrunsOf, waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver, type Behaviour } from '../fixtures/webhook-receiver.js';
import { call, exchange, expectUnchanged, manualClock, newApp, scanTable, sentMail, startTestRuntime } from '../support/runtime.js';
import { expectSigningSecret } from '../support/signing-secret.js';
import { eventually } from '../support/eventually.js';

/**
 * The webhook pipeline with real parts: the local runtime's SQS engine and
 * poller, the deliverer, and real HTTPS receivers on loopback that verify
 * every signature. Every wait of the delivery policy is scaled down
 * (WEBHOOK_TIME_SCALE) while the nominal sequence is asserted.
 */

let runtime: LocalRuntime;
const clock = manualClock();
const dns = controlledResolver({
  'hooks.example.test': ['127.0.0.1'],
  'public.example.test': ['93.184.216.34'],
  'private.example.test': ['10.1.2.3'],
  'mixed.example.test': ['93.184.216.34', '192.168.1.1'],
});
const receivers: { stop(): Promise<void> }[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({
    clock,
    resolver: dns.resolver,
    // 0.05: a 500 ms attempt timeout, so a receiver's prompt 200 is not taken for a hang on a busy machine.
    config: { webhookAllowLoopback: true, webhookTimeScale: SEQUENCE_SCALE },
  });
});
afterAll(async () => {
  for (const r of receivers) await r.stop();
  await runtime?.stop();
});

async function bevqApp(input: { allowedLocationIds?: string[] } = {}) {
  return newApp(runtime, { scopes: ['bevq:read'], ownerEmail: 'hooks-owner@example.test', ...input });
}

/** A receiver plus a destination pointing at it, the test's current secret tracked for verification. */
async function receiverWithDestination(
  behave?: (n: number) => Behaviour | Promise<Behaviour>,
  locationIds: string[] | null = ['nyc-midtown'],
) {
  const holder = { secret: '' };
  const receiver = await startReceiver({ secret: () => holder.secret, behave });
  receivers.push(receiver);
  const app = await bevqApp();
  const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Hook', url: receiver.url, locationIds });
  holder.secret = created.signingSecret;
  return { receiver, holder, app, destination: created.destination };
}

describe('a menu revision reaches the receiver, signed', () => {
  it('delivers one verified bevq.menu.updated with the exact headers and payload, then the re-read is 304', async () => {
    const { receiver, destination } = await receiverWithDestination(undefined, ['denver-union']);
    const published = await publishMenu(runtime.deps, {
      groupId: 'demo-group',
      locationId: 'denver-union',
      menu: sampleMenu({ price: 7 }),
    });
    const [request] = await receiver.waitFor(1);
    const revision = published.menu.revision;
    const eventId = menuEventId('demo-group', 'denver-union', revision);
    expect(published.eventId).toBe(eventId);
    expect(request!.verified).toBe(true);
    expect(request!.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(request!.headers['user-agent']).toBe('Service-Customer-API-Webhooks/1.0');
    expect(request!.headers['x-service-event']).toBe('bevq.menu.updated');
    expect(request!.headers['x-service-event-id']).toBe(eventId);
    expect(request!.headers['x-service-timestamp']).toBe(String(Math.floor(clock.now() / 1000)));
    expect(request!.headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(request!.headers.host).toBe(`hooks.example.test:${receiver.port}`);
    // No delivery id, attempt number or API-version header.
    expect(
      Object.keys(request!.headers)
        .filter((h) => h.startsWith('x-'))
        .sort(),
    ).toEqual(['x-service-event', 'x-service-event-id', 'x-service-signature', 'x-service-timestamp']);
    expect(request!.body).toEqual({
      eventId,
      eventType: 'bevq.menu.updated',
      occurredAt: new Date(clock.now()).toISOString(),
      groupId: 'demo-group',
      locationId: 'denver-union',
      revision,
      resource: '/v1/demo-group/denver-union/bevq/menu',
    });

    // The receiver's follow-up read (6.4 receiver rule 6), with the app's own token.
    const reader = await newApp(runtime, { scopes: ['bevq:read'] });
    const { access_token } = await exchange(runtime, reader.clientId, reader.clientSecret);
    const first = await call(runtime, request!.body.resource, { token: access_token });
    expect(first.body.data.menu.revision).toBe(revision);
    const again = await call(runtime, request!.body.resource, {
      token: access_token,
      headers: { 'If-None-Match': first.headers.get('etag')! },
    });
    expect(again.status).toBe(304);

    const shown = await showDestination(runtime.deps, destination.destinationId);
    expect(shown.destination).toMatchObject({
      health: 'HEALTHY',
      consecutiveFailures: 0,
      lastSuccessAt: expect.any(String),
      hostname: 'hooks.example.test',
    });
    expect(shown.recentDeliveries).toEqual([expect.objectContaining({ eventId, status: 'SUCCEEDED', attempts: 1, errorCode: null })]);
    expect(JSON.stringify(shown)).not.toContain('receiver body');
    expect(shown.destination).not.toHaveProperty('signingSecret');
    await removeDestination(runtime.deps, destination.destinationId);
  });

  it('emits exactly one logical event per revision, whatever the number of publishes and sweeps', async () => {
    const { receiver, destination } = await receiverWithDestination(undefined, ['london-soho']);
    const menu = sampleMenu({ price: 12 });
    const one = await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'london-soho', menu });
    const two = await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'london-soho', menu });
    clock.advance(120_000);
    await runtime.sweep();
    await receiver.waitFor(1);
    expect(one.newRevision).toBe(true);
    expect(two).toMatchObject({ newRevision: false, written: false });
    // Records are written before their messages: one record for the destination is one logical event, now and later.
    const { deliveries } = await deliveryHistory(runtime.deps, destination.destinationId, {});
    expect(deliveries.map((d: { eventId: string }) => d.eventId)).toEqual([one.eventId]);
    expect(new Set(receiver.received.map((r) => r.body.eventId))).toEqual(new Set([one.eventId]));
    await removeDestination(runtime.deps, destination.destinationId);
  });

  it('loses no event when the process dies between the menu write and the enqueue', async () => {
    const { receiver, destination } = await receiverWithDestination(undefined, ['nyc-midtown']);
    // Interrupted after the write: only the first half of publishing ran.
    const written = await writeMenu(runtime.deps, { groupId: 'demo-group', locationId: 'nyc-midtown', menu: sampleMenu({ price: 3 }) });
    // And an enqueue that fails outright (queue unreachable): the write stands, the event stays in the outbox.
    const unreachable = () => Promise.reject(new Error('queue unreachable'));
    const broken = { ...runtime.deps, queue: { ...runtime.deps.queue, send: unreachable, sendAll: unreachable } };
    await expect(
      publishMenu(broken, { groupId: 'demo-group', locationId: 'nyc-midtown', menu: sampleMenu({ price: 4 }) }),
    ).rejects.toThrow();
    const latest = (await runtime.store.menus.get('demo-group', 'nyc-midtown'))!;
    const second = menuEventId('demo-group', 'nyc-midtown', latest.menu.revision);
    // The first body was replaced before its event went out: the second publish confirmed it first.
    expect(await runtime.store.outbox.get(written.event!.eventId)).toMatchObject({ confirmed: true, revision: written.event!.revision });
    expect(await runtime.store.outbox.get(second)).toMatchObject({ confirmed: false, revision: latest.menu.revision });
    // The menu item holds the body only: an event never grows it.
    const items = await scanTable(runtime);
    expect(items.find((i) => i.SK === 'BEVQ_MENU#nyc-midtown')).not.toHaveProperty('pendingEvents');
    // Nothing on its way to the receiver: no attempt was made, and the webhook queue holds no message at all.
    for (const eventId of [written.event!.eventId, second]) {
      expect((await runtime.store.deliveries.get(deliveryIdOf(eventId, destination.destinationId)))?.attempts ?? 0).toBe(0);
    }
    const { Attributes = {} } = await runtime.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: runtime.queues.webhookQueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
      }),
    );
    expect(Object.values(Attributes).map(Number)).toEqual([0, 0, 0]);

    // Within the grace period the sweeper leaves them; after it, it dispatches both.
    await runtime.sweep();
    expect(await outboxEntries()).toHaveLength(2);
    clock.advance(61_000);
    await runtime.sweep();
    const got = await receiver.waitFor(2);
    expect(new Set(got.map((r) => r.body.eventId))).toEqual(new Set([written.event!.eventId, second]));
    expect(got.every((r) => r.verified)).toBe(true);
    expect(await outboxEntries()).toEqual([]);
    await removeDestination(runtime.deps, destination.destinationId);
  });

  it('drops an outbox entry whose menu body never landed, and sends nothing for it', async () => {
    const { destination } = await receiverWithDestination(undefined, ['nyc-midtown']);
    const revision = 'f'.repeat(32);
    // A publish that died after its entry and before its body (or lost its conditional write for good).
    const eventId = menuEventId('demo-group', 'nyc-midtown', revision);
    await runtime.store.outbox.add({
      eventId,
      eventType: 'bevq.menu.updated',
      occurredAt: new Date(clock.now()).toISOString(),
      groupId: 'demo-group',
      locationId: 'nyc-midtown',
      revision,
    });
    clock.advance(61_000);
    await runtime.sweep();
    expect(await runtime.store.outbox.get(eventId)).toBeNull();
    // No item names the event, so no delivery record and no message: nothing can reach the receiver.
    expect((await scanTable(runtime)).filter((i) => i.eventId === eventId)).toEqual([]);
    await removeDestination(runtime.deps, destination.destinationId);
  });

  it('settles a bounded page of each outbox shard per sweep, so a backlog drains over runs', async () => {
    // 30 stranded entries in one shard (ids ending in 0), more than one sweep takes from a shard.
    const ids = Array.from({ length: SWEEP_PAGE + 5 }, (_, i) => `evt_${String(i).padStart(31, 'a')}0`);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.map(outboxKeys.shard)).size).toBe(1);
    const at = new Date(clock.now()).toISOString();
    for (const eventId of ids) {
      await runtime.store.outbox.add({
        eventId,
        eventType: 'bevq.menu.updated',
        occurredAt: at,
        groupId: 'demo-group',
        locationId: 'london-soho',
        revision: eventId,
      });
    }
    clock.advance(61_000);
    await runtime.sweep();
    expect(await outboxEntries()).toHaveLength(5);
    await runtime.sweep();
    expect(await outboxEntries()).toEqual([]);
  });
});

const outboxEntries = async () => (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('OUTBOX#'));

// Independent destinations and receivers, so the cases run side by side.
describe.concurrent('delivery outcomes', () => {
  const cases: { name: string; behave: (n: number) => Behaviour; status: string; requests: number; code: string | null }[] = [
    { name: '200', behave: () => 200, status: 'SUCCEEDED', requests: 1, code: null },
    { name: '204', behave: () => 204, status: 'SUCCEEDED', requests: 1, code: null },
    { name: '301 (redirect not followed)', behave: () => 301, status: 'FAILED', requests: 1, code: 'http_301' },
    { name: '400', behave: () => 400, status: 'FAILED', requests: 1, code: 'http_400' },
    { name: '401', behave: () => 401, status: 'FAILED', requests: 1, code: 'http_401' },
    ...[408, 425, 429, 500, 503].map((s) => ({
      name: `${s} then 200`,
      behave: (n: number): Behaviour => (n === 1 ? s : 200),
      status: 'SUCCEEDED',
      requests: 2,
      code: null,
    })),
    { name: 'timeout then 200', behave: (n: number): Behaviour => (n === 1 ? 'hang' : 200), status: 'SUCCEEDED', requests: 2, code: null },
    { name: 'reset then 200', behave: (n: number): Behaviour => (n === 1 ? 'reset' : 200), status: 'SUCCEEDED', requests: 2, code: null },
  ];
  for (const c of cases) {
    it(`${c.name} → ${c.status} after ${c.requests} request(s)`, async () => {
      // A location no other test here publishes to: the sweeper hands a destination of nyc-midtown the menu events
      // that earlier tests leave in the outbox, and the receiver's behaviour counts every request it gets.
      const { receiver, destination } = await receiverWithDestination(c.behave, ['sydney-harbour']);
      const { deliveryId } = await sendTest(runtime.deps, destination.destinationId, 'sydney-harbour');
      const delivery = await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER']);
      expect(delivery.status).toBe(c.status);
      expect(lastOutcome(delivery).lastErrorCode).toBe(c.code);
      // A starved machine can overrun an attempt's scaled time: the attempt times out or its invocation is
      // interrupted, a retryable failure whose request may have landed. Only those add attempts (none when quiet).
      const overruns = overrunsOf(delivery.timeline);
      expect(receiver.received.every((r) => r.body.eventId === delivery.eventId && r.verified)).toBe(true);
      expect(receiver.received.length).toBeGreaterThanOrEqual(c.requests);
      expect(receiver.received.length).toBeLessThanOrEqual(delivery.attempts);
      expect(delivery.attempts).toBeGreaterThanOrEqual(c.requests);
      expect(delivery.attempts).toBeLessThanOrEqual(c.requests + overruns);
      // A jittered wait after each attempt but the last, within its retry's bounds (the first: 30–45 s).
      expect(delivery.backoffHistory).toHaveLength(delivery.attempts - 1);
      delivery.backoffHistory.forEach((wait, i) => {
        expect(wait).toBeGreaterThanOrEqual(backoffBounds(i + 1).min);
        expect(wait).toBeLessThanOrEqual(backoffBounds(i + 1).max);
      });
      // The deliverer records the destination's health just after the delivery's outcome: give it that moment.
      const expected = c.status === 'SUCCEEDED' ? 'HEALTHY' : 'FAILING';
      let health = '';
      await eventually(
        async () =>
          (health = (await showDestination(runtime.deps, destination.destinationId)).destination.health) === expected ? true : undefined,
        () => `health ${health}, wanted ${expected}`,
      );
      await removeDestination(runtime.deps, destination.destinationId);
    });
  }

  // Four waits of 30–45 s doubling, scaled: 22.5–34 s at this file's scale.
  it('retries a refused connection, then dead-letters it after the fifth failure', async () => {
    const closed = await startReceiver({ secret: () => '' });
    const url = closed.url;
    await closed.stop();
    const app = await bevqApp();
    const { destination } = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Gone', url, locationIds: null });
    const { deliveryId } = await sendTest(runtime.deps, destination.destinationId, 'nyc-midtown');
    const delivery = await waitForStatus(runtime, deliveryId, ['DEAD_LETTER', 'SUCCEEDED', 'FAILED']);
    expect(withOutcome(delivery)).toMatchObject({
      status: 'DEAD_LETTER',
      attempts: 5,
      lastErrorCode: 'connection_refused',
    });
    await removeDestination(runtime.deps, destination.destinationId);
  });
});

// The retry sequence and its dead letter, asserted from the queue's side: webhook-contract.test.ts.
describe('retries and the attempt-time re-check', () => {
  it('signs a retry with the rotated secret at once; the old one no longer verifies', async () => {
    let destinationId = '';
    let oldSecret = '';
    const setup = await receiverWithDestination(async (n) => {
      if (n === 1) {
        oldSecret = setup.holder.secret;
        setup.holder.secret = (await rotateSecret(runtime.deps, destinationId)).signingSecret;
        return 500;
      }
      return 200;
    });
    destinationId = setup.destination.destinationId;
    const { deliveryId } = await sendTest(runtime.deps, destinationId, 'nyc-midtown');
    await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER']);
    const [first, second] = setup.receiver.received;
    expect(first!.verified).toBe(true);
    expect(second!.verified).toBe(true);
    const ts = second!.headers['x-service-timestamp'] as string;
    expect(sign(oldSecret, ts, second!.rawBody)).not.toBe(second!.headers['x-service-signature']);
    await removeDestination(runtime.deps, destinationId);
  });

  for (const [what, change] of [
    ['disabled', async (id: string) => void (await setEnabled(runtime.deps, id, false))],
    ['removed', async (id: string) => void (await removeDestination(runtime.deps, id))],
    [
      'parent application revoked',
      async (_id: string, clientId: string) => void (await runtime.store.apps.revoke(clientId, new Date(clock.now()).toISOString())),
    ],
  ] as const) {
    it(`fails a queued retry without a request once the destination is ${what}`, async () => {
      let ids = { destinationId: '', clientId: '' };
      const setup = await receiverWithDestination(async () => {
        await change(ids.destinationId, ids.clientId);
        return 503;
      });
      ids = { destinationId: setup.destination.destinationId, clientId: setup.app.clientId };
      const { deliveryId } = await sendTest(runtime.deps, ids.destinationId, 'nyc-midtown');
      const delivery = await waitForStatus(runtime, deliveryId, ['FAILED', 'SUCCEEDED', 'DEAD_LETTER']);
      expect(delivery.status).toBe('FAILED');
      expect(lastOutcome(delivery).lastErrorCode).toBe(
        { disabled: 'destination_disabled', removed: 'destination_removed', 'parent application revoked': 'application_revoked' }[what],
      );
      expect(setup.receiver.received).toHaveLength(1);
      if (what !== 'removed') await removeDestination(runtime.deps, ids.destinationId);
    });
  }
});

describe('SSRF protection', () => {
  it('refuses unsafe URLs at save and writes nothing', async () => {
    const app = await bevqApp();
    const before = await scanTable(runtime);
    const urls = [
      'http://hooks.example.test/hook',
      'https://user:pw@public.example.test/',
      'https://public.example.test/hook#frag',
      'https://10.0.0.1/',
      'https://0x7f000001.0x0/',
      'https://[::ffff:10.0.0.1]/',
      'https://[fd00:ec2::254]/',
      'https://169.254.169.254/latest/meta-data',
      'https://private.example.test/',
      'https://mixed.example.test/',
      'https://unknown.example.test/',
      'not a url',
    ];
    for (const url of urls) {
      await expect(addDestination(runtime.deps, { clientId: app.clientId, name: 'x', url }), url).rejects.toBeInstanceOf(AdminInputError);
    }
    expectUnchanged(await scanTable(runtime), before);
  });

  it('re-validates DNS before every attempt: public at save, private later → FAILED without a request', async () => {
    dns.set('rebind.example.test', ['93.184.216.34']);
    const app = await bevqApp();
    const { destination } = await addDestination(runtime.deps, {
      clientId: app.clientId,
      name: 'Rebind',
      url: 'https://rebind.example.test/hook',
      locationIds: null,
    });
    dns.set('rebind.example.test', ['169.254.169.254']);
    const { deliveryId } = await sendTest(runtime.deps, destination.destinationId, 'nyc-midtown');
    const delivery = await waitForStatus(runtime, deliveryId, ['FAILED', 'SUCCEEDED', 'DEAD_LETTER']);
    expect(withOutcome(delivery)).toMatchObject({ status: 'FAILED', lastErrorCode: 'blocked_address', attempts: 1 });
    await removeDestination(runtime.deps, destination.destinationId);
  });
});

describe('destination administration', () => {
  it('mails the owner on create, update and remove only, never the secret', async () => {
    const app = await bevqApp();
    const created = await addDestination(runtime.deps, {
      clientId: app.clientId,
      name: 'Mailed',
      url: 'https://public.example.test/h?token=abc',
      locationIds: null,
    });
    expectSigningSecret(created.signingSecret);
    const id = created.destination.destinationId;
    await editDestination(runtime.deps, id, { name: 'Mailed 2', url: '' });
    const rotated = await rotateSecret(runtime.deps, id);
    expectSigningSecret(rotated.signingSecret);
    await removeDestination(runtime.deps, id);
    const mails = (await sentMail(runtime)).filter((m) => m.to.includes('hooks-owner@example.test') && m.text.includes(id));
    expect(mails.map((m) => m.subject)).toEqual([
      'Customer API: webhook destination "Mailed" created',
      'Customer API: webhook destination "Mailed 2" updated',
      'Customer API: webhook destination "Mailed 2" removed',
    ]);
    for (const m of mails) {
      expect(m.text).not.toContain(created.signingSecret);
      expect(m.text).not.toContain(rotated.signingSecret);
      expect(m.text).not.toContain('token=abc');
    }
    expect(await runtime.store.destinations.get(id)).toBeNull();
  });
});
