import { describe, expect, it } from 'vitest';
import { addDestination, sendTest } from '#lambdas/webhooks/destination-operations';
import { listDeadLetters } from '#lambdas/webhooks/dead-letter-operations';
import { redrive } from '#lambdas/webhooks/dead-letters';
import { DELIVERY_POLICY } from '#lambdas/webhooks/delivery-policy';
import { AdminNotFoundError } from '#domain/inputs';
import { enqueueDeliveries } from '#lambdas/webhooks/messages';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { dlqDeliveryIds, runFault, type FaultRun } from '../fixtures/webhook-faults.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';
import { ENGINE_NAME, newApp, startTestRuntime } from '../support/runtime.js';

/**
 * Faults injected on the webhook path, each on a runtime of its own, on the
 * scaled clock (SEQUENCE_SCALE: every wait of the delivery policy at a twentieth, in whole seconds where SQS counts
 * seconds).
 * Every test asserts the final state of every (event, destination): zero
 * lost, zero dead letters missing from `dlq list`, and duplicates only where
 * the receiver had already accepted the event (same event id). Under load an
 * attempt may time out on its own and add a retry, so counts of attempts and
 * requests are bounds, never exact.
 */

const run = (fault: Parameters<typeof runFault>[0]) =>
  runFault(fault, { start: startTestRuntime, events: 2, destinations: 2, scale: SEQUENCE_SCALE });

function expectNothingLost({ tally, finals }: FaultRun) {
  expect(tally, JSON.stringify(finals, null, 1)).toMatchObject({ published: 4, lost: 0, invisible: 0, failed: 0 });
  expect(tally.delivered + tally.deadLettered).toBe(tally.published);
}

function expectDelivered({ finals }: FaultRun) {
  for (const f of finals) {
    expect(f, f.deliveryId).toMatchObject({ status: 'SUCCEEDED', reason: null, listed: false, inDlq: false });
    expect(f.verified, f.deliveryId).toBeGreaterThan(0);
    expect(f.attempts, f.deliveryId).toBeLessThanOrEqual(DELIVERY_POLICY.attempts);
  }
}

