/**
 * The webhook events of contract 6.3 and the ids of events and deliveries, declared once: every other file
 * derives its types, its checks and its ids from here (test/unit/facts-once.test.ts keeps it so).
 */

export const EVENT_TYPES = ['bevq.menu.updated', 'customer_api.webhook.test'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** A location's published menu changed: the one production event. */
export const MENU_UPDATED = EVENT_TYPES[0];
/** A destination's Send test. */
export const WEBHOOK_TEST = EVENT_TYPES[1];

const HEX_DIGITS = 32;
const EVENT_ID_PREFIX = 'evt_';
const DELIVERY_ID_PREFIX = 'dlv_';

/** A menu event's id: its prefix and the first 32 hex digits of a digest of what makes it the same event. */
export const menuEventIdOf = (digestHex: string): string => `${EVENT_ID_PREFIX}${digestHex.slice(0, HEX_DIGITS)}`;
/** A Send test's id: random, and never of a menu event's shape. */
export const testEventIdOf = (randomHex: string): string => `${EVENT_ID_PREFIX}test_${randomHex}`;
const MENU_EVENT_ID = new RegExp(`^${EVENT_ID_PREFIX}[0-9a-f]{${HEX_DIGITS}}$`);
export const isMenuEventId = (value: string): boolean => MENU_EVENT_ID.test(value);

/** A delivery's id: its prefix and the first 32 hex digits of a digest of its event and destination. */
export const deliveryIdFrom = (digestHex: string): string => `${DELIVERY_ID_PREFIX}${digestHex.slice(0, HEX_DIGITS)}`;
const DELIVERY_ID = new RegExp(`^${DELIVERY_ID_PREFIX}[0-9a-f]{${HEX_DIGITS}}$`);
export const isDeliveryId = (value: string): boolean => DELIVERY_ID.test(value);
/** How an operator is told what a delivery id looks like. */
export const DELIVERY_ID_RULE = `${DELIVERY_ID_PREFIX} followed by ${HEX_DIGITS} hex digits`;
