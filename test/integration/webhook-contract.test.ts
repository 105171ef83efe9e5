import { randomBytes } from 'node:crypto';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backoffBounds, scaledTimings } from '#lambdas/webhooks/delivery-policy';
import { appKeys } from '#data/apps';
import type { Delivery } from '#lambdas/webhooks/deliveries';
import { withOutcome } from '../fixtures/delivery-record.js';
import { verifyWebhook } from '#kit';
import { createApp } from '#lambdas/admin/apps';
import { createDeliverer } from '#lambdas/webhooks/deliver';
import { deliveryIdOf } from '#lambdas/webhooks/messages';
import { parseDeliveryMessage } from '#lambdas/webhooks/messages';
import { fixtureLocation } from '../fixtures/venues.js';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';
import { sampleMenu } from '#local/demo-menu';
import { startDeliveryPoller, type LocalRuntime } from '#local/runtime';
import { storedDestination } from '../fixtures/stored-destination.js';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver, type Behaviour, type Received } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, manualClock, newApp, startTestRuntime, adminCall } from '../support/runtime.js';
import { eventually } from '../support/eventually.js';

/**
 * The webhook rules of contract 6.1, 6.5, 6.6 and 8, seen from outside: the
 * admin HTTP API drives, a real HTTPS receiver answers and verifies, and the
 * deliverer's own calls on the webhook queue show the waits it asked for.
 * Every wait runs on the runtime's time scale; the policy itself is untouched.
 */

/** Whole retry sequences run here: every attempt reaches the receiver only when each step has its floor (SEQUENCE_SCALE). */
const SCALE = SEQUENCE_SCALE;
const timings = scaledTimings(SCALE);
const GROUP = 'demo-group';
const FINISHED = ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'] as Delivery['status'][];

let runtime: LocalRuntime;
let poller: { stop(): Promise<void> };
const clock = manualClock();
const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'] });

/** What happened, in order: requests at the receiver and the visibilities the deliverer set on the webhook queue. */
type Seen = { kind: 'request'; path: string } | { kind: 'visibility'; deliveryId: string; seconds: number };
const timeline: Seen[] = [];
/** Receipt handle → delivery, from the deliverer's receives. */
const handles = new Map<string, string>();
/** Destination → a gate its messages' second and later receives wait on (an attempt held until the test has changed state). */
const retryGates = new Map<string, Promise<void>>();

function watchQueue(sqs: SQSClient, queueUrl: string) {
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, any>;
      if (input.QueueUrl !== queueUrl) return next(args);
      if (context.commandName === 'ChangeMessageVisibilityCommand') {
        const deliveryId = handles.get(input.ReceiptHandle);
        if (deliveryId) timeline.push({ kind: 'visibility', deliveryId, seconds: input.VisibilityTimeout });
        return next(args);
      }
      const result = await next(args);
      if (context.commandName === 'ReceiveMessageCommand') {
        const gates: Promise<void>[] = [];
        for (const m of ((result.output as any).Messages ?? []) as any[]) {
          const message = parseDeliveryMessage(m.Body ?? '');
          if (!message) continue;
          handles.set(m.ReceiptHandle, message.deliveryId);
          const gate = message.destinationId ? retryGates.get(message.destinationId) : undefined;
          if (gate && Number(m.Attributes?.ApproximateReceiveCount) > 1) gates.push(gate);
        }
        // Held before the deliverer sees the batch: the retry cannot start until the gate opens.
        await Promise.all(gates);
      }
      return result;
    },
    { step: 'initialize', name: 'watch-webhook-queue' },
  );
}

/** One receiver standing for every destination of the file, one path each, with the secret and answers of each path. */
const secrets = new Map<string, string>();
const answers = new Map<string, (n: number) => Behaviour>();
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const pathOf = (name: string) => `/hook/${name}`;
const urlOf = (name: string) => `${receiver.url}/${name}`;
const at = (name: string) => receiver.received.filter((r) => r.path === pathOf(name));

const adminApi = (method: string, path: string, body?: unknown) => adminCall(runtime, method, path, body);

const created: string[] = [];