// Wasted receives each wait out a (scaled) visibility timeout: some runs take a while.
describe.concurrent(`webhook faults (${ENGINE_NAME})`, () => {
  it('a receiver that never answers: every attempt the policy allows times out, then DEAD_LETTER, listed and in the DLQ', async () => {
    const result = await run('never-answers');
    expectNothingLost(result);
    for (const f of result.finals) {
      expect(f, f.deliveryId).toMatchObject({
        status: 'DEAD_LETTER',
        attempts: DELIVERY_POLICY.attempts,
        reason: 'attempts_exhausted',
        listed: true,
        inDlq: true,
        accepted: 0,
      });
      expect(f.requests).toBeLessThanOrEqual(DELIVERY_POLICY.attempts);
    }
  });

  it('a receiver that answers after the timeout: retried and delivered; the late-accepted copy is a documented duplicate', async () => {
    const result = await run('answers-late');
    expectNothingLost(result);
    expectDelivered(result);
    for (const f of result.finals) {
      expect(f.attempts, f.deliveryId).toBeGreaterThanOrEqual(2);
      expect(f.accepted, f.deliveryId).toBeGreaterThanOrEqual(2);
    }
    expect(result.tally.duplicates).toBe(result.finals.reduce((n, f) => n + f.accepted - 1, 0));
  });

  it('kill -9 of the deliverer mid-batch, then a new one: interrupted attempts are counted and retried, nothing is lost', async () => {
    const result = await run('kill-9');
    expectNothingLost(result);
    expectDelivered(result);
    // Every first attempt was in flight when the process died: each carrier came back and was retried.
    for (const f of result.finals) expect(f.attempts, f.deliveryId).toBeGreaterThanOrEqual(2);
    for (const f of result.finals) expect(f.accepted - 1, f.deliveryId).toBeLessThanOrEqual(f.attempts - 1);
  });

  it('throttled, init-failed and duplicated invocations: receives spent without attempts never use one up', async () => {
    const result = await run('throttled-and-failed');
    expectNothingLost(result);
    for (const f of result.finals) {
      if (f.status === 'SUCCEEDED') {
        // 503 then 200: at most one request per attempt, so duplicated invocations never doubled one.
        expect(f, f.deliveryId).toMatchObject({ listed: false, inDlq: false });
        expect(f.attempts).toBeGreaterThanOrEqual(2);
        expect(f.requests).toBeLessThanOrEqual(f.attempts);
      } else {
        // Receives ran out first: still listed, with the reason, and the status it had.
        expect(f, f.deliveryId).toMatchObject({ reason: 'receives_exhausted', listed: true, inDlq: true });
      }
    }
  });

  it('a redrive racing the retry that carries the spent message to the DLQ: queued exactly once, delivered, DLQ left empty', async () => {
    const result = await run('redrive-race');
    expectNothingLost(result);
    expectDelivered(result);
    for (const f of result.finals) {
      // One redrive applied (the other answered 409), and its attempts are the only ones after the policy's first run of them.
      expect(f, f.deliveryId).toMatchObject({ redrives: 1 });
      expect(f.requests, f.deliveryId).toBeLessThanOrEqual(DELIVERY_POLICY.attempts + f.attempts);
    }
  });

  it('a secret rotated between attempts: the next attempt is signed with the new secret', async () => {
    const result = await run('secret-rotated');
    expectNothingLost(result);
    expectDelivered(result);
  });

  it('receives spent without an attempt: the sweeper lists the message as receives_exhausted, status kept; a redrive delivers it; a message without a record is listed too', async () => {
    // Every invocation throttled until the message has gone to the DLQ: a shorter scale, as each of maxReceiveCount
    // receives waits out a visibility (4 s); its steps (200 ms) need only one delivered attempt of the redrive's.
    const faults = { throttled: 1 };
    const runtime = await startTestRuntime({
      resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
      config: { webhookAllowLoopback: true, webhookTimeScale: 0.02 },
      webhookFaults: faults,
    });
    let secret = '';
    const receiver = await startReceiver({ secret: () => secret });
    try {
      const app = await newApp(runtime, { scopes: ['bevq:read'] });
      const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Throttled', url: receiver.url });
      secret = created.signingSecret;
      const { deliveryId } = await sendTest(runtime.deps, created.destination.destinationId, 'nyc-midtown');
      // A message whose record cannot be read is retried, never taken as done: it too ends in the DLQ.
      const orphan = `dlv_${'0'.repeat(32)}`;
      await enqueueDeliveries(runtime.deps, [
        { deliveryId: orphan, destinationId: created.destination.destinationId, clientId: app.clientId, redrives: 0, requeues: 0 },
      ]);
      for (let ids = await dlqDeliveryIds(runtime); !ids.has(deliveryId) || !ids.has(orphan); ids = await dlqDeliveryIds(runtime)) {
        await new Promise((r) => setTimeout(r, 200));
      }

      const expected = { deliveryId, reason: 'receives_exhausted', status: 'PENDING', attempts: 0 };
      const missing = { deliveryId: orphan, reason: 'record_missing', status: null, eventId: null };
      await runtime.sweep();
      expect((await listDeadLetters(runtime.deps)).deadLetters).toEqual(
        expect.arrayContaining([expect.objectContaining(expected), expect.objectContaining(missing)]),
      );
      expect(await runtime.store.deliveries.get(deliveryId)).toMatchObject({
        status: 'PENDING',
        attempts: 0,
        deadLetterReason: 'receives_exhausted',
      });
      // A listing lost (say, a crash before the marker write) comes back on the next sweep.
      await runtime.store.deliveries.unmarkDeadLetter(deliveryId);
      await runtime.sweep();
      expect((await listDeadLetters(runtime.deps)).deadLetters).toContainEqual(expect.objectContaining(expected));
      expect(receiver.received).toHaveLength(0);

      faults.throttled = 0;
      await expect(redrive(runtime.deps, { deliveryId: orphan })).rejects.toBeInstanceOf(AdminNotFoundError);
      expect(await redrive(runtime.deps, { deliveryId })).toEqual({ redriven: [deliveryId], removedMessages: 1 });
      expect(await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'])).toMatchObject({
        status: 'SUCCEEDED',
        redrives: 1,
      });
      expect(await listDeadLetters(runtime.deps)).toEqual({ deadLetters: [expect.objectContaining(missing)], dlqMessages: 1 });
      expect(receiver.received.every((r) => r.verified)).toBe(true);
    } finally {
      await receiver.stop();
      await runtime.stop();
    }
  });
});
