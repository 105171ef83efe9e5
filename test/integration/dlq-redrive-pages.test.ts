import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand, SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_POLICY, scaledTimings } from '#lambdas/webhooks/delivery-policy';
import { markerOf, newDelivery, type Delivery } from '#lambdas/webhooks/deliveries';
import type { Destination } from '#lambdas/webhooks/destinations';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { listAudit } from '#lambdas/admin/audit';
import { redrive, REDRIVE_PAGE, redrivePage } from '#lambdas/webhooks/dead-letters';
import { parseDeliveryMessage } from '#lambdas/webhooks/messages';
import { startEngines, type Engines } from '#local/engines';
import { startDeliveryPoller, type LocalRuntime } from '#local/runtime';
import { createDeliverer } from '#lambdas/webhooks/deliver';
import { startDelayProxy, type DelayProxy } from '#bench/delay-proxy';
import { admin as adminCli, runtimeFileFor } from '../fixtures/admin-cli.js';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, newApp, startTestRuntime, TEST_DYNAMODB_ENDPOINT, adminCall } from '../support/runtime.js';
import { eventually } from '../support/eventually.js';

/**
 * "Redrive all" in pages, each inside the admin function's timeout, against
 * an engine a delaying proxy slows down (bench/delay-proxy.ts): every
 * DynamoDB request waits DELAY_MS, and each page must answer inside the
 * function timeout the local gateway enforces (10 s, scaled by
 * HTTP_TIMEOUT_SCALE here; a call that cannot is a 500, the last test). The
 * run spans several pages of REDRIVE_PAGE.size. And the redrive race (the message
 * arrives before its record says it carries the delivery), asserted by what
 * the deliverer saw: its receives' counts and the visibility it set.
 */

// The policy's own timings, an attempt's 10 s among them: 200 deliveries at once beside a full run's other suites must
// not time one out (at 0.25, 2.5 s an attempt, some did, and were retried); this test is about receives, not timeouts.
const SCALE = 1;
// The admin function's timeout doubled (20 s): a page budgets by the time left, and under load a wave, the removal
// pass or the audit write ran past the 10 s a page had (a 500 at 10.5 s); the rule tested is the same at any timeout.
const HTTP_TIMEOUT_SCALE = 2;
const DELAY_MS = 50;
const DEAD_LETTERS = 200;
const timings = scaledTimings(SCALE);

let engines: Engines;
let proxy: DelayProxy;
let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret = '';
let destination: Destination;
let dir: string;
let poller: { stop(): Promise<void> };

/** What the deliverer did on the webhook queue: each receive of a message (with SQS's count) and each visibility it set. */
type Seen = {
  receives: { messageId: string; deliveryId: string; redrive: number; count: number; handle: string }[];
  visibility: { handle: string; seconds: number }[];
};
const seen: Seen = { receives: [], visibility: [] };
const onVisibility: ((handle: string) => void)[] = [];

function watchQueue(sqs: SQSClient, queueUrl: string) {
  sqs.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const input = args.input as Record<string, any>;
      if (input.QueueUrl !== queueUrl) return result;
      if (context.commandName === 'ReceiveMessageCommand') {
        for (const m of ((result.output as any).Messages ?? []) as any[]) {
          const message = parseDeliveryMessage(m.Body ?? '');
          if (!message) continue;
          const count = Number(m.Attributes?.ApproximateReceiveCount);
          seen.receives.push({
            messageId: m.MessageId,
            deliveryId: message.deliveryId,
            redrive: message.redrive,
            count,
            handle: m.ReceiptHandle,
          });
        }
      }
      if (context.commandName === 'ChangeMessageVisibilityCommand') {
        seen.visibility.push({ handle: input.ReceiptHandle, seconds: input.VisibilityTimeout });
        onVisibility.forEach((f) => f(input.ReceiptHandle));
      }
      return result;
    },
    { step: 'initialize', name: 'watch-webhook-queue' },
  );
}