/** A destination added through the admin API, pointing at its own path of the receiver. */
async function destination(
  name: string,
  clientId: string,
  options: { locationIds?: string[] | null; answer?: (n: number) => Behaviour } = {},
) {
  answers.set(pathOf(name), options.answer ?? (() => 200));
  const reply = await adminApi('POST', '/destinations', { clientId, name, url: urlOf(name), locationIds: options.locationIds ?? null });
  expect(reply.status, reply.text).toBe(201);
  secrets.set(pathOf(name), reply.body.signingSecret);
  created.push(reply.body.destination.destinationId);
  return { id: reply.body.destination.destinationId as string, secret: reply.body.signingSecret as string };
}

const bevqApp = (input: Parameters<typeof newApp>[1] = {}) => newApp(runtime, { scopes: ['bevq:read'], ...input });

async function sendTest(destinationId: string, locationId = 'nyc-midtown') {
  const reply = await adminApi('POST', `/destinations/${destinationId}/test`, { locationId });
  expect(reply.status, reply.text).toBe(202);
  return reply.body as { eventId: string; deliveryId: string };
}

async function publish(locationId: string, price: number) {
  const reply = await adminApi('PUT', `/menus/${GROUP}/${locationId}`, sampleMenu({ price }));
  expect(reply.status, reply.text).toBe(200);
  expect(reply.body.newRevision).toBe(true);
  return reply.body as { revision: string; eventId: string };
}

async function deliveriesOf(destinationId: string): Promise<any[]> {
  const reply = await adminApi('GET', `/destinations/${destinationId}/deliveries`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body.deliveries;
}

async function shown(destinationId: string) {
  const reply = await adminApi('GET', `/destinations/${destinationId}`);
  expect(reply.status, reply.text).toBe(200);
  return reply.body as { destination: Record<string, any>; recentDeliveries: any[] };
}

/** Polls a destination's document until `ready` holds (its health is written just after the delivery's outcome). */
async function shownWhen(destinationId: string, ready: (d: Record<string, any>) => boolean) {
  let doc: Awaited<ReturnType<typeof shown>> | undefined;
  return eventually(
    async () => {
      doc = await shown(destinationId);
      return ready(doc.destination) ? doc : undefined;
    },
    () => `destination ${destinationId} never reached the state: ${JSON.stringify(doc?.destination)}`,
  );
}

beforeAll(async () => {
  runtime = await startTestRuntime({
    clock,
    resolver: dns.resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: SCALE },
    // The tests sweep when they mean to (none does).
    sweepEveryMs: 3_600_000,
    // Its own event source, started once the queue is watched: a long poll already in flight would go unseen.
    deliverWebhooks: false,
  });
  watchQueue(runtime.sqs, runtime.queues.webhookQueueUrl);
  const { Attributes } = await runtime.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: runtime.queues.webhookQueueUrl, AttributeNames: ['QueueArn'] }),
  );
  poller = startDeliveryPoller(runtime.deps, runtime.sqs, Attributes!.QueueArn!, createDeliverer(runtime.deps));
  const counts = new Map<string, number>();
  receiver = await startReceiver({
    secret: (path) => secrets.get(path) ?? '',
    behave: (_n, request) => {
      timeline.push({ kind: 'request', path: request.path });
      const n = (counts.get(request.path) ?? 0) + 1;
      counts.set(request.path, n);
      return answers.get(request.path)?.(n) ?? 404;
    },
  });
});

afterEach(async () => {
  // A fan-out reaches every destination of the group: none outlives its test.
  for (const id of created.splice(0)) await adminApi('DELETE', `/destinations/${id}`);
});

afterAll(async () => {
  await poller?.stop();
  await receiver?.stop();
  await runtime?.stop();
});

