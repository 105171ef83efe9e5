import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { call, exchange, manualClock, rateCount, sentMail, setRateLimit, startTestRuntime, tokenFor } from '../support/runtime.js';

let runtime: LocalRuntime;
// 20 s into a UTC minute: 40 s until the window resets.
const clock = manualClock(Date.UTC(2026, 10, 22, 15, 30, 20));

beforeAll(async () => {
  // The sweeper runs only when a test says so: on its real-time schedule it could send the alerts before the test looks for none.
  runtime = await startTestRuntime({ clock, sweepEveryMs: 24 * 3_600_000 });
});
afterAll(() => runtime?.stop());

const PATH = '/v1/demo-group/locations';

describe('per-application rate limit', () => {
  it('counts every token of the application against one quota per UTC minute', async () => {
    const app = await tokenFor(runtime, { rateLimitPerMinute: 5, ownerEmail: 'ops@tenant.example' });
    const second = (await exchange(runtime, app.clientId, app.clientSecret)).access_token;
    const remaining: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reply = await call(runtime, PATH, { token: i % 2 ? second : app.token });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('ratelimit-limit')).toBe('5');
      expect(reply.headers.get('ratelimit-reset')).toBe('40');
      expect(reply.headers.get('ratelimit-policy')).toBe('5;w=60');
      expect(reply.headers.get('retry-after')).toBeNull();
      remaining.push(reply.headers.get('ratelimit-remaining')!);
    }
    expect(remaining).toEqual(['4', '3', '2', '1', '0']);

    for (const token of [app.token, second, app.token]) {
      const limited = await call(runtime, PATH, { token });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toBe('40');
      expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    }

    // One warning at 80 % (the 4th request) and one exceeded alert, however many throttled requests follow.
    // Requests only queue them: the sweeper (every minute) sends them, off the request path.
    expect((await sentMail(runtime)).filter((m) => m.to.includes('ops@tenant.example'))).toEqual([]);
    await runtime.sweep();
    const mail = (await sentMail(runtime)).filter((m) => m.to.includes('ops@tenant.example'));
    expect(mail.map((m) => m.subject).sort()).toEqual([
      'Customer API: application Test app exceeded its rate limit',
      'Customer API: application Test app reached 80% of its rate limit',
    ]);
    expect(mail.map((m) => m.text).join('\n')).not.toContain(app.token);

    // The next UTC minute starts a fresh window, and alerts may fire once again.
    clock.advance(40_000);
    const fresh = await call(runtime, PATH, { token: second });
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('ratelimit-remaining')).toBe('4');
    expect(fresh.headers.get('ratelimit-reset')).toBe('60');
  });

  it('never counts past the limit, writes nothing for requests refused once the function has found the window full, and still refuses them', async () => {
    const app = await tokenFor(runtime, { rateLimitPerMinute: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await call(runtime, PATH, { token: app.token })).status);
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
    // Two admitted requests were counted; the claim that did not fit changed nothing, and the three after it were refused from memory.
    expect(await rateCount(runtime, app.clientId)).toBe(2);
    // A raised limit takes effect within the window: the window full under the old limit no longer refuses, and the request is counted.
    await setRateLimit(runtime, app.clientId, 10);
    expect((await call(runtime, PATH, { token: app.token })).status).toBe(200);
    expect(await rateCount(runtime, app.clientId)).toBe(3);
  });

  it('keeps applications independent', async () => {
    const busy = await tokenFor(runtime, { rateLimitPerMinute: 1 });
    const quiet = await tokenFor(runtime, { rateLimitPerMinute: 1 });
    expect((await call(runtime, PATH, { token: busy.token })).status).toBe(200);
    expect((await call(runtime, PATH, { token: busy.token })).status).toBe(429);
    expect((await call(runtime, PATH, { token: quiet.token })).status).toBe(200);
  });

  it('does not count unauthenticated requests against anyone', async () => {
    const app = await tokenFor(runtime, { rateLimitPerMinute: 2 });
    for (let i = 0; i < 5; i++) expect((await call(runtime, PATH, { token: 'x'.repeat(43) })).status).toBe(401);
    expect((await call(runtime, PATH, { token: app.token })).headers.get('ratelimit-remaining')).toBe('1');
  });
});

// Contract 8: "one warning when usage first reaches 80%". The 80 % is the contract's number, written here, not the code's.
describe('the 80 % warning', () => {
  const warningsTo = async (owner: string) => {
    await runtime.sweep();
    return (await sentMail(runtime)).filter((m) => m.to.includes(owner) && m.subject.includes('reached 80% of its rate limit')).length;
  };
  const admit = async (token: string, n: number, remaining: number[] = []) => {
    for (let i = 0; i < n; i++) {
      const reply = await call(runtime, PATH, { token });
      expect(reply.status).toBe(200);
      remaining.push(Number(reply.headers.get('ratelimit-remaining')));
    }
    return remaining;
  };

  it('mails nothing up to 79 %, one warning at the request that reaches 80 %, none more after the limit and refusals, with leases of several units', async () => {
    // 200 a minute: 160 requests are 80 %; a lease holds up to 1 % of the limit, two units here.
    const owner = 'eighty@tenant.example';
    const app = await tokenFor(runtime, { rateLimitPerMinute: 200, ownerEmail: owner });
    // 159 requests: 79 % and the last one below the mark.
    const remaining = await admit(app.token, 159);
    expect(await warningsTo(owner)).toBe(0);
    // No lease reaches past the last unit below the mark: the unit at 80 % is claimed by the request that uses it.
    expect(await rateCount(runtime, app.clientId)).toBe(159);
    await admit(app.token, 1, remaining);
    expect(await warningsTo(owner)).toBe(1);

    await admit(app.token, 40, remaining);
    for (let i = 0; i < 3; i++) expect((await call(runtime, PATH, { token: app.token })).status).toBe(429);
    expect(await warningsTo(owner)).toBe(1);
    // Leases were in play: an answer's Remaining fell by two at once, the units its instance claimed and holds.
    const drops = remaining.slice(1).map((r, i) => remaining[i]! - r);
    expect(drops).toContain(2);
    expect(remaining.at(-1)).toBe(0);
  });

  it('at a limit whose 80 % falls between requests, warns at the first request past it', async () => {
    // 7 a minute: the 5th request is 71 %, the 6th 86 %.
    const owner = 'seven@tenant.example';
    const app = await tokenFor(runtime, { rateLimitPerMinute: 7, ownerEmail: owner });
    await admit(app.token, 5);
    expect(await warningsTo(owner)).toBe(0);
    await admit(app.token, 1);
    expect(await warningsTo(owner)).toBe(1);
  });
});
