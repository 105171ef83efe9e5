import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDestination, sendTest } from '#lambdas/webhooks/destination-operations';
import { backoffBounds } from '#lambdas/webhooks/delivery-policy';
import type { LocalRuntime } from '#local/runtime';
import { admin, runtimeFileFor } from '../fixtures/admin-cli.js';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { expectUnchanged, manualClock, newApp, scanTable, startTestRuntime } from '../support/runtime.js';

/** Dead-letter operations through the admin CLI (a real subprocess) against a real local runtime. */

let runtime: LocalRuntime;
let dir: string;
let runtimeFile: string;
const clock = manualClock();
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';

beforeAll(async () => {
  runtime = await startTestRuntime({
    clock,
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: 0.02 },
  });
  dir = mkdtempSync(join(tmpdir(), 'dlq-'));
  runtimeFile = runtimeFileFor(runtime, dir, 'runtime.json');
  // Five failures dead-letter the first delivery; after that the receiver is healthy again.
  receiver = await startReceiver({ secret: () => secret, behave: (n) => (n <= 5 ? 503 : 200) });
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('npm run admin -- dlq', () => {
  it('lists, shows and redrives a dead-lettered delivery, which then succeeds', async () => {
    const app = await newApp(runtime, { scopes: ['bevq:read'] });
    const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Flaky', url: receiver.url });
    secret = created.signingSecret;
    const { deliveryId, eventId } = await sendTest(runtime.deps, created.destination.destinationId, 'nyc-midtown');
    await waitForStatus(runtime, deliveryId, ['DEAD_LETTER']);
    clock.advance(90_000);

    let listed = await admin(runtimeFile, ['dlq', 'list', '--json']);
    // The redrive policy moves the message on the poller's next receive.
    for (let i = 0; i < 40 && listed.json?.dlqMessages !== 1; i++) {
      await new Promise((r) => setTimeout(r, 100));
      listed = await admin(runtimeFile, ['dlq', 'list', '--json']);
    }
    expect(listed.code).toBe(0);
    expect(listed.json.dlqMessages).toBe(1);
    expect(listed.json.deadLetters).toEqual([
      expect.objectContaining({
        deliveryId,
        groupId: 'demo-group',
        eventId,
        eventType: 'customer_api.webhook.test',
        destinationHost: 'hooks.example.test',
        attempts: 5,
        lastErrorCode: 'http_503',
        // The CLI reads its own (system) clock; the runtime's clock is the test's.
        ageSeconds: expect.any(Number),
        deadSince: new Date(clock.now() - 90_000).toISOString(),
      }),
    ]);
    const text = await admin(runtimeFile, ['dlq', 'list']);
    expect(text.stdout).toContain(deliveryId);
    expect(text.stdout).toMatch(/hooks\.example\.test\s+5\s+http_503\s+\d+[smh]\n/);

    const shown = await admin(runtimeFile, ['dlq', 'show', deliveryId, '--json']);
    expect(shown.json.deadLetter).toMatchObject({ deliveryId, locationId: 'nyc-midtown' });
    // Jittered waits: each within its retry's bounds, never the exact schedule pinned.
    expect(shown.json.deadLetter.backoffSeconds).toHaveLength(4);
    shown.json.deadLetter.backoffSeconds.forEach((wait: number, i: number) => {
      expect(wait).toBeGreaterThanOrEqual(backoffBounds(i + 1).min);
      expect(wait).toBeLessThanOrEqual(backoffBounds(i + 1).max);
    });
    expect(shown.json.deadLetter.payload).toMatchObject({ eventId, test: true, revision: '' });

    const redriven = await admin(runtimeFile, ['dlq', 'redrive', deliveryId, '--json']);
    expect(redriven.code).toBe(0);
    expect(redriven.json).toEqual({ redriven: [deliveryId], removedMessages: 1, pages: 1 });
    const delivered = await waitForStatus(runtime, deliveryId, ['SUCCEEDED', 'DEAD_LETTER', 'FAILED']);
    // Its attempts started over (a sixth attempt of the old count would have been refused): one, or two when a loaded
    // machine let the first answer arrive after its (scaled) 200 ms; every attempt is a request the receiver saw.
    expect(delivered).toMatchObject({ status: 'SUCCEEDED', redrives: 1 });
    expect(delivered.attempts).toBeLessThanOrEqual(2);
    expect(receiver.received).toHaveLength(5 + delivered.attempts);
    expect(receiver.received.every((r) => r.verified)).toBe(true);

    const after = await admin(runtimeFile, ['dlq', 'list', '--json']);
    expect(after.json).toEqual({ deadLetters: [], dlqMessages: 0 });
  });

  it('refuses a redrive without exactly one target, of an unknown id, or of a live delivery, changing nothing', async () => {
    // The audit trail aside: a redrive of all records the ask, even when it found nothing.
    const table = async () => (await scanTable(runtime)).filter((item) => !String(item.PK).startsWith('AUDIT#'));
    const before = await table();
    for (const args of [
      ['dlq', 'redrive'],
      ['dlq', 'redrive', 'dlv_x'],
      ['dlq', 'redrive', `dlv_${'0'.repeat(32)}`],
      ['dlq', 'redrive', `dlv_${'0'.repeat(32)}`, '--all'],
    ]) {
      const run = await admin(runtimeFile, args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^error: /);
      expect(run.stdout).toBe('');
    }
    const all = await admin(runtimeFile, ['dlq', 'redrive', '--all', '--json']);
    expect(all.json).toEqual({ redriven: [], removedMessages: 0, pages: 1 });
    expectUnchanged(await table(), before);
  });
});