describe(`retry policy from the queue's side (${ENGINE_NAME}, time scale ${SCALE})`, () => {
  it('makes exactly five attempts, each wait it hands the queue 30 s or more, base doubling inside [base, 1.5 × base], fresh timestamps, then DEAD_LETTER in the DLQ', async () => {
    // Nominal bounds straight from the contract (30 s minimum, doubling at most five times, 3,600 s cap) and
    // the documented jitter (a draw in [base, 1.5 × base]).
    const contractBounds = (retry: number) => {
      const base = Math.min(30 * 2 ** Math.min(retry - 1, 5), 3_600);
      return { min: base, max: Math.min(Math.floor(base * 1.5), 3_600) };
    };
    for (const retry of [1, 2, 3, 4, 5, 6, 7]) expect(backoffBounds(retry), `retry ${retry}`).toEqual(contractBounds(retry));
    // The clock moves by each retry's longest wait, so every attempt's timestamp is its own.
    const longest = [1, 2, 3, 4].map((n) => contractBounds(n).max);
    const app = await bevqApp();
    const { id } = await destination('retry', app.clientId, {
      answer: (n) => {
        clock.advance((longest[n - 1] ?? 0) * 1000);
        return 503;
      },
    });
    const start = clock.now();
    const { deliveryId, eventId } = await sendTest(id);
    const delivery = await waitForStatus(runtime, deliveryId, FINISHED);
    expect(withOutcome(delivery)).toMatchObject({ status: 'DEAD_LETTER', attempts: 5, lastErrorCode: 'http_503' });

    // Handed to the DLQ once spent.
    const sqs = new SQSClient({
      endpoint: runtime.engines.sqsEndpoint,
      region: 'us-east-1',
      credentials: runtime.engines.credentials,
    });
    let found = false;
    for (let i = 0; i < 100 && !found; i++) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: runtime.queues.webhookDlqUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }),
      );
      found = Messages.some((m) => JSON.parse(m.Body!).deliveryId === deliveryId);
      if (!found) await new Promise((r) => setTimeout(r, 100));
    }
    sqs.destroy();
    expect(found).toBe(true);

    // Requests and visibilities in the order they happened: one wait between each two attempts, none other.
    const seen = timeline.filter((e) => (e.kind === 'request' ? e.path === pathOf('retry') : e.deliveryId === deliveryId));
    const requests = seen.flatMap((e, i) => (e.kind === 'request' ? [i] : []));
    expect(requests).toHaveLength(5);
    const waits = requests.slice(0, -1).map((r, k) => {
      const between = seen.slice(r + 1, requests[k + 1]);
      expect(
        between.map((e) => e.kind),
        `between attempts ${k + 1} and ${k + 2}`,
      ).toEqual(['visibility']);
      return (between[0] as { seconds: number }).seconds;
    });
    waits.forEach((seconds, k) => {
      const { min, max } = contractBounds(k + 1);
      // The queue counts whole seconds: a wait is honest when some nominal wait inside the bounds scales to it.
      const allowed = new Set(Array.from({ length: max - min + 1 }, (_, s) => timings.backoffVisibilitySeconds(min + s)));
      expect(
        [...allowed],
        `retry ${k + 1}: ${seconds} s on the queue (${(seconds / SCALE).toFixed(0)} s nominal), wanted a draw from [${min}, ${max}] s`,
      ).toContain(seconds);
      expect(seconds).toBeGreaterThan(0);
    });
    // The record's draws are the ones the queue was handed.
    expect(waits).toEqual(delivery.backoffHistory.map((s) => timings.backoffVisibilitySeconds(s)));
    // After the fifth failure only the hand-off to the DLQ (visible at once), never another attempt.
    const after = seen.slice(requests[4]! + 1);
    expect(after.length).toBeGreaterThan(0);
    expect(after.every((e) => e.kind === 'visibility' && e.seconds === 0)).toBe(true);

    const got = at('retry');
    expect(got.every((r) => r.verified && r.headers['x-service-event-id'] === eventId)).toBe(true);
    expect(got.map((r) => Number(r.headers['x-service-timestamp']) - Math.floor(start / 1000))).toEqual([0, 45, 135, 315, 675]);
    // Same body every attempt; only timestamp and signature change.
    expect(new Set(got.map((r) => r.rawBody)).size).toBe(1);
    expect(new Set(got.map((r) => r.headers['x-service-signature'])).size).toBe(5);

    const dead = await adminApi('GET', '/dead-letters');
    expect(dead.body.deadLetters).toContainEqual(expect.objectContaining({ deliveryId }));
    const doc = await shown(id);
    expect(doc.destination).toMatchObject({ health: 'FAILING', consecutiveFailures: 5 });
    expect(doc.recentDeliveries).toEqual([
      expect.objectContaining({ deliveryId, status: 'DEAD_LETTER', attempts: 5, errorCode: 'http_503' }),
    ]);
  });
});

