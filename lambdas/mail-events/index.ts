import middy from '@middy/core';
import type { SNSEvent } from 'aws-lambda';
import type { Deps } from '#platform/deps';
import { observability } from '#platform/observability';
import { mailSuppressionsRepo } from '#data/mail-suppressions';
import { applyMailEvent, type MailEventOutcome } from './operations.js';
import { MalformedMailEvent } from './notification.js';

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
