import { isMailAddress, type MailSuppressionReason } from '#data/mail-suppressions';

/**
 * What one SES notification asks of the service (docs/decisions/mail-suppression.md). SES's event publishing
 * record (`eventType`; a feedback notification set on the identity says `notificationType` in the same shape):
 * https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-contents.html
 *
 * Only a permanent bounce (the mailbox does not exist, or refuses for good) and a complaint (the owner marked the
 * mail as spam) suppress. A transient bounce (mailbox full, message too large, a receiver's passing fault) says
 * nothing lasting about the address: SES has already retried it, and the next mail may well arrive.
 */
export type MailEvent =
  | { kind: 'suppress'; reason: MailSuppressionReason; addresses: string[]; at: string }
  | { kind: 'ignore'; eventType: string; bounceType?: string };

/** A notification the service cannot read: refused whole, nothing is marked. Its message never carries an address. */
export class MalformedMailEvent extends Error {
  override name = 'MalformedMailEvent';
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The addresses of a bounce's or complaint's recipient list; every one must be an address. */
function recipients(list: unknown, field: string): string[] {
  if (!Array.isArray(list) || list.length === 0) throw new MalformedMailEvent(`${field}: not a list of recipients`);
  return list.map((r, i) => {
    const address = isObject(r) ? r.emailAddress : undefined;
    if (typeof address !== 'string' || !isMailAddress(address))
      throw new MalformedMailEvent(`${field}[${i}].emailAddress: not an e-mail address`);
    return address;
  });
}

/** Reads the SNS message (a JSON string); throws MalformedMailEvent for anything that is not an SES event record. */
export function readMailEvent(message: string): MailEvent {
  let record: unknown;
  try {
    record = JSON.parse(message);
  } catch {
    throw new MalformedMailEvent('not JSON');
  }
  if (!isObject(record)) throw new MalformedMailEvent('not a JSON object');
  const eventType = record.eventType ?? record.notificationType;
  if (typeof eventType !== 'string') throw new MalformedMailEvent('no eventType');
  if (eventType === 'Bounce') {
    const bounce = record.bounce;
    if (!isObject(bounce) || typeof bounce.bounceType !== 'string') throw new MalformedMailEvent('bounce.bounceType: missing');
    const addresses = recipients(bounce.bouncedRecipients, 'bounce.bouncedRecipients');
    if (bounce.bounceType !== 'Permanent') return { kind: 'ignore', eventType, bounceType: bounce.bounceType };
    return { kind: 'suppress', reason: 'bounce', addresses, at: timestampOf(bounce) };
  }
  if (eventType === 'Complaint') {
    const complaint = record.complaint;
    if (!isObject(complaint)) throw new MalformedMailEvent('complaint: missing');
    return {
      kind: 'suppress',
      reason: 'complaint',
      addresses: recipients(complaint.complainedRecipients, 'complaint.complainedRecipients'),
      at: timestampOf(complaint),
    };
  }
  // Another event type an imported configuration set also publishes (Delivery, Send, …): nothing to do.
  return { kind: 'ignore', eventType };
}

function timestampOf(event: Record<string, unknown>): string {
  const at = typeof event.timestamp === 'string' ? Date.parse(event.timestamp) : NaN;
  if (Number.isNaN(at)) throw new MalformedMailEvent('timestamp: not a time');
  return new Date(at).toISOString();
}
