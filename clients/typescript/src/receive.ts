import type { CustomerApiClient } from './client.js';
import type { EventDedupe } from './dedupe.js';
import { syncMenu, type MenuStore, type SyncResult } from './menu-sync.js';
import { verifyWebhook, type RawBody, type VerifyFailure, type VerifyOptions, type WebhookEvent, type WebhookHeaders } from './webhooks.js';

/** What this receiver expects: its group, and the locations it serves (all of the group's when omitted). */
export interface ExpectedScope {
  groupId: string;
  locationIds?: readonly string[];
}

export type ScopeFailure = 'event_type' | 'event_id' | 'group' | 'location' | 'resource';

const EVENT_TYPES = new Set(['bevq.menu.updated', 'customer_api.webhook.test']);

/**
 * Contract 6.4 rule 5: the event is one of the two types, has an id, is for the expected group and one of its locations, and its
 * `resource` is exactly that location's menu path. It is a path under the API's base URL, never a URL to follow, so
 * nothing in a payload can point the client elsewhere.
 */
export function checkScope(event: WebhookEvent, expected: ExpectedScope): { ok: true } | { ok: false; reason: ScopeFailure } {
  if (!EVENT_TYPES.has(event.eventType)) return { ok: false, reason: 'event_type' };
  if (typeof event.eventId !== 'string' || event.eventId === '') return { ok: false, reason: 'event_id' };
  if (event.groupId !== expected.groupId) return { ok: false, reason: 'group' };
  if (typeof event.locationId !== 'string' || (expected.locationIds && !expected.locationIds.includes(event.locationId)))
    return { ok: false, reason: 'location' };
  const path = `/v1/${encodeURIComponent(event.groupId)}/${encodeURIComponent(event.locationId)}/bevq/menu`;
  if (event.resource !== path) return { ok: false, reason: 'resource' };
  return { ok: true };
}

export interface MenuEventInput extends VerifyOptions {
  secret: string;
  headers: WebhookHeaders;
  rawBody: RawBody;
  scope: ExpectedScope;
  dedupe: EventDedupe;
  client: CustomerApiClient;
  store: MenuStore;
}

/** What to answer the service (`status`) and what happened. */
export type MenuEventOutcome =
  | { status: 401; outcome: 'rejected'; reason: VerifyFailure }
  | { status: 403; outcome: 'out_of_scope'; reason: ScopeFailure; event: WebhookEvent }
  | { status: 200; outcome: 'duplicate' | 'test'; event: WebhookEvent }
  | { status: 200; outcome: 'synced'; event: WebhookEvent; sync: SyncResult }
  | { status: 500; outcome: 'failed'; event: WebhookEvent; error: unknown };

/**
 * Contract 6.4 rules 1–6 in one call: verify the signature over the raw body, check the scope, claim the event id,
 * then (for `bevq.menu.updated`) sync the menu with `If-None-Match`. A bad signature answers 401 and an event
 * outside the scope 403 (the service does not retry either, 6.6); a failed sync gives the claim back and answers
 * 500, so the service retries the delivery. Keep a scheduled `syncMenu` over every location as the fallback.
 */
export async function receiveMenuEvent(input: MenuEventInput): Promise<MenuEventOutcome> {
  const verified = await verifyWebhook(input.secret, input.headers, input.rawBody, input);
  if (!verified.ok) return { status: 401, outcome: 'rejected', reason: verified.reason };
  const { event } = verified;
  const scope = checkScope(event, input.scope);
  if (!scope.ok) return { status: 403, outcome: 'out_of_scope', reason: scope.reason, event };
  if (!(await input.dedupe.claim(event.eventId))) return { status: 200, outcome: 'duplicate', event };
  if (event.eventType === 'customer_api.webhook.test') return { status: 200, outcome: 'test', event };
  try {
    const sync = await syncMenu(input.client, event.groupId, event.locationId, input.store);
    return { status: 200, outcome: 'synced', event, sync };
  } catch (error) {
    await input.dedupe.release(event.eventId);
    return { status: 500, outcome: 'failed', event, error };
  }
}
