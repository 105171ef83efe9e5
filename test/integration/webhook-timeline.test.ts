import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';
import type { LocalRuntime } from '#local/runtime';
import type { TimelineEntry } from '#lambdas/webhooks/delivery-policy';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { DELIVERY_POLICY } from '#lambdas/webhooks/delivery-policy';
import { admin, runtimeFileFor } from '../fixtures/admin-cli.js';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver, type Behaviour } from '../fixtures/webhook-receiver.js';
import { adminCall, newApp, scanTable, startTestRuntime } from '../support/runtime.js';

/**
 * A delivery's story, as the deliverer records it in the record it writes at each attempt and as ops read it
 * over the admin API and the CLI: each attempt's start, code, duration and next attempt, its redrives, bounded;
 * never a response body. Real deliverer, real HTTPS receiver, the policy's waits scaled down.
 */
let runtime: LocalRuntime;
let dir: string;
let runtimeFile: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** What the receiver answers each destination's path, by request count on that path. */
const answers = new Map<string, (n: number) => Behaviour>();
const seen = new Map<string, number>();
let clientId: string;

beforeAll(async () => {
  runtime = await startTestRuntime({
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    // 0.02: attempts time out after 200 ms (a loaded machine answers within it), the four backoffs take under 14 s.
    config: { webhookAllowLoopback: true, webhookTimeScale: SEQUENCE_SCALE },
  });
  dir = mkdtempSync(join(tmpdir(), 'webhook-timeline-'));
  runtimeFile = runtimeFileFor(runtime, dir, 'runtime.json');
  receiver = await startReceiver({
    secret: () => '',
    behave: (_n, request) => {
      const n = (seen.get(request.path) ?? 0) + 1;
      seen.set(request.path, n);
      return answers.get(request.path)?.(n) ?? 200;
    },
  });
  ({ clientId } = await newApp(runtime, { scopes: ['bevq:read'] }));
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function destinationAnswering(path: string, answer: (n: number) => Behaviour) {
  answers.set(path, answer);
  const { destination } = await addDestination(runtime.deps, {
    clientId,
    name: `Hook ${path}`,
    url: `https://hooks.example.test:${receiver.port}${path}`,
  });
  return destination.destinationId;
}

async function sendTest(destinationId: string): Promise<{ deliveryId: string; eventId: string }> {
  const queued = await adminCall(runtime, 'POST', `/destinations/${destinationId}/test`, { locationId: 'nyc-midtown' });
  expect(queued.status, queued.text).toBe(202);
  return queued.body;
}

const codes = (timeline: TimelineEntry[]) => timeline.map((e) => `${e.attempt ?? e.kind} ${e.code ?? '-'} ${e.status}`);
const NEVER_STORED = 'receiver body that must never be stored';

describe('a delivery timeline', () => {
  // The two sequences side by side: each has its own destination and receiver path.
  it.concurrent(
    'fails four times, then succeeds: each attempt with its start, code, duration and next attempt, read by delivery and by event',
    async () => {
      const destinationId = await destinationAnswering('/four-then-ok', (n) => (n <= 4 ? 503 : 200));
      const { deliveryId, eventId } = await sendTest(destinationId);
      const record = await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER']);

      const shown = await adminCall(runtime, 'GET', `/deliveries/${deliveryId}`);
      expect(shown.status, shown.text).toBe(200);
      const story = shown.body.delivery;
      expect(story).toMatchObject({
        deliveryId,
        eventId,
        destinationId,
        destinationName: 'Hook /four-then-ok',
        status: 'SUCCEEDED',
        attempts: 5,
      });
      expect(codes(story.timeline)).toEqual([
        '1 http_503 RETRY_PENDING',
        '2 http_503 RETRY_PENDING',
        '3 http_503 RETRY_PENDING',
        '4 http_503 RETRY_PENDING',
        '5 http_200 SUCCEEDED',
      ]);
      const timeline = story.timeline as TimelineEntry[];
      const requests = receiver.received.filter((r) => r.path === '/four-then-ok');
      timeline.forEach((e, i) => {
        // Each entry's start comes before its request reached the receiver, its outcome after.
        expect(Date.parse(e.at)).toBeLessThanOrEqual(requests[i]!.at);
        expect(e.ms).toEqual(expect.any(Number));
        expect(Date.parse(e.at) + e.ms!).toBeGreaterThanOrEqual(requests[i]!.at);
        // A retry names when the next attempt is due: its outcome's time plus the wait drawn for it (nominal
        // seconds, as the record keeps them; this runtime's queue waits them scaled down).
        if (i < 4) expect(Date.parse(e.next!)).toBe(Date.parse(e.at) + e.ms! + record.backoffHistory[i]! * 1000);
        else expect(e.next).toBeNull();
      });
      expect(shown.text).not.toContain(NEVER_STORED);

      const byEvent = await adminCall(runtime, 'GET', `/deliveries?eventId=${eventId}`);
      expect(byEvent.status, byEvent.text).toBe(200);
      expect(byEvent.body.deliveries).toEqual([story]);

      const cli = await admin(runtimeFile, ['deliveries', 'show', deliveryId]);
      expect(cli.code, cli.stderr).toBe(0);
      expect(cli.stdout).toMatch(/^#\s+AT\s+STEP\s+CODE\s+STATUS\s+DURATION\s+NEXT ATTEMPT$/m);
      expect(cli.stdout).toMatch(
        new RegExp(
          `^4\\s+${timeline[3]!.at}\\s+attempt\\s+http_503\\s+RETRY_PENDING\\s+${timeline[3]!.ms} ms\\s+${timeline[3]!.next}$`,
          'm',
        ),
      );
      expect(cli.stdout).toMatch(/^5\s+\S+\s+attempt\s+http_200\s+SUCCEEDED\s+\d+ ms\s+-$/m);
      // An event with one delivery (a Send test): its story too.
      expect((await admin(runtimeFile, ['deliveries', 'show', eventId])).stdout).toBe(cli.stdout);
    },
  );

  it.concurrent('dead-lettered after five, redriven, then delivered: both rounds, `dlq show` and the record, never a body', async () => {
    let up = false;
    const destinationId = await destinationAnswering('/dead-then-redriven', () => (up ? 200 : 503));
    const { deliveryId } = await sendTest(destinationId);
    await waitForStatus(runtime, deliveryId, ['DEAD_LETTER', 'SUCCEEDED', 'FAILED']);

    const dlq = await admin(runtimeFile, ['dlq', 'show', deliveryId, '--json']);
    expect(dlq.code, dlq.stderr).toBe(0);
    expect(codes(dlq.json.deadLetter.timeline)).toEqual([
      ...Array.from({ length: DELIVERY_POLICY.attempts - 1 }, (_, i) => `${i + 1} http_503 RETRY_PENDING`),
      '5 http_503 DEAD_LETTER',
    ]);
    const dlqText = await admin(runtimeFile, ['dlq', 'show', deliveryId]);
    expect(dlqText.stdout).toMatch(/^5\s+\S+\s+attempt\s+http_503\s+DEAD_LETTER\s+\d+ ms\s+-$/m);

    up = true;
    expect((await admin(runtimeFile, ['dlq', 'redrive', deliveryId])).code).toBe(0);
    await waitForStatus(runtime, deliveryId, ['SUCCEEDED']);
    const { body } = await adminCall(runtime, 'GET', `/deliveries/${deliveryId}`);
    expect(body.delivery).toMatchObject({ status: 'SUCCEEDED', redrives: 1, attempts: 1 });
    expect(codes(body.delivery.timeline)).toEqual([
      ...Array.from({ length: DELIVERY_POLICY.attempts - 1 }, (_, i) => `${i + 1} http_503 RETRY_PENDING`),
      '5 http_503 DEAD_LETTER',
      'redrive - PENDING',
      '1 http_200 SUCCEEDED',
    ]);
    // Nowhere in the table: the receiver's answers are read for their status line only.
    expect(JSON.stringify(await scanTable(runtime))).not.toContain(NEVER_STORED);
  });

  it("lists an event's deliveries, one per destination, a page at a time", async () => {
    const ids = [await destinationAnswering('/menu-a', () => 200), await destinationAnswering('/menu-b', () => 200)];
    const published = await adminCall(
      runtime,
      'PUT',
      '/menus/demo-group/nyc-midtown',
      (await import('#local/demo-menu')).sampleMenu({ price: 33 }),
    );
    expect(published.status, published.text).toBe(200);
    const { eventId } = published.body;
    const first = await adminCall(runtime, 'GET', `/deliveries?eventId=${eventId}&limit=1`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.deliveries).toHaveLength(1);
    const second = await adminCall(
      runtime,
      'GET',
      `/deliveries?eventId=${eventId}&limit=100&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    const all = [...first.body.deliveries, ...second.body.deliveries];
    // Every destination the app has covering the location: these two and the earlier ones, once each.
    expect(new Set(all.map((d) => d.destinationId)).size).toBe(all.length);
    expect(all.map((d) => d.destinationId)).toEqual(expect.arrayContaining(ids));
    expect(all.every((d) => d.eventId === eventId)).toBe(true);
    const listed = await admin(runtimeFile, ['deliveries', 'show', eventId, '--json']);
    expect(listed.json.deliveries.map((d: { deliveryId: string }) => d.deliveryId).sort()).toEqual(all.map((d) => d.deliveryId).sort());
  });

  it('an unknown or malformed delivery or event id: 404 or 400 in the error shape, and the CLI exits 2', async () => {
    const missing = `dlv_${'0'.repeat(32)}`;
    const unknownEvent = `evt_${'0'.repeat(32)}`;
    for (const [path, status, code, message] of [
      [`/deliveries/${missing}`, 404, 'not_found', `delivery ${missing} does not exist`],
      [`/deliveries?eventId=${unknownEvent}`, 404, 'not_found', `event ${unknownEvent} has no delivery`],
      ['/deliveries/dlv_nope', 400, 'invalid_request', 'a delivery id looks like dlv_ followed by 32 hex digits'],
      ['/deliveries?eventId=evt_nope', 400, 'invalid_request', 'eventId: an event id looks like evt_'],
    ] as const) {
      const answer = await adminCall(runtime, 'GET', path);
      expect(answer.status, path).toBe(status);
      expect(answer.body.error, path).toMatchObject({ code, message: expect.stringContaining(message) });
    }
    for (const id of [missing, unknownEvent]) {
      const run = await admin(runtimeFile, ['deliveries', 'show', id]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/^error: (delivery|event) \S+ (does not exist|has no delivery)/);
    }
  });
});
