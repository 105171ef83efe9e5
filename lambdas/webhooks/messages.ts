import { randomBytes } from 'node:crypto';
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SQSClient,
  type SQSClientConfig,
} from '@aws-sdk/client-sqs';
import middy from '@middy/core';
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { observability, type Logger } from '#platform/observability';
import { sha256Hex } from '#domain/crypto';
import { isId } from '#contract/ids';
import { DELIVERY_ID, EVENT_ID, MENU_UPDATED, WEBHOOK_TEST, type WebhookPayload } from './events.js';
import { menuResourcePath } from '#contract/urls';

/**
 * What the webhook room passes along: events (their ids and payload), deliveries' ids, and the messages of its two
 * queues (a delivery on the delivery queue; a fan-out page or a release of held deliveries on the fan-out queue),
 * with their shapes checked on receipt.
 */

/**
 * Event and delivery identity. A menu event's id depends only on group,
 * location and revision, so every re-dispatch of the same revision is the
 * same logical event; a delivery's id only on event and destination, so a
 * re-dispatch finds the record it already created.
 */
export function menuEventId(groupId: string, locationId: string, revision: string): string {
  return `${EVENT_ID.prefix}${sha256Hex(`${MENU_UPDATED}\n${groupId}\n${locationId}\n${revision}`).slice(0, EVENT_ID.hexDigits)}`;
}

/** Synthetic identity of a Send test event. */
export function testEventId(): string {
  return `${EVENT_ID.testPrefix}${randomBytes(EVENT_ID.testHexDigits / 2).toString('hex')}`;
}

export function deliveryIdOf(eventId: string, destinationId: string): string {
  return `${DELIVERY_ID.prefix}${sha256Hex(`${eventId}\n${destinationId}`).slice(0, DELIVERY_ID.hexDigits)}`;
}

/** What makes an event: its payload (6.3) less what follows from it. */
export type EventFacts = Omit<WebhookPayload, 'resource' | 'test'>;
/** Where an event happens, and the revision it announces. */
type Where = Pick<EventFacts, 'groupId' | 'locationId' | 'revision'>;

/** An event of one location, occurring `now`: a menu event's id follows from its revision, a Send test's (revision "") is fresh. */
export function newEvent<T extends EventFacts['eventType']>(eventType: T, { groupId, locationId, revision }: Where, now: number) {
  const eventId = eventType === MENU_UPDATED ? menuEventId(groupId, locationId, revision) : testEventId();
  return { eventId, eventType, occurredAt: new Date(now).toISOString(), groupId, locationId, revision };
}

/** The payload of 6.3, serialised once: every attempt sends these exact bytes. */
export function payloadOf(event: EventFacts): string {
  const payload: WebhookPayload = {
    eventId: event.eventId,
    eventType: event.eventType,
    occurredAt: event.occurredAt,
    groupId: event.groupId,
    locationId: event.locationId,
    revision: event.revision,
    resource: menuResourcePath(event.groupId, event.locationId),
    ...(event.eventType === WEBHOOK_TEST ? { test: true as const } : {}),
  };
  return JSON.stringify(payload);
}

/**
 * One SQS message per delivery record; the record holds everything else (and
 * no secret). `redrive` and `requeue` are the record's redrive and requeue
 * counts the message was sent for: a redrive or a requeue sends its message
 * before the record names it, so a message sent for later counts than the
 * record shows is early, one sent for earlier counts is stale (`standing`).
 */
export type DeliveryMessage = {
  deliveryId: string;
  redrive: number;
  requeue: number;
  /**
   * Where the delivery goes and whose it is, so a receive reads the record,
   * the destination and the application in one round trip. Hints only: the
   * record decides.
   */
  destinationId: string;
  clientId: string;
};

/** A delivery as its message is sent: the redrive and requeue counts it carries, the hints, the id. */
type Outgoing = Pick<DeliveryMessage, 'deliveryId' | 'destinationId' | 'clientId'> & Counts;
/** A record's redrive and requeue counts. */
type Counts = { redrives: number; requeues: number };

/** Where a message stands against its record: sent for earlier counts (stale), for these (current), or for later ones (early). */
export function standing(message: Pick<DeliveryMessage, 'redrive' | 'requeue'>, d: Counts) {
  const ahead = message.redrive - d.redrives || message.requeue - d.requeues;
  return ahead < 0 ? 'stale' : ahead > 0 ? 'early' : 'current';
}

