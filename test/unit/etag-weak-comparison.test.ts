import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits } from '#domain/etag';

/**
 * Menu conditional reads (contract 4 rule 3) compare weakly: only a leading W/ marks a weak validator, on
 * either side, and the opaque part is compared whole, whatever characters it holds.
 */
describe('weak comparison of If-None-Match', () => {
  it('keeps a W/ inside the opaque part: the tag matches itself and not the tag without it', () => {
    expect(ifNoneMatchHits('"rev-W/1"', '"rev-W/1"')).toBe(true);
    expect(ifNoneMatchHits('W/"rev-W/1"', '"rev-W/1"')).toBe(true);
    expect(ifNoneMatchHits('"rev-1"', '"rev-W/1"')).toBe(false);
  });

  it('compares a current tag held in weak form by its opaque part', () => {
    expect(ifNoneMatchHits('"abc"', 'W/"abc"')).toBe(true);
    expect(ifNoneMatchHits('W/"abc"', 'W/"abc"')).toBe(true);
    expect(ifNoneMatchHits('"abd"', 'W/"abc"')).toBe(false);
  });
});
