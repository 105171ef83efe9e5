import * as z from 'zod';
import { absoluteUrl, decimal, isoTimestamp, money, nextCursor, refresh } from './common.js';
import { EVENT_TYPES } from '../webhook-events.js';

/** Beverage menu (contract 2.11), the bevq resources around it, and the webhook payload (6.3). */

const text = z.string().max(2000);
const menuId = z.string().min(1).max(128);
/** Position within a section or menu; only the order matters. */
const sortOrder = z.number().int().min(-1_000_000).max(1_000_000);
const location = z.object({ id: z.string(), name: z.string(), timezone: z.string() });

export const menuSize = z.object({
  id: menuId,
  name: z.string().max(200),
  /** Up to a half-barrel keg (1,984 oz). */
  ounces: decimal(0, 2_000, 2),
  price: money.min(0),
  /** The location's authoritative POS currency, as stored; never derived from locale or symbol. */
  currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD'),
  available: z.boolean(),
});

export const menuBrand = z.object({
  id: z.string().max(128).optional(),
  name: z.string().max(200).optional(),
  type: z.string().max(100).optional(),
  imageUrl: absoluteUrl.optional(),
});

const itemFields = {
  id: menuId,
  type: z.string().max(100),
  name: z.string().max(200),
  displayName: z.string().max(200),
  brand: menuBrand.optional(),
  style: z.string().max(200),
  category: z.string().max(200),
  abv: decimal(0, 100, 2).nullable(),
  ibu: decimal(0, 1000, 1).nullable(),
  country: z.string().max(100),
  region: z.string().max(200),
  description: text,
  imageUrl: absoluteUrl.nullable(),
  posItemId: z.string().max(128).nullable(),
  posGroupId: z.string().max(128).nullable(),
  mapped: z.boolean(),
  available: z.boolean(),
  sizes: z.array(menuSize).max(20),
  sortOrder,
};

export const menuItem = z.object({ ...itemFields, sectionId: menuId, updatedAt: isoTimestamp });

export const menuSection = z.object({
  id: menuId,
  name: z.string().max(200),
  description: text,
  sortOrder,
  enabled: z.boolean(),
  itemCount: z.number().int(),
  updatedAt: isoTimestamp,
  items: z.array(menuItem),
});

export const posHealth = z.enum(['current', 'stale', 'unknown']);

export const menuData = z.object({
  updatedAt: isoTimestamp,
  revision: z.string(),
  sourceHealth: z.object({ pos: posHealth, lastPosSyncAt: isoTimestamp.nullable() }),
  sectionCount: z.number().int(),
  itemCount: z.number().int(),
  sections: z.array(menuSection),
});
export type MenuData = z.infer<typeof menuData>;
export type MenuSection = z.infer<typeof menuSection>;
export type MenuItem = z.infer<typeof menuItem>;

/**
 * A rebuilt menu as published (admin CLI `menus publish`, the ingest
 * function): the shape of `data.menu`, with everything the service computes
 * optional and ignored (revision, counts, timestamps, `pos`). POS health
 * comes from the reconciliation times.
 */
export const menuInput = z
  .object({
    revision: z.unknown().optional(),
    updatedAt: z.unknown().optional(),
    sectionCount: z.unknown().optional(),
    itemCount: z.unknown().optional(),
    sourceHealth: z
      .object({
        pos: z.unknown().optional(),
        /** Last successful persisted POS reconciliation; null when none has succeeded yet. */
        lastPosSyncAt: isoTimestamp.nullable(),
        /** Last failed POS attempt, if any. */
        lastPosFailureAt: isoTimestamp.nullable().optional(),
      })
      .strict(),
    sections: z
      .array(
        z
          .object({
            id: menuId,
            name: z.string().max(200),
            description: text.default(''),
            sortOrder,
            enabled: z.boolean(),
            itemCount: z.unknown().optional(),
            updatedAt: z.unknown().optional(),
            items: z
              .array(
                z
                  .object({ ...itemFields, sectionId: menuId.optional(), updatedAt: z.unknown().optional() })
                  .strict(),
              )
              .max(1000),
          })
          .strict(),
      )
      .max(200),
  })
  .strict();
export type MenuInput = z.input<typeof menuInput>;

const menuSummary = z.object({
  available: z.boolean(),
  revision: z.string().nullable(),
  updatedAt: isoTimestamp.nullable(),
  /** The menu resource of this location. */
  endpoint: absoluteUrl,
});

export const bevqGroupData = z.object({
  group: z.object({ id: z.string(), name: z.string() }),
  locations: z.array(location.extend({ bevqEnabled: z.boolean(), menu: menuSummary })),
  refresh,
  nextCursor,
});

export const bevqLocationData = z.object({
  location,
  status: z.enum(['published', 'not_published']),
  menu: menuSummary.extend({
    sectionCount: z.number().int(),
    itemCount: z.number().int(),
    sourceHealth: menuData.shape.sourceHealth.nullable(),
  }),
  refresh,
});

export const bevqMenuData = z.object({ location, menu: menuData, refresh });

/** The body of every webhook request (6.3). */
export const webhookPayload = z.object({
  eventId: z.string(),
  eventType: z.enum(EVENT_TYPES),
  occurredAt: isoTimestamp,
  groupId: z.string(),
  locationId: z.string(),
  /** Current published menu revision; "" on a test event. */
  revision: z.string(),
  /** `/v1/{group_id}/{location_id}/bevq/menu`, a path under the base URL. */
  resource: z.string(),
  /** true only on test events; omitted otherwise. */
  test: z.literal(true).optional(),
});
export type WebhookPayload = z.infer<typeof webhookPayload>;
