import type { Deps } from '#platform/deps';
import { count } from '#platform/observability';
import { readMailEvent } from './notification.js';

/** What one notification changed: addresses newly marked, and whether it was acted on at all. */
export type MailEventOutcome = { marked: number; ignored: boolean };

/**
 * Marks the addresses a permanent bounce or a complaint names (MailAddressSuppressed counts the new marks; an
 * address already marked keeps its first reason). Logs what happened, never an address. Throws MalformedMailEvent.
 */
export async function applyMailEvent(deps: Pick<Deps, 'store' | 'logger' | 'metrics'>, message: string): Promise<MailEventOutcome> {
  const event = readMailEvent(message);
  if (event.kind === 'ignore') {
    deps.logger.info('mail event ignored', { eventType: event.eventType, ...(event.bounceType ? { bounceType: event.bounceType } : {}) });
    return { marked: 0, ignored: true };
  }
  let marked = 0;
  for (const address of event.addresses) {
    if (await deps.store.mailSuppressions.suppress({ address, reason: event.reason, at: event.at })) marked++;
  }
  count(deps, 'MailAddressSuppressed', marked);
  deps.logger.info('mail addresses suppressed', { reason: event.reason, recipients: event.addresses.length, marked });
  return { marked, ignored: false };
}