describe('coverage at fan-out, through a real menu publish (6.5 rule 3)', () => {
  it('a location-scoped application covers its location; an allowlist only the allowlist; a selection never widens; a group application every current and future location', async () => {
    const located = await bevqApp({ allowedLocationIds: ['denver-union'] });
    const allowlisted = await bevqApp({ allowedLocationIds: ['nyc-midtown', 'london-soho'] });
    const groupWide = await bevqApp();
    const targets = {
      located: (await destination('cov-located', located.clientId)).id,
      allowlisted: (await destination('cov-allowlisted', allowlisted.clientId)).id,
      selected: (await destination('cov-selected', groupWide.clientId, { locationIds: ['nyc-midtown'] })).id,
      all: (await destination('cov-all', groupWide.clientId)).id,
    };
    // A location opened after the destinations were made.
    await fixtureLocation(
      runtime.store,
      {
        groupId: GROUP,
        id: 'harbour-annex',
        name: 'Harbour Annex',
        locationShortName: 'Annex',
        timezone: 'Australia/Sydney',
        slug: 'harbour-annex',
        modulesEnabled: { bevq: true },
      },
      clock.now(),
    );
    const order = ['sydney-harbour', 'harbour-annex', 'london-soho', 'denver-union', 'nyc-midtown'];
    const events = new Map<string, string>();
    for (const [i, location] of order.entries()) events.set((await publish(location, 100 + i)).eventId, location);
    const expected: Record<keyof typeof targets, string[]> = {
      located: ['denver-union'],
      allowlisted: ['london-soho', 'nyc-midtown'],
      selected: ['nyc-midtown'],
      all: [...order],
    };
    const locationsAt = (name: string) => at(name).map((r) => r.body.locationId as string);
    await receiver.waitUntil(
      () => Object.entries(expected).every(([name, want]) => want.every((l) => locationsAt(`cov-${name}`).includes(l))),
      'every covered location at its destination',
    );
    // Each event's deliveries are recorded before any of them is queued, so by now every record exists:
    // exactly the covered ones. Once each is finished, nothing else can reach the receiver.
    for (const [name, id] of Object.entries(targets)) {
      // This test's events only: an earlier test's event whose fan-out was still pending may reach a destination made since.
      const records = (await deliveriesOf(id)).filter((d) => events.has(d.eventId));
      expect(records.map((d) => d.locationId).sort(), name).toEqual([...expected[name as keyof typeof targets]].sort());
      expect(
        records.every((d) => events.get(d.eventId) === d.locationId && d.eventType === 'bevq.menu.updated'),
        name,
      ).toBe(true);
      for (const d of records) await waitForStatus(runtime, d.deliveryId, FINISHED);
    }
    for (const name of Object.keys(targets)) {
      expect(locationsAt(`cov-${name}`).sort(), name).toEqual([...expected[name as keyof typeof targets]].sort());
      expect(
        at(`cov-${name}`).every((r) => r.verified && r.body.eventType === 'bevq.menu.updated'),
        name,
      ).toBe(true);
    }
  });
});

