import { describe, expect, it } from 'vitest';
import { MalformedMailEvent, readMailEvent } from '#lambdas/mail-events/notification';
import { sesEventRecord } from '#local/mail-events';

/** Reading SES's event records (https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html). */
const at = '2026-11-22T12:00:00.000Z';
const mail = { to: 'owner@tenant.example', from: 'alerts@mail.example.com', messageId: 'm-1', configurationSet: 'customer-api-dev', at };

describe('readMailEvent', () => {
  it('suppresses the recipients of a permanent bounce, and of a complaint, with their time', () => {
    expect(readMailEvent(JSON.stringify(sesEventRecord('bounce', mail)))).toEqual({
      kind: 'suppress',
      reason: 'bounce',
      addresses: [mail.to],
      at,
    });
    expect(readMailEvent(JSON.stringify(sesEventRecord('complain', mail)))).toEqual({
      kind: 'suppress',
      reason: 'complaint',
      addresses: [mail.to],
      at,
    });
  });

  it('ignores a transient or undetermined bounce, and event types that say nothing lasting', () => {
    expect(readMailEvent(JSON.stringify(sesEventRecord('softBounce', mail)))).toEqual({
      kind: 'ignore',
      eventType: 'Bounce',
      bounceType: 'Transient',
    });
    const undetermined = sesEventRecord('bounce', mail) as { bounce: Record<string, unknown> };
    undetermined.bounce.bounceType = 'Undetermined';
    expect(readMailEvent(JSON.stringify(undetermined))).toMatchObject({ kind: 'ignore', bounceType: 'Undetermined' });
    expect(readMailEvent(JSON.stringify({ eventType: 'Delivery', delivery: {}, mail: {} }))).toEqual({
      kind: 'ignore',
      eventType: 'Delivery',
    });
  });

  it('reads a feedback notification set on the identity (notificationType) the same way', () => {
    const { eventType: _, ...rest } = sesEventRecord('bounce', mail);
    expect(readMailEvent(JSON.stringify({ notificationType: 'Bounce', ...rest }))).toMatchObject({ kind: 'suppress', reason: 'bounce' });
  });

  it('refuses, whole, what it cannot read, and never names an address in why', () => {
    const bad = sesEventRecord('complain', mail) as { complaint: { complainedRecipients: unknown[] } };
    bad.complaint.complainedRecipients.push({ emailAddress: 'owner@tenant.example <evil>' });
    for (const message of ['[]', '"Bounce"', JSON.stringify({ eventType: 'Complaint' }), JSON.stringify(bad)]) {
      const refusal = (() => {
        try {
          readMailEvent(message);
        } catch (err) {
          return err;
        }
        return null;
      })();
      expect(refusal, message).toBeInstanceOf(MalformedMailEvent);
      expect((refusal as Error).message).not.toContain('tenant.example');
    }
  });
});