export type WebhookQueue = ReturnType<typeof sqsWebhookQueue>;
/** What sending a message needs of a function's deps (MessagingDeps has it). */
type Queues = { queue: WebhookQueue };

/** Sends the messages of several deliveries, in batches; returns their ids in order (a redrive's or a requeue's carriers). */
export function enqueueDeliveries(deps: Queues, outgoing: readonly Outgoing[]): Promise<string[]> {
  return deps.queue.sendAll(outgoing.map(messageBody));
}

const messageBody = ({ deliveryId, destinationId, clientId, redrives, requeues }: Outgoing) =>
  JSON.stringify({ deliveryId, redrive: redrives, requeue: requeues, destinationId, clientId } satisfies DeliveryMessage);

/**
 * A menu event's fan-out goes on from `cursor`: the next page of its destinations (null: the first, for a menu a
 * producer published), dispatched by whichever dispatcher receives it. Only a wake-up too: the outbox entry
 * decides, and a cursor it no longer holds is stale.
 */
type DispatchMessage = { dispatch: string; cursor: string | null };

export const enqueueDispatch = (deps: { queue: Pick<WebhookQueue, 'fanOut'> }, eventId: string, cursor: string | null): Promise<string> =>
  deps.queue.fanOut.send(JSON.stringify({ dispatch: eventId, cursor } satisfies DispatchMessage));

/** A destination's held deliveries go out, a page per message: a wake-up whose receive checks the destination first. */
type ReleaseMessage = { release: string };

export const enqueueRelease = (deps: Queues, destinationId: string): Promise<string> =>
  deps.queue.fanOut.send(JSON.stringify({ release: destinationId } satisfies ReleaseMessage));

/** What the fan-out queue carries, its shape checked on receipt; null for anything else (a delivery included). */
export function parseFanOutMessage(body: string): DispatchMessage | ReleaseMessage | null {
  try {
    const { dispatch, cursor, release } = JSON.parse(body) as Partial<DispatchMessage & ReleaseMessage>;
    if (typeof release === 'string' && isId(release)) return { release };
    if (typeof dispatch !== 'string' || !EVENT_ID.pattern.test(dispatch) || !(typeof cursor === 'string' || cursor === null)) return null;
    return { dispatch, cursor };
  } catch {
    return null;
  }
}

const isCount = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0;
const isIdText = (value: unknown): value is string => typeof value === 'string' && isId(value);

/** What the delivery queue carries, its shape checked on receipt; null for anything else (a fan-out wake-up included). */
export function parseDeliveryMessage(body: string): DeliveryMessage | null {
  try {
    const { deliveryId, redrive, requeue, destinationId, clientId } = JSON.parse(body) as Record<string, unknown>;
    if (typeof deliveryId !== 'string' || !DELIVERY_ID.pattern.test(deliveryId)) return null;
    if (!isCount(redrive) || !isCount(requeue) || !isIdText(destinationId) || !isIdText(clientId)) return null;
    return { deliveryId, redrive, requeue, destinationId, clientId };
  } catch {
    return null;
  }
}

/** What the observability middleware needs of a function's deps (MessagingDeps has it). */
type Observed = Parameters<typeof observability>[0];

/**
 * An SQS event source's function (reportBatchItemFailures): `handler` makes, per invocation, what handles each
 * record; records run in parallel, and one that throws comes back as a batch item failure. A processor per
 * invocation: it holds the batch's failures, and the local event source runs invocations side by side.
 */
export function sqsConsumer(deps: Observed, handler: (context: Context) => (record: SQSRecord) => Promise<void>) {
  return middy<SQSEvent, SQSBatchResponse>()
    .use(observability(deps))
    .handler((event, context) =>
      processPartialResponse(event, handler(context), new BatchProcessor(EventType.SQS), { context, throwOnFullBatchFailure: false }),
    );
}

/** Thrown for a record that must come back later: Powertools reports it as a batch item failure. */
export class RetryLater extends Error {}

/** A message its queue does not carry: logged, visible again at once and failed, so the redrive moves it to the queue's DLQ. */
export async function refuseRecord(deps: { logger: Logger }, record: SQSRecord, queue: Pick<WebhookQueue, 'delay'>): Promise<never> {
  deps.logger.error('message refused: not of this queue', { messageId: record.messageId });
  await queue.delay(record.receiptHandle, 0);
  throw new RetryLater(`message ${record.messageId} refused`);
}

