import { sha256Hex } from '#domain/crypto';
import { strongEtag } from '#domain/etag';
import type { MenuData, MenuItem, MenuSection, PosHealth } from '#contract/schemas/bevq';
import { menuInput } from '#contract/schemas/bevq';
import type { InferOutput } from 'valibot';

/**
 * Turns a rebuilt menu into the published one: configured order, computed
 * counts, timestamps and revision. Pure; the caller persists.
 */

/** JSON with object keys sorted at every level, so equal content always hashes equally. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const hash = (value: unknown) => sha256Hex(canonicalJson(value));

/** Contract 2.11 rule 3: not an age threshold, only the order of success and failure. */
export function posHealth(lastSyncAt: string | null, lastFailureAt: string | null | undefined): PosHealth {
  if (!lastSyncAt) return 'unknown';
  if (lastFailureAt && Date.parse(lastFailureAt) > Date.parse(lastSyncAt)) return 'stale';
  return 'current';
}

type ParsedInput = InferOutput<typeof menuInput>;
type ItemContent = Omit<MenuItem, 'updatedAt'>;
type SectionContent = Omit<MenuSection, 'updatedAt' | 'itemCount' | 'items'> & { items: ItemContent[] };

/** Stable sort by the configured sortOrder; equal values keep the given order. */
function bySortOrder<T extends { sortOrder: number }>(rows: readonly T[]): T[] {
  return rows
    .map((row, i) => ({ row, i }))
    .sort((a, b) => a.row.sortOrder - b.row.sortOrder || a.i - b.i)
    .map((x) => x.row);
}

/** The externally published content: what the revision is a hash of (no timestamps, counts or POS health). */
function publishedContent(input: ParsedInput): SectionContent[] {
  return bySortOrder(input.sections).map((section) => {
    const { itemCount: _c, updatedAt: _u, items, ...fields } = section;
    return {
      ...fields,
      items: bySortOrder(items).map(({ updatedAt: _iu, ...item }) => ({ ...item, sectionId: section.id })),
    };
  });
}

function revisionOf(content: SectionContent[]): string {
  return hash(content).slice(0, 32);
}

export type BuiltMenu = {
  menu: MenuData;
  etag: string;
  /** A new published revision: emits `bevq.menu.updated`. */
  newRevision: boolean;
  /** Anything a reader sees differs (revision or source health): the item must be rewritten. */
  changed: boolean;
};

/** Problems a schema cannot express: duplicate ids, items claiming another section. */
export function contentProblems(input: ParsedInput): string[] {
  const problems: string[] = [];
  const sectionIds = new Set<string>();
  for (const section of input.sections) {
    if (sectionIds.has(section.id)) problems.push(`section ${section.id} appears twice`);
    sectionIds.add(section.id);
    const itemIds = new Set<string>();
    for (const item of section.items) {
      if (itemIds.has(item.id)) problems.push(`item ${item.id} appears twice in section ${section.id}`);
      itemIds.add(item.id);
      if (item.sectionId !== undefined && item.sectionId !== section.id) {
        problems.push(`item ${item.id} says sectionId ${item.sectionId} but is in section ${section.id}`);
      }
      const sizeIds = new Set(item.sizes.map((s) => s.id));
      if (sizeIds.size !== item.sizes.length) problems.push(`item ${item.id} repeats a size id`);
    }
  }
  return problems;
}

export function buildMenu(input: ParsedInput, previous: MenuData | null, now: number): BuiltMenu {
  const at = new Date(now).toISOString();
  const content = publishedContent(input);
  const revision = revisionOf(content);
  const newRevision = previous?.revision !== revision;

  const previousSections = new Map((previous?.sections ?? []).map((s) => [s.id, s]));
  const sections: MenuSection[] = content.map(({ items, ...fields }) => {
    const before = previousSections.get(fields.id);
    const beforeItems = new Map((before?.items ?? []).map((i) => [i.id, i]));
    const built = items.map((item) => {
      const old = beforeItems.get(item.id);
      const same = old && hash({ ...old, updatedAt: undefined }) === hash(item);
      return { ...item, updatedAt: same ? old.updatedAt : at };
    });
    const sectionSame =
      before &&
      hash({ ...before, items: undefined, itemCount: undefined, updatedAt: undefined }) === hash(fields) &&
      before.items.length === built.length &&
      built.every((item, i) => item.updatedAt === before.items[i]!.updatedAt && item.id === before.items[i]!.id);
    return { ...fields, itemCount: built.length, updatedAt: sectionSame ? before.updatedAt : at, items: built };
  });

  const { lastPosSyncAt, lastPosFailureAt } = input.sourceHealth;
  const sourceHealth = { pos: posHealth(lastPosSyncAt, lastPosFailureAt), lastPosSyncAt };
  const menu: MenuData = {
    updatedAt: newRevision || !previous ? at : previous.updatedAt,
    revision,
    sourceHealth,
    sectionCount: sections.length,
    itemCount: sections.reduce((n, s) => n + s.items.length, 0),
    sections,
  };
  // The validator covers the revision and the source health, the two things a re-read can reveal.
  const etag = strongEtag(`${revision}-${hash(sourceHealth).slice(0, 8)}`);
  const changed = newRevision || hash(previous?.sourceHealth) !== hash(sourceHealth);
  return { menu, etag, newRevision, changed };
}