/** `n` deliveries dead-lettered after their five attempts, listed, each with its carrier's copy in the DLQ. */
async function seedDeadLetters(n: number): Promise<Delivery[]> {
  const delay = proxy.delayMs;
  proxy.delayMs = 0;
  try {
    const now = runtime.deps.clock.now();
    const records = Array.from({ length: n }, (_, i) =>
      newDelivery(
        {
          eventId: `evt_${randomHex()}`,
          eventType: 'customer_api.webhook.test',
          occurredAt: new Date(now).toISOString(),
          groupId: 'demo-group',
          locationId: 'nyc-midtown',
          revision: `r${i}`,
        },
        destination,
        now,
      ),
    );
    const dead: Delivery[] = [];
    for (let i = 0; i < records.length; i += 10) {
      const batch = records.slice(i, i + 10);
      const { Successful = [] } = await runtime.sqs.send(
        new SendMessageBatchCommand({
          QueueUrl: runtime.queues.webhookDlqUrl,
          Entries: batch.map((d, k) => ({
            Id: String(k),
            MessageBody: JSON.stringify({
              deliveryId: d.deliveryId,
              redrive: 0,
              requeue: 0,
              destinationId: d.destinationId,
              clientId: d.clientId,
            }),
          })),
        }),
      );
      expect(Successful).toHaveLength(batch.length);
      for (const sent of Successful) {
        const d = batch[Number(sent.Id)]!;
        dead.push({
          ...d,
          status: 'DEAD_LETTER',
          attempts: 5,
          backoffHistory: [31, 66, 150, 300],
          timeline: [{ kind: 'attempt', attempt: 5, at: d.createdAt, status: 'DEAD_LETTER', code: 'http_503', ms: 80, next: null }],
          carrier: sent.MessageId!,
          attemptReceive: 5,
          deadLetterReason: 'attempts_exhausted',
        });
      }
    }
    for (let i = 0; i < dead.length; i += 25) {
      await Promise.all(
        dead.slice(i, i + 25).map(async (d) => {
          expect(await runtime.store.deliveries.create(d)).toBe(true);
          await runtime.store.deliveries.markDeadLetter(markerOf(d, 'attempts_exhausted'));
        }),
      );
    }
    return dead;
  } finally {
    proxy.delayMs = delay;
  }
}

const randomHex = () => [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');

const adminApi = (path: string, body: unknown) => adminCall(runtime, body === undefined ? 'GET' : 'POST', path, body);

/** Leaves no dead letter and no message behind a test that failed half-way, so the next starts clean. */
async function clearLeftovers(): Promise<void> {
  proxy.delayMs = 0;
  let cursor: string | undefined;
  do cursor = (await redrivePage(runtime.deps, cursor ? { cursor } : {})).nextCursor;
  while (cursor);
  for (let i = 0; i < 120; i++) {
    const { Attributes = {} } = await runtime.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: runtime.queues.webhookQueueUrl,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    if (Number(Attributes.ApproximateNumberOfMessages) + Number(Attributes.ApproximateNumberOfMessagesNotVisible) === 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await sweepUntilDlqEmpty();
}

/** Every delivery once finished (read a few times a second, not a poll each at once). */
async function allFinished(deliveries: readonly Delivery[]): Promise<Delivery[]> {
  const finished = new Map<string, Delivery>();
  await eventually(
    async () => {
      const open = deliveries.filter((d) => !finished.has(d.deliveryId));
      for (let i = 0; i < open.length; i += 50) {
        const read = await Promise.all(open.slice(i, i + 50).map((d) => runtime.store.deliveries.get(d.deliveryId)));
        for (const d of read) if (d && ['SUCCEEDED', 'FAILED', 'DEAD_LETTER'].includes(d.status)) finished.set(d.deliveryId, d);
      }
      return finished.size === deliveries.length ? true : undefined;
    },
    () => `${deliveries.length - finished.size} deliveries not finished`,
  );
  return deliveries.map((d) => finished.get(d.deliveryId)!);
}

async function dlqDepth(): Promise<number> {
  const depth = await runtime.deps.queue.dlq.depth();
  return depth.visible + depth.inFlight;
}

/** The sweeper deletes the DLQ copies a page's removal pass did not reach (they are no longer their delivery's carrier). */
async function sweepUntilDlqEmpty(): Promise<void> {
  const delay = proxy.delayMs;
  proxy.delayMs = 0;
  try {
    for (let i = 0; i < 40 && (await dlqDepth()) > 0; i++) {
      await runtime.sweep();
      if ((await dlqDepth()) > 0) await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    proxy.delayMs = delay;
  }
}

beforeAll(async () => {
  engines = await startEngines({ dataDir: null, dynamoEndpoint: TEST_DYNAMODB_ENDPOINT });
  proxy = await startDelayProxy(engines.dynamoEndpoint);
  runtime = await startTestRuntime({
    engines: { ...engines, dynamoEndpoint: proxy.url },
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: SCALE },
    httpTimeoutScale: HTTP_TIMEOUT_SCALE,
    // The test sweeps when it means to.
    sweepEveryMs: 3_600_000,
    // Its own event source, started once the queue is watched: a long poll already in flight would go unseen.
    deliverWebhooks: false,
    logLevel: (process.env.DEBUG_LOG as 'ERROR' | undefined) ?? 'SILENT',
  });
  watchQueue(runtime.sqs, runtime.queues.webhookQueueUrl);
  const { Attributes } = await runtime.sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: runtime.queues.webhookQueueUrl, AttributeNames: ['QueueArn'] }),
  );
  poller = startDeliveryPoller(runtime.deps, runtime.sqs, Attributes!.QueueArn!, createDeliverer(runtime.deps));
  receiver = await startReceiver({ secret: () => secret, behave: () => 200 });
  const app = await newApp(runtime, { scopes: ['bevq:read'] });
  const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Back again', url: receiver.url, locationIds: null });
  secret = created.signingSecret;
  destination = (await runtime.store.destinations.get(created.destination.destinationId))!;
  dir = mkdtempSync(join(tmpdir(), 'dlq-pages-'));
});