describe('fan-out skips what may not receive (6.5 rule 1, contract 3: a disabled destination gets no new events)', () => {
  it('creates no delivery at all for a disabled destination or an application revoked, expired, without bevq:read or on a legacy bearer credential', async () => {
    const control = await destination('skip-control', (await bevqApp()).clientId);
    const disabled = await destination('skip-disabled', (await bevqApp()).clientId);
    expect((await adminApi('POST', `/destinations/${disabled.id}/disable`)).status).toBe(200);
    const revokedApp = await bevqApp();
    const revoked = await destination('skip-revoked', revokedApp.clientId);
    expect((await adminApi('POST', `/apps/${revokedApp.clientId}/revoke`)).status).toBe(200);
    const expiringApp = await bevqApp({ expiresAt: new Date(clock.now() + 3_600_000).toISOString() });
    const expired = await destination('skip-expired', expiringApp.clientId);
    clock.advance(2 * 3_600_000);
    // The admin API refuses destinations for these two: made as the store would hold them had they been allowed.
    const withoutBevq = await newApp(runtime, { scopes: ['locations:read'] });
    const legacy = (await createApp(runtime.store, { groupId: GROUP, name: 'Legacy', scopes: ['bevq:read'] }, clock.now(), 'legacy_bearer'))
      .app;
    const stored = { withoutBevq: '', legacy: '' };
    for (const [name, clientId] of [
      ['withoutBevq', withoutBevq.clientId],
      ['legacy', legacy.clientId],
    ] as const) {
      const destinationId = `dst_${randomBytes(10).toString('hex')}`;
      await runtime.store.destinations.put(
        storedDestination({ destinationId, clientId, groupId: GROUP, url: urlOf(`skip-${name}`) }, new Date(clock.now()).toISOString()),
        { mustExist: false },
      );
      created.push(destinationId);
      stored[name] = destinationId;
    }

    const { eventId } = await publish('nyc-midtown', 201);
    await receiver.waitUntil(() => at('skip-control').length === 1, 'the control delivery');
    expect(at('skip-control')[0]!.body.eventId).toBe(eventId);
    // The control's record existed before its message was queued, and so did every other record of the event.
    expect((await deliveriesOf(control.id)).map((d) => d.eventId)).toEqual([eventId]);
    for (const [name, id] of Object.entries({ disabled: disabled.id, revoked: revoked.id, expired: expired.id, ...stored })) {
      expect(await deliveriesOf(id), name).toEqual([]);
      expect((await runtime.store.deliveries.history(id, { limit: 10 })).items, name).toEqual([]);
    }
    await waitForStatus(runtime, (await deliveriesOf(control.id))[0].deliveryId, FINISHED);
    expect(receiver.received.filter((r) => r.path.startsWith(pathOf('skip-'))).map((r) => r.path)).toEqual([pathOf('skip-control')]);
  });
});

/**
 * Queues a delivery (`queue` returns its id) whose first attempt fails retryably, holds its retry at the queue while
 * `change` runs, then lets it go: the delivery as the attempt-time checks finish it.
 */
async function retryAfter(
  name: string,
  destinationId: string,
  queue: () => Promise<string>,
  change: () => Promise<void>,
): Promise<Delivery> {
  let open!: () => void;
  retryGates.set(destinationId, new Promise<void>((resolve) => (open = resolve)));
  try {
    const deliveryId = await queue();
    await receiver.waitUntil(() => at(name).length === 1, 'the first attempt');
    await waitForStatus(runtime, deliveryId, ['RETRY_PENDING', ...FINISHED]);
    await change();
    open();
    return await waitForStatus(runtime, deliveryId, FINISHED);
  } finally {
    open();
    retryGates.delete(destinationId);
  }
}

describe('attempt-time re-check (6.6): a queued delivery whose destination or application changed fails without a request', () => {
  const changes: { what: string; code: string; change: (ids: { destinationId: string; clientId: string }) => Promise<void> }[] = [
    {
      what: 'destination disabled',
      code: 'destination_disabled',
      change: async ({ destinationId }) => void expect((await adminApi('POST', `/destinations/${destinationId}/disable`)).status).toBe(200),
    },
    {
      what: 'destination removed',
      code: 'destination_removed',
      change: async ({ destinationId }) => void expect((await adminApi('DELETE', `/destinations/${destinationId}`)).status).toBe(204),
    },
    {
      what: 'application revoked',
      code: 'application_revoked',
      change: async ({ clientId }) => void expect((await adminApi('POST', `/apps/${clientId}/revoke`)).status).toBe(200),
    },
    { what: 'application expired', code: 'application_inactive', change: async () => clock.advance(2 * 3_600_000) },
    {
      what: 'application lost bevq:read',
      code: 'application_without_bevq',
      // No admin operation narrows an application's scopes: changed in the table, as an operator would.
      change: async ({ clientId }) =>
        void (await DynamoDBDocumentClient.from(runtime.dynamo).send(
          new UpdateCommand({
            TableName: runtime.tableName,
            Key: appKeys.app(clientId),
            UpdateExpression: 'SET scopes = :s',
            ExpressionAttributeValues: { ':s': ['locations:read'] },
          }),
        )),
    },
  ];
  for (const [i, { what, code, change }] of changes.entries()) {
    it(`${what} → FAILED (${code}), the receiver sees nothing more`, async () => {
      const name = `recheck-${i}`;
      const app = await bevqApp({ expiresAt: new Date(clock.now() + 3_600_000).toISOString() });
      // A retryable failure first; had the retry gone out it would have succeeded.
      const { id } = await destination(name, app.clientId, { answer: (n) => (n === 1 ? 503 : 200) });
      const delivery = await retryAfter(
        name,
        id,
        async () => (await sendTest(id)).deliveryId,
        () => change({ destinationId: id, clientId: app.clientId }),
      );
      expect(withOutcome(delivery)).toMatchObject({ status: 'FAILED', lastErrorCode: code });
      expect(at(name)).toHaveLength(1);
    });
  }
});

