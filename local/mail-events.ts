import { randomUUID } from 'node:crypto';
import type { SESv2Client } from '@aws-sdk/client-sesv2';
import type { SNSEvent } from 'aws-lambda';
import type { Clock, Deps } from '#platform/deps';
import type { Logger } from '#platform/observability';
import { createHandler, type MailEventOutcome } from '#lambdas/mail-events/mail-events';
import { lambdaContext } from './gateway.js';

/**
 * SES's bounce and complaint notifications, played locally (docs/decisions/mail-suppression.md): the local SES
 * accepts every mail, so addresses are told to bounce or complain here. A mail the local SES accepted for such an
 * address is answered, as SES's configuration set would, with an event record in SES's JSON shape wrapped in an
 * SNS notification, handed to the same mail-events handler the stack subscribes to its topic (its own deps,
 * guarded by its role). The send waits for it: what a test sees after a sweep already includes the mark.
 */
export type MailEventsOptions = {
  /** Addresses whose mail bounces for good (bounceType Permanent). */
  bounce?: readonly string[];
  /** Addresses whose mail bounces for now (bounceType Transient: a full mailbox). */
  softBounce?: readonly string[];
  /** Addresses whose owner marks the mail as spam. */
  complain?: readonly string[];
};

type Outcome = 'bounce' | 'softBounce' | 'complain';

export type LocalMailEvents = {
  /** Hands one SNS message (an SES event record, or anything) to the mail-events function, as the topic would. */
  deliver(message: string): Promise<MailEventOutcome[]>;
};

/** LOCAL_SES_BOUNCE, LOCAL_SES_SOFT_BOUNCE and LOCAL_SES_COMPLAIN: comma-separated addresses (`npm start`). */
export function mailEventsFromEnv(env: NodeJS.ProcessEnv): MailEventsOptions {
  const addresses = (value: string | undefined) =>
    (value ?? '')
      .split(',')
      .map((a) => a.trim())
      .filter(Boolean);
  return {
    bounce: addresses(env.LOCAL_SES_BOUNCE),
    softBounce: addresses(env.LOCAL_SES_SOFT_BOUNCE),
    complain: addresses(env.LOCAL_SES_COMPLAIN),
  };
}

/** The event record SES publishes for `outcome` (https://docs.aws.amazon.com/ses/latest/dg/event-publishing-retrieving-sns-examples.html). */
export function sesEventRecord(
  outcome: Outcome,
  mail: { to: string; from: string; messageId: string; configurationSet: string; at: string },
): Record<string, unknown> {
  const record = {
    timestamp: mail.at,
    source: mail.from,
    sendingAccountId: '000000000000',
    messageId: mail.messageId,
    destination: [mail.to],
    headersTruncated: false,
    tags: { 'ses:configuration-set': [mail.configurationSet] },
  };
  const feedbackId = `local-${randomUUID()}`;
  if (outcome === 'complain') {
    return {
      eventType: 'Complaint',
      complaint: {
        complainedRecipients: [{ emailAddress: mail.to }],
        timestamp: mail.at,
        feedbackId,
        complaintFeedbackType: 'abuse',
        arrivalDate: mail.at,
      },
      mail: record,
    };
  }
  const permanent = outcome === 'bounce';
  return {
    eventType: 'Bounce',
    bounce: {
      bounceType: permanent ? 'Permanent' : 'Transient',
      bounceSubType: permanent ? 'General' : 'MailboxFull',
      bouncedRecipients: [
        {
          emailAddress: mail.to,
          action: 'failed',
          status: permanent ? '5.1.1' : '4.2.2',
          diagnosticCode: permanent ? 'smtp; 550 5.1.1 user unknown' : 'smtp; 452 4.2.2 mailbox full',
        },
      ],
      timestamp: mail.at,
      feedbackId,
      reportingMTA: 'dsn; localhost',
    },
    mail: record,
  };
}

/** SNS's Lambda event around one message (https://docs.aws.amazon.com/lambda/latest/dg/with-sns.html). */
function snsEvent(message: string, at: string): SNSEvent {
  const topicArn = 'arn:aws:sns:local:000000000000:customer-api-local-mail-events';
  return {
    Records: [
      {
        EventSource: 'aws:sns',
        EventVersion: '1.0',
        EventSubscriptionArn: `${topicArn}:${randomUUID()}`,
        Sns: {
          Type: 'Notification',
          MessageId: randomUUID(),
          TopicArn: topicArn,
          Subject: '',
          Message: message,
          Timestamp: at,
          SignatureVersion: '1',
          Signature: '',
          SigningCertUrl: '',
          UnsubscribeUrl: '',
          MessageAttributes: {},
        },
      },
    ],
  };
}

/**
 * Wires the stand-in: `ses` is the runtime's SES client, whose middleware every function's SES client repeats
 * (function-deps.ts), `deps` the mail-events function's own.
 */
export function localMailEvents(
  ses: SESv2Client,
  deps: Deps,
  options: MailEventsOptions & { clock: Clock; logger: Logger },
): LocalMailEvents {
  const handler = createHandler(deps);
  const outcomes = new Map<string, Outcome>();
  for (const outcome of ['bounce', 'softBounce', 'complain'] as const)
    for (const a of options[outcome] ?? []) outcomes.set(a.toLowerCase(), outcome);
  const now = () => new Date(options.clock.now()).toISOString();
  const deliver = (message: string) => handler(snsEvent(message, now()), lambdaContext('mail-events', `local-${randomUUID()}`));
  ses.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'SendEmailCommand') return result;
      const input = args.input as { FromEmailAddress?: string; ConfigurationSetName?: string; Destination?: { ToAddresses?: string[] } };
      const messageId = String((result.output as { MessageId?: string }).MessageId ?? randomUUID());
      for (const to of input.Destination?.ToAddresses ?? []) {
        const outcome = outcomes.get(to.toLowerCase());
        if (!outcome) continue;
        const record = sesEventRecord(outcome, {
          to,
          from: String(input.FromEmailAddress ?? ''),
          messageId,
          configurationSet: input.ConfigurationSetName ?? '',
          at: now(),
        });
        // As in AWS, the sender never hears of it: a failing handler is the mail-events function's error, logged there.
        await deliver(JSON.stringify(record)).catch((err: Error) =>
          options.logger.error('local mail event not handled', { error: err.name }),
        );
      }
      return result;
    },
    { step: 'initialize', name: 'localMailEvents', priority: 'high', override: true },
  );
  return { deliver };
}