// The queues over SQS.

export type { SQSClient };

/** The one place in lambdas/ that builds an SQS client; endpoints and credentials as for every AWS client. */
export function sqsClient(config: SQSClientConfig = {}): SQSClient {
  return new SQSClient(config);
}

/** SendMessageBatch's limit of entries per request. */
const SEND_BATCH = 10;
const SEND_RETRIES = 3;

/**
 * The webhook queues over SQS: the delivery queue (itself), the fan-out queue, and the delivery queue's DLQ. Bodies
 * are opaque here: the webhook functions own what a message says.
 */
export function sqsWebhookQueue(
  sqs: SQSClient,
  { webhookQueueUrl, webhookDlqUrl, fanOutQueueUrl }: { webhookQueueUrl: string; webhookDlqUrl: string; fanOutQueueUrl: string },
) {
  const setVisibility = async (QueueUrl: string, ReceiptHandle: string, VisibilityTimeout: number) => {
    await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle, VisibilityTimeout }));
  };
  /** One queue its consumer receives from through its event source. */
  const sending = (QueueUrl: string) => ({
    /** Sends one message; returns its message id. */
    async send(body: string) {
      const { MessageId } = await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: body }));
      return MessageId!;
    },
    /**
     * SendMessageBatch, 10 entries a request (SQS's limit; bodies here are
     * far below its 256 KB a request), the requests in parallel. Entries SQS
     * reports failed are sent again, a bounded number of times. Returns their ids in order; throws unless all were sent.
     */
    async sendAll(bodies: readonly string[]) {
      const ids = new Array<string>(bodies.length);
      const batches: number[][] = [];
      for (let i = 0; i < bodies.length; i += SEND_BATCH) batches.push(bodies.slice(i, i + SEND_BATCH).map((_, k) => i + k));
      await Promise.all(
        batches.map(async (batch) => {
          let pending = batch;
          for (let attempt = 0; pending.length > 0; attempt++) {
            if (attempt > SEND_RETRIES) throw new Error(`SendMessageBatch left ${pending.length} messages unsent after retries`);
            const { Successful = [] } = await sqs.send(
              new SendMessageBatchCommand({
                QueueUrl,
                Entries: pending.map((index) => ({ Id: String(index), MessageBody: bodies[index]! })),
              }),
            );
            for (const sent of Successful) ids[Number(sent.Id)] = sent.MessageId!;
            pending = pending.filter((index) => ids[index] === undefined);
          }
        }),
      );
      return ids;
    },
    /** Hands a received message back after `seconds`: a retry's wait is its message's visibility; 0 hands a refused one to the redrive. */
    delay: (receiptHandle: string, seconds: number) => setVisibility(QueueUrl, receiptHandle, seconds),
  });
  return {
    ...sending(webhookQueueUrl),
    fanOut: sending(fanOutQueueUrl),
    dlq: {
      /** One receive of up to 10 messages, waiting up to `waitSeconds` for one; each stays hidden for `hideSeconds` until deleted or released. */
      async receive({ waitSeconds, hideSeconds }: { waitSeconds: number; hideSeconds: number }) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: webhookDlqUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: waitSeconds,
            VisibilityTimeout: hideSeconds,
          }),
        );
        return Messages.map((m) => ({ messageId: m.MessageId!, body: m.Body ?? '', receiptHandle: m.ReceiptHandle! }));
      },
      async delete(receiptHandle: string) {
        await sqs.send(new DeleteMessageCommand({ QueueUrl: webhookDlqUrl, ReceiptHandle: receiptHandle }));
      },
      /** Visible again at once. */
      release: (receiptHandle: string) => setVisibility(webhookDlqUrl, receiptHandle, 0),
      /** Approximate counts: messages waiting, and messages received but neither deleted nor visible again. */
      async depth() {
        const { Attributes = {} } = await sqs.send(
          new GetQueueAttributesCommand({
            QueueUrl: webhookDlqUrl,
            AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
          }),
        );
        return {
          visible: Number(Attributes.ApproximateNumberOfMessages ?? 0),
          inFlight: Number(Attributes.ApproximateNumberOfMessagesNotVisible ?? 0),
        };
      },
    },
  };
}
