import * as v from 'valibot';
import { isoTimestamp } from '#contract/schemas/common';

/**
 * The webhook events of contract 6.3 and the ids of events and deliveries, declared once: every other file
 * derives its types, its checks and its ids from here, as data (test/unit/facts-once.test.ts keeps it so).
 */

export const EVENT_TYPES = ['bevq.menu.updated', 'customer_api.webhook.test'] as const;
/** A location's published menu changed: the one production event. */
export const MENU_UPDATED = EVENT_TYPES[0];
/** A destination's Send test. */
export const WEBHOOK_TEST = EVENT_TYPES[1];

/** A menu event's id: the prefix and the first 32 hex digits of a digest of what makes it that event. A Send test's: its own prefix and random hex. */
export const EVENT_ID = {
  prefix: 'evt_',
  testPrefix: 'evt_test_',
  hexDigits: 32,
  testHexDigits: 24,
  pattern: /^evt_[0-9a-f]{32}$/,
  /** Either kind, as an operator looks one up; `rule` tells them so. */
  anyPattern: /^evt_(?:test_[0-9a-f]{24}|[0-9a-f]{32})$/,
  rule: 'evt_ followed by 32 hex digits (a Send test: evt_test_ and 24)',
} as const;
/** A delivery's id: the prefix and the first 32 hex digits of a digest of its event and destination; `rule` tells an operator so. */
export const DELIVERY_ID = {
  prefix: 'dlv_',
  hexDigits: 32,
  pattern: /^dlv_[0-9a-f]{32}$/,
  rule: 'dlv_ followed by 32 hex digits',
} as const;

/** The headers every webhook request carries (contract 6.4): what the receiver verifies and deduplicates on. */
export const WEBHOOK_HEADERS = {
  event: 'X-Service-Event',
  eventId: 'X-Service-Event-Id',
  timestamp: 'X-Service-Timestamp',
  signature: 'X-Service-Signature',
} as const;

/** The body of every webhook request (6.3). */
export const webhookPayload = v.object({
  eventId: v.string(),
  eventType: v.picklist(EVENT_TYPES),
  occurredAt: isoTimestamp,
  groupId: v.string(),
  locationId: v.string(),
  /** Current published menu revision; "" on a test event. */
  revision: v.string(),
  /** `/v1/{group_id}/{location_id}/bevq/menu`, a path under the base URL. */
  resource: v.string(),
  /** true only on test events; omitted otherwise. */
  test: v.optional(v.literal(true)),
});
export type WebhookPayload = v.InferOutput<typeof webhookPayload>;
