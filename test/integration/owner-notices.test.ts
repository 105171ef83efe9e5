import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_NOTICE_GAP_MS } from '#lambdas/webhooks/destinations';
import { deliveryIdOf } from '#lambdas/webhooks/messages';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, newApp, sentMail, startTestRuntime, adminCall } from '../support/runtime.js';

/**
 * Failure notices to an application's owner, through the real deliverer against a real HTTPS receiver and the
 * local SES: one when a destination starts dead-lettering production events (at most one a day), one when a
 * production delivery succeeds again; test deliveries never count. The mails carry the safe hostname only.
 */
const SCALE = 0.02;
const OWNER = 'owner@example.com';
let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let answer = 503;
const secrets = new Map<string, string>();
let clientId = '';
let revision = 0;

const adminApi = (method: string, path: string, body?: unknown) => adminCall(runtime, method, path, body);

/** A destination on its own path, which carries what a receiver's URL may: a path and a query the mails must not show. */
async function destination(name: string): Promise<string> {
  const reply = await adminApi('POST', '/destinations', {
    clientId,
    name,
    url: `${receiver.url}/private-${name}?key=query-${name}`,
    locationIds: ['nyc-midtown'],
  });
  expect(reply.status).toBe(201);
  secrets.set(new URL(`${receiver.url}/private-${name}?key=query-${name}`).pathname + `?key=query-${name}`, reply.body.signingSecret);
  return reply.body.destination.destinationId;
}

/** A new menu revision at nyc-midtown: one production event, a delivery for each destination. */
async function publish(): Promise<string> {
  const reply = await adminApi('PUT', '/menus/demo-group/nyc-midtown', sampleMenu({ price: 1_000 + ++revision }));
  expect(reply.status).toBe(200);
  return reply.body.eventId;
}

/** What the sweeper sent from the outbox, with the notices picked out. */
async function notices() {
  await runtime.sweep();
  const mails = (await sentMail(runtime)).filter((m) => m.to.includes(OWNER));
  return {
    failing: mails.filter((m) => m.subject.includes('is failing')),
    recovered: mails.filter((m) => m.subject.includes('receives events again')),
    all: mails,
  };
}

beforeAll(async () => {
  runtime = await startTestRuntime({
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: SCALE },
    // The test sweeps when it means to.
    sweepEveryMs: 3_600_000,
  });
  receiver = await startReceiver({ secret: (path) => secrets.get(path) ?? '', behave: () => answer });
  clientId = (await newApp(runtime, { scopes: ['bevq:read'], ownerEmail: OWNER })).clientId;
});
afterAll(async () => {
  await receiver?.stop();
  await runtime?.stop();
});

describe(`owner failure notices (${ENGINE_NAME})`, () => {
  let failing = '';

  it('tells the owner once when a destination starts dead-lettering production events, never for a test delivery, with the hostname only', async () => {
    const quiet = await destination('quiet');
    failing = await destination('failing');
    // A test delivery dead-lettered at the first destination: no notice (6.5 rule 8 keeps Send test silent).
    const test = await adminApi('POST', `/destinations/${quiet}/test`, { locationId: 'nyc-midtown' });
    expect(test.status).toBe(202);
    await waitForStatus(runtime, test.body.deliveryId, ['DEAD_LETTER']);
    await adminApi('POST', `/destinations/${quiet}/disable`, {});
    // Two production events dead-lettered at the second, the same day: one notice.
    const events = [await publish(), await publish()];
    const dead = await Promise.all(events.map((e) => waitForStatus(runtime, deliveryIdOf(e, failing), ['DEAD_LETTER'])));
    expect(dead.map((d) => d.attempts)).toEqual([5, 5]);

    const { failing: sent, all } = await notices();
    expect(sent).toHaveLength(1);
    const [mail] = sent;
    expect(mail!.subject).toBe('Customer API: webhook destination "failing" is failing');
    expect(mail!.text).toContain(`${failing} ("failing", host hooks.example.test)`);
    expect(dead.some((d) => mail!.text.includes(d.deliveryId))).toBe(true);
    // Never the path, the query or a secret; and nothing about the destination whose only dead letter was a test.
    for (const m of all) {
      expect(m.text).not.toMatch(/private-|query-/);
      for (const secret of secrets.values()) expect(m.text).not.toContain(secret);
    }
    expect(all.some((m) => m.subject.includes('"quiet" is failing'))).toBe(false);
  });

  it('tells the owner once when a production delivery succeeds again; a successful test delivery does not', async () => {
    answer = 200;
    const test = await adminApi('POST', `/destinations/${failing}/test`, { locationId: 'nyc-midtown' });
    await waitForStatus(runtime, test.body.deliveryId, ['SUCCEEDED']);
    expect((await notices()).recovered).toHaveLength(0);

    const delivered = await waitForStatus(runtime, deliveryIdOf(await publish(), failing), ['SUCCEEDED']);
    // Signed with the destination's secret, as every delivery.
    expect(
      receiver.received.filter((r) => r.path.includes('private-failing') && r.body?.eventId === delivered.eventId).every((r) => r.verified),
    ).toBe(true);
    const { recovered } = await notices();
    expect(recovered).toHaveLength(1);
    expect(recovered[0]!.subject).toBe('Customer API: webhook destination "failing" receives events again');
    expect(recovered[0]!.text).toContain(delivered.deliveryId);
    // A further success tells nothing more.
    await waitForStatus(runtime, deliveryIdOf(await publish(), failing), ['SUCCEEDED']);
    expect((await notices()).recovered).toHaveLength(1);
  });

  it('tells the owner at most once a day: the failing mark holds for a day from the notice', async () => {
    const now = runtime.deps.clock.now();
    expect(await runtime.store.destinations.noteFailing(failing, now, FAILURE_NOTICE_GAP_MS)).toBe(false);
    expect(await runtime.store.destinations.noteFailing(failing, now + FAILURE_NOTICE_GAP_MS, FAILURE_NOTICE_GAP_MS)).toBe(true);
  });
});
