import * as v from 'valibot';
import { absoluteUrl, decimal, isoTimestamp, nextCursor, nonNegativeMoney, refresh } from './common.js';

/** Beverage menu (contract 2.11), the bevq resources around it, and the webhook payload (6.3). */

const text = v.pipe(v.string(), v.maxLength(2000));
const menuId = v.pipe(v.string(), v.minLength(1), v.maxLength(128));
/** Position within a section or menu; only the order matters. */
const sortOrder = v.pipe(v.number(), v.safeInteger(), v.minValue(-1_000_000), v.maxValue(1_000_000));
const location = v.object({ id: v.string(), name: v.string(), timezone: v.string() });

const menuSize = v.object({
  id: menuId,
  name: v.pipe(v.string(), v.maxLength(200)),
  /** Up to a half-barrel keg (1,984 oz). */
  ounces: decimal(0, 2_000, 2),
  price: nonNegativeMoney,
  /** The location's authoritative POS currency, as stored; never derived from locale or symbol. */
  currency: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')),
  available: v.boolean(),
});

/** An item's sizes: at most 20. */
const sizeList = <S extends v.GenericSchema>(size: S) => v.pipe(v.array(size), v.maxLength(20));

const menuBrand = v.object({
  id: v.optional(v.pipe(v.string(), v.maxLength(128))),
  name: v.optional(v.pipe(v.string(), v.maxLength(200))),
  type: v.optional(v.pipe(v.string(), v.maxLength(100))),
  imageUrl: v.optional(absoluteUrl),
});

const itemFields = {
  id: menuId,
  type: v.pipe(v.string(), v.maxLength(100)),
  name: v.pipe(v.string(), v.maxLength(200)),
  displayName: v.pipe(v.string(), v.maxLength(200)),
  brand: v.optional(menuBrand),
  style: v.pipe(v.string(), v.maxLength(200)),
  category: v.pipe(v.string(), v.maxLength(200)),
  abv: v.nullable(decimal(0, 100, 2)),
  ibu: v.nullable(decimal(0, 1000, 1)),
  country: v.pipe(v.string(), v.maxLength(100)),
  region: v.pipe(v.string(), v.maxLength(200)),
  description: text,
  imageUrl: v.nullable(absoluteUrl),
  posItemId: v.nullable(v.pipe(v.string(), v.maxLength(128))),
  posGroupId: v.nullable(v.pipe(v.string(), v.maxLength(128))),
  mapped: v.boolean(),
  available: v.boolean(),
  sizes: sizeList(menuSize),
  sortOrder,
};

export const menuItem = v.object({ ...itemFields, sectionId: menuId, updatedAt: isoTimestamp });

export const menuSection = v.object({
  id: menuId,
  name: v.pipe(v.string(), v.maxLength(200)),
  description: text,
  sortOrder,
  enabled: v.boolean(),
  itemCount: v.pipe(v.number(), v.safeInteger()),
  updatedAt: isoTimestamp,
  items: v.array(menuItem),
});

export const posHealth = v.picklist(['current', 'stale', 'unknown']);
/** A menu's POS source health (contract 2.11 rule 3), as webhooks/publish.ts derives it. */
export type PosHealth = v.InferOutput<typeof posHealth>;

export const menuData = v.object({
  updatedAt: isoTimestamp,
  revision: v.string(),
  sourceHealth: v.object({ pos: posHealth, lastPosSyncAt: v.nullable(isoTimestamp) }),
  sectionCount: v.pipe(v.number(), v.safeInteger()),
  itemCount: v.pipe(v.number(), v.safeInteger()),
  sections: v.array(menuSection),
});
export type MenuData = v.InferOutput<typeof menuData>;
export type MenuSection = v.InferOutput<typeof menuSection>;
export type MenuItem = v.InferOutput<typeof menuItem>;

/**
 * A rebuilt menu as published (admin CLI `menus publish`, the ingest
 * function): the shape of `data.menu`, with everything the service computes
 * optional and ignored (revision, counts, timestamps, `pos`). POS health
 * comes from the reconciliation times.
 */
const ignored = v.optional(v.unknown());

/** An item as published: strict at every depth, its brand and sizes too, so a misspelt field is refused, not dropped. */
const itemInput = v.strictObject({
  ...itemFields,
  brand: v.optional(v.strictObject(menuBrand.entries)),
  sizes: sizeList(v.strictObject(menuSize.entries)),
  sectionId: v.optional(menuId),
  updatedAt: ignored,
});

const sectionInput = v.strictObject({
  ...menuSection.entries,
  description: v.optional(text, ''),
  itemCount: ignored,
  updatedAt: ignored,
  items: v.pipe(v.array(itemInput), v.maxLength(1000)),
});

export const menuInput = v.strictObject({
  revision: ignored,
  updatedAt: ignored,
  sectionCount: ignored,
  itemCount: ignored,
  sourceHealth: v.strictObject({
    pos: ignored,
    /** Last successful persisted POS reconciliation; null when none has succeeded yet. */
    lastPosSyncAt: v.nullable(isoTimestamp),
    /** Last failed POS attempt, if any. */
    lastPosFailureAt: v.optional(v.nullable(isoTimestamp)),
  }),
  sections: v.pipe(v.array(sectionInput), v.maxLength(200)),
});
export type MenuInput = v.InferInput<typeof menuInput>;

const menuSummary = v.object({
  available: v.boolean(),
  revision: v.nullable(v.string()),
  updatedAt: v.nullable(isoTimestamp),
  /** The menu resource of this location. */
  endpoint: absoluteUrl,
});

export const bevqGroupData = v.object({
  group: v.object({ id: v.string(), name: v.string() }),
  locations: v.array(v.object({ ...location.entries, bevqEnabled: v.boolean(), menu: menuSummary })),
  refresh,
  nextCursor,
});

export const bevqLocationData = v.object({
  location,
  status: v.picklist(['published', 'not_published']),
  menu: v.object({
    ...menuSummary.entries,
    sectionCount: v.pipe(v.number(), v.safeInteger()),
    itemCount: v.pipe(v.number(), v.safeInteger()),
    sourceHealth: v.nullable(menuData.entries.sourceHealth),
  }),
  refresh,
});

export const bevqMenuData = v.object({ location, menu: menuData, refresh });
