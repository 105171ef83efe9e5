import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { createHandler } from '#lambdas/discovery/discovery';
import { APP_RATE_CEILING_PER_MINUTE, counterKeys, LEASE_MS, rateWindow, STRANDED_SHARE } from '#data/rate-counters';
import type { Deps } from '#platform/deps';
import { RATE_WARNING_FRACTION } from '#platform/config';
import type { LocalRuntime } from '#local/runtime';
import { API_HOST, apiGatewayEvent } from '../support/api-gateway.js';
import { ENGINE_NAME, exchange, manualClock, newApp, setRateLimit, startTestRuntime } from '../support/runtime.js';

/**
 * Leased quota with several function instances racing on one application, on the suite's engine. Each instance
 * is its own handler (`createHandler`), as Lambda builds one per instance: its leases are its own, the table and
 * the clock are shared. Requests go in steps: every instance takes one request at a time, as a Lambda instance
 * does, and the instances' requests of a step run at once against the engine.
 */
let runtime: LocalRuntime;
const clock = manualClock(Date.UTC(2026, 10, 22, 9, 0, 0));
const PATH = '/v1/demo-group/locations';
const context = { functionName: 'discovery', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

beforeAll(async () => {
  runtime = await startTestRuntime({ clock, sweepEveryMs: 24 * 3_600_000 });
});
afterAll(() => runtime?.stop());

/** What one instance did: its claims (units asked, and whether they fitted), refusals numbered, owner mail queued. */
type Instance = {
  call(token: string): Promise<{ status: number; headers: Record<string, string> }>;
  claims: { units: number; fitted: boolean }[];
  refusals: number;
  mail: { key: string; at: number }[];
};

function instance(admittedSoFar: () => number): Instance {
  const claims: Instance['claims'] = [];
  const mail: Instance['mail'] = [];
  const store = runtime.deps.store;
  const self: Instance = {
    claims,
    refusals: 0,
    mail,
    call: async (token) => {
      // Lambda hands every invocation a context of its own.
      const reply = await handler(event(token), { ...context });
      return { status: reply.statusCode, headers: reply.headers as Record<string, string> };
    },
  };
  const deps: Deps = {
    ...runtime.deps,
    store: {
      ...store,
      rateCounters: {
        ...store.rateCounters,
        claim: async (...args) => {
          const total = await store.rateCounters.claim(...args);
          claims.push({ units: args[2], fitted: total !== null });
          return total;
        },
        refusal: (...args) => {
          self.refusals++;
          return store.rateCounters.refusal(...args);
        },
      },
      mailOutbox: {
        ...store.mailOutbox,
        queue: (key, ...rest) => {
          mail.push({ key, at: admittedSoFar() });
          return store.mailOutbox.queue(key, ...rest);
        },
      },
    },
  };
  const handler = createHandler(deps);
  return self;
}

const event = (token: string) =>
  apiGatewayEvent('GET', '/v1/{group_id}/locations', PATH, {
    headers: { Host: API_HOST, 'X-Forwarded-Proto': 'https', Authorization: `Bearer ${token}` },
  });

async function application(rateLimitPerMinute: number) {
  const app = await newApp(runtime, { rateLimitPerMinute, ownerEmail: 'owner@tenant.example' });
  const { access_token } = await exchange(runtime, app.clientId, app.clientSecret);
  return { clientId: app.clientId, token: access_token };
}

/** The start of a UTC minute after the clock's: each test has windows of its own. */
function nextMinute(): number {
  const w = rateWindow(clock.now());
  clock.set(w.endMs + 60_000);
  return clock.now();
}

type Outcome = { status: number; remaining: number; admittedBefore: number; by: number };

/**
 * Steps of one request from each instance, `stepMs` apart on the clock. `admitted` counts 200s across all
 * instances as they complete; each outcome records it as it was when the request started.
 */
async function race(instances: Instance[], token: string, steps: number, stepMs: number, counter: { admitted: number }) {
  const outcomes: Outcome[] = [];
  for (let step = 0; step < steps; step++) {
    await Promise.all(
      instances.map(async (inst, by) => {
        const admittedBefore = counter.admitted;
        const reply = await inst.call(token);
        if (reply.status === 200) counter.admitted++;
        outcomes.push({ status: reply.status, remaining: Number(reply.headers['RateLimit-Remaining']), admittedBefore, by });
      }),
    );
    clock.advance(stepMs);
  }
  return outcomes;
}

const warnAt = (limit: number) => Math.ceil(limit * RATE_WARNING_FRACTION);

// Hundreds of requests a test on a shared machine: generous time, no timing asserted.
describe(`leased quota, several instances racing on one application (${ENGINE_NAME})`, () => {
  it('admits at most the limit in a minute, strands at most 1 % of it, warns once at 80 % of admitted requests and mails one exceeded', async () => {
    const limit = 1_000;
    const { clientId, token } = await application(limit);
    const start = nextMinute();
    const counter = { admitted: 0 };
    const instances = Array.from({ length: 4 }, () => instance(() => counter.admitted));
    // 4 instances, a request each every 8 ms: 500 a second, the minute's quota gone in about 2 s, then refusals.
    const outcomes = await race(instances, token, 350, 8, counter);
    expect(rateWindow(clock.now()).start).toBe(rateWindow(start).start);

    const admitted = outcomes.filter((o) => o.status === 200).length;
    const refused = outcomes.filter((o) => o.status === 429).length;
    expect(admitted + refused).toBe(outcomes.length);
    expect(admitted).toBeLessThanOrEqual(limit);
    // Refused while quota remained somewhere: the units never used, at most the stranded share of the limit.
    const strandedWhileRefusing = Math.min(refused, limit - admitted);
    console.log(
      `${ENGINE_NAME}: ${admitted} admitted of ${limit}, ${refused} refused, ${strandedWhileRefusing} of them while units were left in leases`,
    );
    expect(refused).toBeGreaterThan(0);
    expect(strandedWhileRefusing).toBeLessThanOrEqual(limit * STRANDED_SHARE);

    // Claims: no lease passed the limit (the count never did), and far fewer writes than requests.
    const claims = instances.flatMap((i) => i.claims);
    expect(claims.filter((c) => c.fitted).reduce((sum, c) => sum + c.units, 0)).toBeLessThanOrEqual(limit);
    const count = await counterItem(clientId, start);
    expect(count.count).toBeLessThanOrEqual(limit);
    // Racing at twice its limit's pace, the application still writes far fewer times than it is admitted.
    console.log(`${ENGINE_NAME}: ${claims.length} claims for ${admitted} admitted requests`);
    expect(claims.length).toBeLessThan(admitted / 2);

    // Remaining: never more than the limit less what this instance admitted, falling at each instance; 0 on a 429.
    for (const [by] of instances.entries()) {
      const own = outcomes.filter((o) => o.by === by);
      let admittedHere = 0;
      let last = limit;
      for (const o of own) {
        if (o.status === 200) admittedHere++;
        expect(o.remaining).toBeLessThanOrEqual(Math.max(0, limit - admittedHere));
        expect(o.remaining).toBeLessThanOrEqual(last);
        last = o.remaining;
        if (o.status === 429) expect(o.remaining).toBe(0);
      }
    }
    // Nor more than is left by more than other instances claimed since this one's last claim (their leases: about
    // the stranded share), and the requests of the same step still in flight.
    const over = Math.max(...outcomes.filter((x) => x.status === 200).map((o) => o.remaining - (limit - o.admittedBefore - 1)));
    console.log(`${ENGINE_NAME}: RateLimit-Remaining at most ${over} above what was left`);
    expect(over).toBeLessThanOrEqual(limit * STRANDED_SHARE + instances.length);

    // Exactly one warning, queued as the admitted requests reached 80 %, and one exceeded, whatever the refusals.
    const mail = instances.flatMap((i) => i.mail);
    const warnings = mail.filter((m) => m.key.endsWith('#warning'));
    expect(warnings).toHaveLength(1);
    // Short of the mark by at most the units unused in other leases and the step's requests still in flight. Leases
    // hold about the stranded share, plus the one unit a lease always holds: each instance sizes its lease by its
    // share as its last two claims saw it, so while paces shift the shares can add up to more than 1 for a moment
    // (seen 19 off under load); twice the share bounds them.
    expect(Math.abs(warnings[0]!.at - warnAt(limit))).toBeLessThanOrEqual(2 * limit * STRANDED_SHARE + 2 * instances.length);
    expect(mail.filter((m) => m.key.endsWith('#exceeded'))).toHaveLength(1);
    // Each instance numbered one refusal at most, then refused from memory.
    for (const i of instances) expect(i.refusals).toBeLessThanOrEqual(1);
    expect(count.refused).toBe(instances.filter((i) => i.refusals).length);
  });

  it(`counts at most 100 writes per 1,000 admitted requests at a steady rate`, async () => {
    const { token } = await application(APP_RATE_CEILING_PER_MINUTE);
    nextMinute();
    const counter = { admitted: 0 };
    const instances = Array.from({ length: 2 }, () => instance(() => counter.admitted));
    // 2 instances at 25 requests a second each for 20 s.
    const outcomes = await race(instances, token, 500, 40, counter);
    expect(outcomes.every((o) => o.status === 200)).toBe(true);
    const writes = instances.reduce((sum, i) => sum + i.claims.length + i.refusals, 0);
    const perThousand = (writes / counter.admitted) * 1000;
    console.log(`${ENGINE_NAME}: ${writes} counter writes for ${counter.admitted} admitted requests: ${perThousand.toFixed(1)} per 1,000`);
    expect(perThousand).toBeLessThanOrEqual(100);
  });

  it('strands at most a crashed instance’s own lease', async () => {
    const limit = 1_000;
    const { token } = await application(limit);
    nextMinute();
    const counter = { admitted: 0 };
    const [crashing, ...others] = Array.from({ length: 3 }, () => instance(() => counter.admitted));
    // One instance serves alone a while, so it holds a lease of several units; then it stops answering for good.
    await race([crashing!], token, 30, 10, counter);
    const heldAtCrash = crashing!.claims.at(-1)!.units;
    expect(heldAtCrash).toBeGreaterThan(1);
    await race(others, token, 520, 10, counter);
    expect(counter.admitted).toBeLessThanOrEqual(limit);
    expect(limit - counter.admitted).toBeLessThanOrEqual(heldAtCrash);
  });

  it('lets a lease live at most LEASE_MS and die with its window', async () => {
    const { clientId, token } = await application(60_000);
    nextMinute();
    const counter = { admitted: 0 };
    const inst = instance(() => counter.admitted);
    await race([inst], token, 30, 20, counter);
    const claimsBefore = inst.claims.length;
    expect(inst.claims.at(-1)!.units).toBeGreaterThan(2);
    // One more request within the lease's life: served from it, no claim.
    expect((await inst.call(token)).status).toBe(200);
    expect(inst.claims).toHaveLength(claimsBefore);
    // Past its life the lease's units are gone: the next request claims.
    clock.advance(LEASE_MS);
    expect((await inst.call(token)).status).toBe(200);
    expect(inst.claims).toHaveLength(claimsBefore + 1);

    // A lease taken in a window's last instant ends with it: the next minute's first request claims in the new window.
    const next = rateWindow(clock.now()).endMs;
    clock.set(next - 5);
    expect((await inst.call(token)).status).toBe(200);
    const atEnd = inst.claims.length;
    clock.set(next);
    const first = await inst.call(token);
    expect(first.status).toBe(200);
    expect(inst.claims).toHaveLength(atEnd + 1);
    expect((await counterItem(clientId, next)).count).toBe(inst.claims.at(-1)!.units);
  });

  it('binds a lowered limit on the next request, whatever the lease holds, and a raised one likewise', async () => {
    const { clientId, token } = await application(60_000);
    nextMinute();
    const counter = { admitted: 0 };
    const inst = instance(() => counter.admitted);
    await race([inst], token, 30, 20, counter);
    const held = inst.claims.at(-1)!.units;
    expect(held).toBeGreaterThan(2);
    // The operator lowers the limit below what this window has already counted: the lease's units no longer admit.
    await setRateLimit(runtime, clientId, 10);
    const refused = await inst.call(token);
    expect(refused.status).toBe(429);
    expect(refused.headers['RateLimit-Limit']).toBe('10');
    expect(refused.headers['Retry-After']).toBe(String(rateWindow(clock.now()).resetSeconds));
    const claims = inst.claims.length;
    expect((await inst.call(token)).status).toBe(429);
    expect(inst.claims).toHaveLength(claims); // refused from memory
    // Raised again: the next request claims under the new limit and is admitted.
    await setRateLimit(runtime, clientId, 60_000);
    expect((await inst.call(token)).status).toBe(200);
  });

  it('refuses a revoked application on its next request, though its instance holds a lease', async () => {
    const { clientId, token } = await application(60_000);
    nextMinute();
    const counter = { admitted: 0 };
    const inst = instance(() => counter.admitted);
    await race([inst], token, 30, 20, counter);
    expect(inst.claims.at(-1)!.units).toBeGreaterThan(2);
    await runtime.deps.store.apps.revoke(clientId, new Date(clock.now()).toISOString());
    expect((await inst.call(token)).status).toBe(403);
  });
});

async function counterItem(clientId: string, at: number): Promise<{ count: number; refused: number }> {
  const { Item } = await DynamoDBDocumentClient.from(runtime.dynamo).send(
    new GetCommand({ TableName: runtime.tableName, Key: counterKeys.counter('API', clientId, rateWindow(at).start), ConsistentRead: true }),
  );
  return { count: Number(Item?.count ?? 0), refused: Number(Item?.refused ?? 0) };
}