describe('attempt-time coverage (6.5 rule 3 at the attempt)', () => {
  it('a production event for a location the destination no longer covers → FAILED (location_not_covered), the receiver sees nothing more', async () => {
    const name = 'recheck-coverage';
    const app = await bevqApp();
    const { id } = await destination(name, app.clientId, { locationIds: ['nyc-midtown'], answer: (n) => (n === 1 ? 503 : 200) });
    let eventId = '';
    const delivery = await retryAfter(
      name,
      id,
      async () => deliveryIdOf((eventId = (await publish('nyc-midtown', 4_242)).eventId), id),
      // The selection narrowed while the retry waited: the event's location is no longer the destination's.
      async () => void expect((await adminApi('PATCH', `/destinations/${id}`, { locationIds: ['denver-union'] })).status).toBe(200),
    );
    expect((await deliveriesOf(id))[0].eventId).toBe(eventId);
    expect(withOutcome(delivery)).toMatchObject({ status: 'FAILED', lastErrorCode: 'location_not_covered' });
    expect(at(name)).toHaveLength(1);
  });
});

describe('what a destination shows (6.5 rules 5 and 9, contract 3 and 8)', () => {
  it('shows exactly three recent deliveries, the newest, with status and a safe error code', async () => {
    const script: Behaviour[] = [200, 200, 400, 200, 404];
    const { id } = await destination('recent', (await bevqApp()).clientId, { answer: (n) => script[n - 1] ?? 500 });
    const ids: string[] = [];
    for (const _ of script) {
      // Distinct creation times, so "newest" means one thing.
      clock.advance(1_000);
      const { deliveryId } = await sendTest(id);
      await waitForStatus(runtime, deliveryId, FINISHED);
      ids.push(deliveryId);
    }
    const { recentDeliveries } = await shown(id);
    expect(recentDeliveries).toHaveLength(3);
    const byId = new Map(recentDeliveries.map((d) => [d.deliveryId, d]));
    expect(new Set(byId.keys())).toEqual(new Set(ids.slice(2)));
    expect(byId.get(ids[2]!)).toMatchObject({ status: 'FAILED', errorCode: 'http_400' });
    expect(byId.get(ids[3]!)).toMatchObject({ status: 'SUCCEEDED', errorCode: null });
    expect(byId.get(ids[4]!)).toMatchObject({ status: 'FAILED', errorCode: 'http_404' });
    for (const d of recentDeliveries) if (d.errorCode !== null) expect(d.errorCode).toMatch(/^[a-z0-9_]+$/);
    expect(JSON.stringify(recentDeliveries)).not.toContain('receiver body');
  });

  it('keeps the secret through an edit (new name, blank URL); after rotation only the new secret verifies', async () => {
    const { id, secret: original } = await destination('kept', (await bevqApp()).clientId);
    const before = (await shown(id)).destination;
    const edited = await adminApi('PATCH', `/destinations/${id}`, { name: 'Kept renamed', url: '' });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.destination).toMatchObject({ name: 'Kept renamed', url: before.url, hostname: 'hooks.example.test' });
    expect(JSON.stringify(edited.body)).not.toContain(original);

    const first = await sendTest(id);
    await waitForStatus(runtime, first.deliveryId, FINISHED);
    const [signedBefore] = at('kept');
    const check = async (secret: string, r: Received) =>
      (await verifyWebhook(secret, r.headers, r.rawBody, { now: () => Number(r.headers['x-service-timestamp']) * 1000 })).ok;
    expect(signedBefore!.body.eventId).toBe(first.eventId);
    expect(await check(original, signedBefore!)).toBe(true);

    const rotated = await adminApi('POST', `/destinations/${id}/rotate-secret`);
    expect(rotated.status, rotated.text).toBe(200);
    const fresh = rotated.body.signingSecret as string;
    expect(fresh).not.toBe(original);
    secrets.set(pathOf('kept'), fresh);
    const second = await sendTest(id);
    await waitForStatus(runtime, second.deliveryId, FINISHED);
    const signedAfter = at('kept')[1]!;
    expect(signedAfter.body.eventId).toBe(second.eventId);
    expect(await check(fresh, signedAfter)).toBe(true);
    expect(await check(original, signedAfter)).toBe(false);
  });

  it('counts consecutive failures in the destination document and resets them on a success', async () => {
    const script: Behaviour[] = [400, 401, 200, 503];
    const { id } = await destination('health', (await bevqApp()).clientId, { answer: (n) => script[n - 1] ?? 200 });
    expect((await shown(id)).destination).toMatchObject({ health: 'NOT_TESTED', consecutiveFailures: 0 });
    const expectations = [
      { health: 'FAILING', consecutiveFailures: 1, field: 'lastFailureAt' },
      { health: 'FAILING', consecutiveFailures: 2, field: 'lastFailureAt' },
      { health: 'HEALTHY', consecutiveFailures: 0, field: 'lastSuccessAt' },
    ];
    for (const { field, ...want } of expectations) {
      clock.advance(1_000);
      const attemptAt = new Date(clock.now()).toISOString();
      const { deliveryId } = await sendTest(id);
      await waitForStatus(runtime, deliveryId, FINISHED);
      // The health write follows the outcome's: read once it names this attempt's time.
      const { destination: doc } = await shownWhen(id, (d) => d[field] === attemptAt);
      expect(doc, `after the attempt at ${attemptAt}`).toMatchObject(want);
    }
    // A retryable failure counts too, from zero again.
    clock.advance(1_000);
    const attemptAt = new Date(clock.now()).toISOString();
    const { deliveryId } = await sendTest(id);
    await waitForStatus(runtime, deliveryId, ['RETRY_PENDING', ...FINISHED]);
    const { destination: doc } = await shownWhen(id, (d) => d.lastFailureAt === attemptAt);
    expect(doc).toMatchObject({ health: 'FAILING', consecutiveFailures: 1 });
    expect(await waitForStatus(runtime, deliveryId, FINISHED)).toMatchObject({ status: 'SUCCEEDED', attempts: 2 });
    expect((await shownWhen(id, (d) => d.health === 'HEALTHY')).destination.consecutiveFailures).toBe(0);
  });
});

