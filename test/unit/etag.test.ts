import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits, parseIfNoneMatch, strongEtag } from '#domain/etag';

const etag = strongEtag('abc-123');

describe('If-None-Match', () => {
  it('matches the exact validator, its weak form, a list containing it, and *', () => {
    for (const header of ['"abc-123"', 'W/"abc-123"', '"x", "abc-123"', 'W/"x",W/"abc-123"', '"x" ,  "abc-123" ', '*', ' * ']) {
      expect(ifNoneMatchHits(header, etag), header).toBe(true);
    }
  });
  it('does not match other, unquoted or malformed validators', () => {
    for (const header of [
      undefined,
      '',
      '"abc-12"',
      'abc-123',
      '"abc-123',
      'W/',
      'w/"abc-123"',
      '"x" "abc-123"',
      '"abc-123";',
      '*, "abc-123"',
      '"x",,"abc-123"',
    ]) {
      expect(ifNoneMatchHits(header, etag), String(header)).toBe(false);
    }
  });
  it('parses lists into opaque tags', () => {
    expect(parseIfNoneMatch('W/"a", "b"')).toEqual(['a', 'b']);
    expect(parseIfNoneMatch('*')).toBe('*');
    expect(parseIfNoneMatch('"a" junk')).toBeNull();
  });
});
