import { describe, expect, it } from 'vitest';
import { type QueuedMail, MAIL_TRIES } from '#data/mail-outbox';
import type { MessagingDeps } from '#lambdas/webhooks/deps';
import { oneLineSubject, sendMail, sendQueuedMail } from '#platform/mailer';

/** MessagingDeps whose mailer, logger, metrics and outbox record what happens. */
function world(fail: boolean, pending: QueuedMail[] = [], suppressed: string[] = []) {
  const seen = {
    sent: [] as string[],
    logs: [] as unknown[][],
    metrics: [] as string[],
    done: [] as string[],
    failed: [] as string[],
    checks: [] as string[][],
  };
  const deps = {
    mailer: {
      async send(mail: { to: string }) {
        if (fail) throw Object.assign(new Error(`554 Message rejected: address not verified: ${mail.to}`), { name: 'MessageRejected' });
        seen.sent.push(mail.to);
      },
    },
    logger: {
      info: (...a: unknown[]) => seen.logs.push(a),
      warn: (...a: unknown[]) => seen.logs.push(a),
      error: (...a: unknown[]) => seen.logs.push(a),
    },
    metrics: { addMetric: (name: string) => seen.metrics.push(name) },
    store: {
      mailSuppressions: {
        async suppressed(addresses: string[]) {
          seen.checks.push(addresses);
          return new Set(addresses.map((a) => a.toLowerCase()).filter((a) => suppressed.includes(a)));
        },
      },
      mailOutbox: {
        pending: async () => pending,
        done: async (key: string) => void seen.done.push(key),
        failed: async (key: string) => void seen.failed.push(key),
      },
    },
  } as unknown as MessagingDeps;
  return { deps, seen };
}

const MAIL = { to: 'owner@tenant.example', subject: 'Customer API: secret-ish subject', text: 'body with sk_live_123' };

describe('sendMail', () => {
  it('sends, and says so', async () => {
    const { deps, seen } = world(false);
    expect(await sendMail(deps, MAIL, 'destination-created')).toBe(true);
    expect(seen).toMatchObject({ sent: [MAIL.to], metrics: [], logs: [] });
  });

  it('counts MailFailed and logs what it was for and the error name, never the address, subject, text or message', async () => {
    const { deps, seen } = world(true);
    expect(await sendMail(deps, MAIL, 'destination-created')).toBe(false);
    expect(seen.metrics).toEqual(['MailFailed']);
    expect(seen.logs).toEqual([['owner mail not sent', { purpose: 'destination-created', error: 'MessageRejected' }]]);
    const logged = JSON.stringify(seen.logs);
    for (const secret of [MAIL.to, MAIL.subject, MAIL.text, '554']) expect(logged).not.toContain(secret);
  });
});

describe('the subject of every mail', () => {
  it('never carries a line break or control character, whatever the subject handed in (direct or queued)', async () => {
    const subjects: string[] = [];
    const deps = {
      mailer: { send: async (mail: { subject: string }) => void subjects.push(mail.subject) },
      logger: { warn: () => undefined, error: () => undefined },
      store: {
        mailSuppressions: { suppressed: async () => new Set() },
        mailOutbox: {
          pending: async () => [{ ...MAIL, subject: 'queued\n\nBcc: x@evil.example', key: 'rate-limit#k', failures: 0 }],
          done: async () => undefined,
          failed: async () => undefined,
        },
      },
    } as unknown as MessagingDeps;
    const injected = 'Customer API: webhook destination "Bar\r\nBcc: victim@evil.example\u0000\u0007\u0085\u2028x" created';
    await sendMail(deps, { ...MAIL, subject: injected }, 'destination-created');
    await sendQueuedMail(deps);
    expect(subjects).toEqual(['Customer API: webhook destination "Bar Bcc: victim@evil.example x" created', 'queued Bcc: x@evil.example']);
    for (const subject of subjects) expect(subject).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/u);
    expect(oneLineSubject('Plain subject, unchanged: äé 😀')).toBe('Plain subject, unchanged: äé 😀');
  });
});

describe('sendQueuedMail (the sweeper)', () => {
  const queued = (failures: number): QueuedMail => ({ ...MAIL, key: 'rate-limit#app_1#2026-11-22T15:30#warning', failures });

  it('sends queued mail and takes it off the pending list', async () => {
    const { deps, seen } = world(false, [queued(0)]);
    expect(await sendQueuedMail(deps)).toBe(1);
    expect(seen).toMatchObject({ sent: [MAIL.to], done: [queued(0).key], failed: [] });
  });

  it('keeps a mail SES refused for the next sweep, and gives it up after the last try', async () => {
    const first = world(true, [queued(0)]);
    expect(await sendQueuedMail(first.deps)).toBe(0);
    expect(first.seen).toMatchObject({ failed: [queued(0).key], done: [], metrics: ['MailFailed'] });

    const last = world(true, [queued(MAIL_TRIES - 1)]);
    await sendQueuedMail(last.deps);
    expect(last.seen).toMatchObject({ failed: [], done: [queued(0).key], metrics: ['MailFailed'] });
    expect(last.seen.logs.at(-1)).toEqual(['owner mail given up', { purpose: 'rate-limit', tries: MAIL_TRIES }]);
  });
});

describe('mail to a suppressed address (SES reported it bouncing for good or complaining)', () => {
  const queued = (to: string, key: string): QueuedMail => ({ to, subject: 's', text: 't', key, failures: 0 });

  it('is not sent directly: counted MailSuppressed, logged with its purpose only', async () => {
    const { deps, seen } = world(false, [], [MAIL.to]);
    expect(await sendMail(deps, MAIL, 'destination-created')).toBe(false);
    expect(seen.sent).toEqual([]);
    expect(seen.metrics).toEqual(['MailSuppressed']);
    expect(seen.logs).toEqual([['owner mail not sent: address suppressed', { purpose: 'destination-created' }]]);
    expect(JSON.stringify(seen.logs)).not.toContain(MAIL.to);
  });

  it('is finished unsent by the sweeper, never retried, beside mail that is sent; one check for the whole page', async () => {
    const { deps, seen } = world(
      false,
      [queued('Owner@Tenant.example', 'rate-limit#a'), queued('other@tenant.example', 'rate-limit#b'), queued(MAIL.to, 'rate-limit#c')],
      [MAIL.to],
    );
    expect(await sendQueuedMail(deps)).toBe(1);
    expect(seen).toMatchObject({
      sent: ['other@tenant.example'],
      done: ['rate-limit#a', 'rate-limit#b', 'rate-limit#c'],
      failed: [],
      metrics: ['MailSuppressed', 'MailSuppressed'],
    });
    expect(seen.checks).toEqual([['Owner@Tenant.example', 'other@tenant.example', MAIL.to]]);
    expect(JSON.stringify(seen.logs)).not.toMatch(/tenant\.example/i);
  });
});