describe('Send test (6.1)', () => {
  it('is refused with a 400 for a location the destination does not cover, and queues nothing', async () => {
    const located = await destination('test-located', (await bevqApp({ allowedLocationIds: ['denver-union'] })).clientId);
    const selected = await destination('test-selected', (await bevqApp()).clientId, { locationIds: ['nyc-midtown'] });
    for (const [target, outside] of [
      [located.id, 'london-soho'],
      [selected.id, 'sydney-harbour'],
    ] as const) {
      const refused = await adminApi('POST', `/destinations/${target}/test`, { locationId: outside });
      expect(refused.status, refused.text).toBe(400);
      expect(refused.text).toContain(`does not cover location ${outside}`);
      expect(await deliveriesOf(target)).toEqual([]);
    }
    // Then a covered one each: it arrives, and it is all that arrives.
    const sent = [await sendTest(located.id, 'denver-union'), await sendTest(selected.id, 'nyc-midtown')];
    for (const s of sent) await waitForStatus(runtime, s.deliveryId, FINISHED);
    expect(at('test-located').map((r) => r.body.locationId)).toEqual(['denver-union']);
    expect(at('test-selected').map((r) => r.body.locationId)).toEqual(['nyc-midtown']);
    expect((await deliveriesOf(located.id)).map((d) => d.deliveryId)).toEqual([sent[0]!.deliveryId]);
    expect((await deliveriesOf(selected.id)).map((d) => d.deliveryId)).toEqual([sent[1]!.deliveryId]);
  });
});
