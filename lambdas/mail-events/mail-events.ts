import middy from '@middy/core';
import { defaultDeps, type Deps } from '#platform/deps';
import { count, observability } from '#platform/observability';
import { MalformedMailEvent, readMailEvent } from './notification.js';
import type { SNSEvent } from 'aws-lambda';
import { mailSuppressionsRepo } from '#data/mail-suppressions';

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

/** The one repository this function builds. */
export const repositories = { mailSuppressions: mailSuppressionsRepo };

/**
 * Subscribed to the stack's mail-events topic, which the SES configuration set's event destination publishes
 * bounces and complaints to. A notification it cannot read is logged (without its content) and fails the
 * invocation: Lambda's retries cannot mend it, but the function's Errors alarm tells an operator the event
 * destination sends something else than SES event records.
 */
export function createHandler(deps: Deps) {
  return middy<SNSEvent, MailEventOutcome[]>()
    .use(observability(deps))
    .handler(async (event) => {
      const outcomes: MailEventOutcome[] = [];
      for (const record of event.Records ?? []) {
        try {
          outcomes.push(await applyMailEvent(deps, String(record.Sns?.Message ?? '')));
        } catch (err) {
          if (err instanceof MalformedMailEvent) deps.logger.error('mail event refused', { reason: err.message });
          throw err;
        }
      }
      return outcomes;
    });
}

/** The Lambda entry (lib/functions.ts). */
export const handler = createHandler(defaultDeps(repositories));
