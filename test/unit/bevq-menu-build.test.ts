import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { buildMenu, canonicalJson, posHealth } from '#lambdas/webhooks/publish';
import { menuInput } from '#contract/schemas/bevq';
import { sampleMenu } from '#local/demo-menu';

const parse = (m: unknown) => v.parse(menuInput, m);
const T1 = Date.UTC(2026, 0, 1);
const T2 = Date.UTC(2026, 0, 2);

describe('canonicalJson', () => {
  it('sorts keys at every level and drops undefined', () => {
    expect(canonicalJson({ b: 1, a: [{ d: 1, c: undefined, b: 2 }] })).toBe('{"a":[{"b":2,"d":1}],"b":1}');
  });
});

describe('posHealth (2.11 rule 3)', () => {
  it('is unknown before any success, current after one, stale after a later failure, whatever the age', () => {
    expect(posHealth(null, null)).toBe('unknown');
    expect(posHealth(null, '2026-01-01T00:00:00Z')).toBe('unknown');
    expect(posHealth('2020-01-01T00:00:00Z', undefined)).toBe('current');
    expect(posHealth('2026-01-01T00:00:00Z', '2026-01-01T00:00:01Z')).toBe('stale');
    expect(posHealth('2026-01-01T00:00:02Z', '2026-01-01T00:00:01Z')).toBe('current');
  });
});

describe('buildMenu', () => {
  it('orders by the configured sortOrder and computes counts and timestamps', () => {
    const { menu, newRevision } = buildMenu(parse(sampleMenu()), null, T1);
    expect(newRevision).toBe(true);
    expect(menu.sections.map((s) => s.id)).toEqual(['sec-draft', 'sec-wine']);
    expect(menu.sections[0]!.items.map((i) => i.id)).toEqual(['itm-lager', 'itm-ipa']);
    expect([menu.sectionCount, menu.itemCount, menu.sections[0]!.itemCount]).toEqual([2, 3, 2]);
    expect(menu.updatedAt).toBe(new Date(T1).toISOString());
  });
  it('ignores given revision, counts and timestamps', () => {
    const input = { ...sampleMenu(), revision: 'forged', itemCount: 99, updatedAt: '2000-01-01T00:00:00Z' };
    const a = buildMenu(parse(input), null, T1);
    const b = buildMenu(parse(sampleMenu()), null, T1);
    expect(a.menu).toEqual(b.menu);
  });
  it('keeps revision and ETag for the same content in any key order, and the previous timestamps', () => {
    const first = buildMenu(parse(sampleMenu()), null, T1);
    const reordered = JSON.parse(
      JSON.stringify(sampleMenu(), (_k, v) =>
        v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
      ),
    );
    const again = buildMenu(parse(reordered), first.menu, T2);
    expect(again).toMatchObject({ newRevision: false, changed: false, etag: first.etag });
    expect(again.menu).toEqual(first.menu);
  });
  it('gives new content a new revision and ETag, touching only what changed', () => {
    const first = buildMenu(parse(sampleMenu()), null, T1);
    const next = buildMenu(parse(sampleMenu({ price: 9.25 })), first.menu, T2);
    expect(next.newRevision).toBe(true);
    expect(next.menu.revision).not.toBe(first.menu.revision);
    expect(next.etag).not.toBe(first.etag);
    const draft = next.menu.sections[0]!;
    expect(draft.updatedAt).toBe(new Date(T2).toISOString());
    expect(draft.items.find((i) => i.id === 'itm-ipa')!.updatedAt).toBe(new Date(T2).toISOString());
    expect(draft.items.find((i) => i.id === 'itm-lager')!.updatedAt).toBe(new Date(T1).toISOString());
    expect(next.menu.sections[1]!.updatedAt).toBe(new Date(T1).toISOString());
  });
  it('changes the ETag but not the revision when only source health changes', () => {
    const first = buildMenu(parse(sampleMenu()), null, T1);
    const stale = buildMenu(parse(sampleMenu({ lastPosFailureAt: '2026-11-22T12:00:00.000Z' })), first.menu, T2);
    expect(stale).toMatchObject({ newRevision: false, changed: true });
    expect(stale.menu.revision).toBe(first.menu.revision);
    expect(stale.etag).not.toBe(first.etag);
    expect(stale.menu.sourceHealth.pos).toBe('stale');
    expect(stale.menu.updatedAt).toBe(first.menu.updatedAt);
  });
});