afterAll(async () => {
  await receiver?.stop();
  await poller?.stop();
  await runtime?.stop();
  await proxy?.close();
  await engines?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`redrive all in pages (${ENGINE_NAME}, every engine request delayed ${DELAY_MS} ms, admin timeout ${10 * HTTP_TIMEOUT_SCALE} s)`, () => {
  it(`redrives ${DEAD_LETTERS} dead letters page by page: never a 500, each once, each page audited, each delivered on its first receive or after one look-again`, async () => {
    const dead = await seedDeadLetters(DEAD_LETTERS);
    expect(await dlqDepth()).toBe(DEAD_LETTERS);
    proxy.delayMs = DELAY_MS;
    const auditBefore = (await listAudit(runtime.deps, { limit: 1000 })).entries.filter(
      (e) => e.operation === 'redriveAllDeadLetters',
    ).length;

    const pages: { status: number; redriven: number; more: boolean; ms: number }[] = [];
    const redriven: string[] = [];
    let removed = 0;
    let cursor: string | undefined;
    do {
      const began = Date.now();
      const page = await adminApi('/dead-letters/redrive', cursor ? { cursor } : {});
      pages.push({
        status: page.status,
        redriven: page.body?.redriven?.length ?? -1,
        more: Boolean(page.body?.nextCursor),
        ms: Date.now() - began,
      });
      expect(page.status, JSON.stringify(pages.at(-1))).toBe(200);
      redriven.push(...page.body.redriven);
      removed += page.body.removedMessages;
      cursor = page.body.nextCursor;
      expect(pages.length).toBeLessThan(100);
    } while (cursor);

    // Never more than a page's worth at once; each answered 200 inside the enforced timeout (a page past it is a 500).
    expect(pages.every((p) => p.redriven <= REDRIVE_PAGE.size)).toBe(true);
    expect(pages.length).toBeGreaterThanOrEqual(DEAD_LETTERS / REDRIVE_PAGE.size);
    // Every dead letter exactly once.
    expect(redriven).toHaveLength(DEAD_LETTERS);
    expect(new Set(redriven)).toEqual(new Set(dead.map((d) => d.deliveryId)));
    // One audit entry per page (each a request that changed something).
    const audit = (await listAudit(runtime.deps, { limit: 1000 })).entries.filter((e) => e.operation === 'redriveAllDeadLetters');
    expect(audit.length - auditBefore).toBe(pages.length);
    expect(new Set(audit.map((e) => e.requestId)).size).toBe(audit.length);

    // Delivered: one attempt each, the first after the redrive.
    proxy.delayMs = 0;
    const records = await allFinished(dead);
    const astray = records.filter(
      (d) => !(d.status === 'SUCCEEDED' && d.attempts === 1 && d.redrives === 1 && d.deadLetterReason === null),
    );
    expect(astray.map((d) => ({ status: d.status, attempts: d.attempts, redrives: d.redrives, timeline: d.timeline }))).toEqual([]);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-event-id'])).size).toBe(DEAD_LETTERS);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    expect((await adminApi('/dead-letters', undefined)).body.deadLetters).toEqual([]);

    // The race, from what the deliverer saw: each carrier attempted on its first receive, or on its second after a
    // look-again of the policy's few seconds; never a receive that waited out the visibility timeout.
    const lookAgains = expectReceivesOf(records);
    // The old copies: the pages' removal passes took most; the sweeper deletes the rest (no longer carriers).
    await sweepUntilDlqEmpty();
    expect(await dlqDepth()).toBe(0);
    console.log(
      `${ENGINE_NAME}: ${pages.length} pages (${pages.map((p) => p.redriven).join(', ')}), slowest ${Math.max(...pages.map((p) => p.ms))} ms; ` +
        `${removed} DLQ copies removed by the pages; ${lookAgains} look-again(s)`,
    );
  });

  it('the race, forced: the message is received before its redrive record is written; the deliverer looks again after the policy’s few seconds and attempts on the second receive', async () => {
    await clearLeftovers();
    const [d] = await seedDeadLetters(1);
    // Hold the redrive's record write (the conditional put naming its new carrier) until the deliverer has
    // received the new message and set its visibility: the order the race needs, whatever the timing.
    let lookedAgain!: () => void;
    const looked = new Promise<void>((resolve) => (lookedAgain = resolve));
    const early = (handle: string) => {
      if (seen.receives.some((r) => r.handle === handle && r.deliveryId === d!.deliveryId && r.redrive === 1)) lookedAgain();
    };
    onVisibility.push(early);
    const holdWrite = 'hold-redrive-write';
    runtime.dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        const item = (args.input as any).Item;
        const plain = (v: any) => (v && typeof v === 'object' && ('S' in v || 'N' in v) ? (v.S ?? Number(v.N)) : v);
        if (
          context.commandName === 'PutItemCommand' &&
          item &&
          plain(item.deliveryId) === d!.deliveryId &&
          plain(item.redrives) === 1 &&
          plain(item.status) === 'PENDING'
        ) {
          // Bounded, so a deliverer that never looks fails the assertions below rather than hanging the test.
          await Promise.race([looked, new Promise((r) => setTimeout(r, 20_000))]);
        }
        return next(args);
      },
      { step: 'initialize', name: holdWrite },
    );
    try {
      expect(await redrive(runtime.deps, { deliveryId: d!.deliveryId })).toMatchObject({ redriven: [d!.deliveryId] });
    } finally {
      runtime.dynamo.middlewareStack.remove(holdWrite);
      onVisibility.splice(onVisibility.indexOf(early), 1);
    }
    const done = await waitForStatus(runtime, d!.deliveryId, ['SUCCEEDED', 'FAILED', 'DEAD_LETTER']);
    expect(done).toMatchObject({ status: 'SUCCEEDED', attempts: 1, redrives: 1, attemptReceive: 2 });
    const receives = seen.receives.filter((r) => r.messageId === done.carrier);
    expect(receives.map((r) => r.count)).toEqual([1, 2]);
    // The first receive set the look-again (the policy's, on this time scale), not the visibility timeout; the second attempted.
    expect(seen.visibility.filter((v) => receives.some((r) => r.handle === v.handle)).map((v) => v.seconds)).toEqual([
      timings.lookAgainVisibilitySeconds,
    ]);
    expect(timings.lookAgainVisibilitySeconds).toBeLessThan(timings.visibilityTimeoutSeconds);
    expect(DELIVERY_POLICY.lookAgainSeconds).toBeLessThan(scaledTimings(1).visibilityTimeoutSeconds);
    await sweepUntilDlqEmpty();
  });

  it('cuts a page short when its time is spent: one wave, a cursor from where it began, and the run goes on to the end', async () => {
    await clearLeftovers();
    const dead = await seedDeadLetters(60);
    const sizes: number[] = [];
    let cursor: string | undefined;
    do {
      // No time left at all: the page still makes its first wave, and hands back where to go on.
      const page = await redrivePage(runtime.deps, cursor ? { cursor } : {}, () => 0);
      sizes.push(page.redriven.length);
      cursor = page.nextCursor;
    } while (cursor && sizes.length < 10);
    expect(sizes).toEqual([REDRIVE_PAGE.parallel, REDRIVE_PAGE.parallel, 60 - 2 * REDRIVE_PAGE.parallel]);
    expect((await allFinished(dead)).every((d) => d.status === 'SUCCEEDED' && d.redrives === 1)).toBe(true);
    await sweepUntilDlqEmpty();
  });

  it('the CLI runs redrive all to the end, a page at a time, one progress line per page', async () => {
    await clearLeftovers();
    const dead = await seedDeadLetters(REDRIVE_PAGE.size + 30);
    const run = await adminCli(runtimeFileFor(runtime, dir, 'runtime.json'), ['dlq', 'redrive', '--all', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(new Set(run.json.redriven)).toEqual(new Set(dead.map((d) => d.deliveryId)));
    // Two pages, or more when the admin function's time runs short on a busy machine (a page is then cut short).
    const lines = run.stderr.trim().split('\n');
    expect(run.json.pages).toBeGreaterThanOrEqual(2);
    expect(lines).toHaveLength(run.json.pages);
    let sofar = 0;
    lines.forEach((line: string, i: number) => {
      const [, page, queued, total, goingOn] = /^page (\d+): (\d+) queued again \((\d+) so far\)(; going on)?$/.exec(line) ?? [];
      sofar += Number(queued);
      expect([Number(page), Number(total), Boolean(goingOn)], line).toEqual([i + 1, sofar, i < lines.length - 1]);
      expect(Number(queued), line).toBeLessThanOrEqual(REDRIVE_PAGE.size);
    });
    expect(sofar).toBe(REDRIVE_PAGE.size + 30);
    expect((await allFinished(dead)).every((d) => d.status === 'SUCCEEDED')).toBe(true);
    await sweepUntilDlqEmpty();
  });

  it('enforces the admin function timeout: a call that cannot finish in it answers 500', async () => {
    proxy.delayMs = 10 * 1000 * HTTP_TIMEOUT_SCALE + 500;
    try {
      const slow = await adminApi('/dead-letters', undefined);
      // middy ends the handler just before the context's remaining time runs out (the shell's 500), as in Lambda;
      // the gateway's own 500 stands behind it.
      expect(slow.status).toBe(500);
    } finally {
      proxy.delayMs = 0;
    }
  });
});

/**
 * Per redriven delivery, from the deliverer's side of the queue: its carrier's receives were counted 1, or 1
 * then 2; the attempt started on the last of them (the record's attemptReceive); every receive before it set
 * the look-again visibility and nothing else. Returns how many look-agains there were.
 */
function expectReceivesOf(records: Delivery[]): number {
  let lookAgains = 0;
  for (const d of records) {
    const receives = seen.receives.filter((r) => r.messageId === d.carrier);
    const counts = receives.map((r) => r.count);
    expect([[1], [1, 2]], `${d.deliveryId}: ${JSON.stringify(counts)}`).toContainEqual(counts);
    expect(d.attemptReceive).toBe(counts.at(-1));
    for (const early of receives.slice(0, -1)) {
      expect(seen.visibility.filter((v) => v.handle === early.handle).map((v) => v.seconds)).toEqual([timings.lookAgainVisibilitySeconds]);
      lookAgains++;
    }
  }
  return lookAgains;
}
