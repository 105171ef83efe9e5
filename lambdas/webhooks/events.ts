import { randomBytes } from 'node:crypto';
import { sha256Hex } from '#domain/crypto';
import type { EventType } from '#data/deliveries';
import type { WebhookPayload } from '#contract/schemas/bevq';
import { menuResourcePath } from '#contract/urls';

/**
 * Event and delivery identity. A menu event's id depends only on group,
 * location and revision, so every re-dispatch of the same revision is the
 * same logical event; a delivery's id only on event and destination, so a
 * re-dispatch finds the record it already created.
 */
export function menuEventId(groupId: string, locationId: string, revision: string): string {
  return `evt_${sha256Hex(`bevq.menu.updated\n${groupId}\n${locationId}\n${revision}`).slice(0, 32)}`;
}

/** Synthetic identity of a Send test event. */
export function testEventId(): string {
  return `evt_test_${randomBytes(12).toString('hex')}`;
}

export function deliveryIdOf(eventId: string, destinationId: string): string {
  return `dlv_${sha256Hex(`${eventId}\n${destinationId}`).slice(0, 32)}`;
}

export type EventFacts = {
  eventId: string;
  eventType: EventType;
  occurredAt: string;
  groupId: string;
  locationId: string;
  revision: string;
};

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
    ...(event.eventType === 'customer_api.webhook.test' ? { test: true as const } : {}),
  };
  return JSON.stringify(payload);
}
