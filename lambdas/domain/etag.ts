/**
 * Conditional reads of the menu (contract 4 rule 3): the exact validator, its
 * weak form, a list containing a match, and `*` for an existing menu all
 * match; anything else (malformed included) does not.
 */

/** A strong entity tag from an opaque value (no quotes or control characters in it). */
export function strongEtag(opaque: string): string {
  return `"${opaque}"`;
}

/** The entity tags of an If-None-Match header, or '*'; null when the header is malformed. */
export function parseIfNoneMatch(header: string): '*' | string[] | null {
  const value = header.trim();
  if (value === '*') return '*';
  const tags: string[] = [];
  const pattern = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(,|$)/y;
  let index = 0;
  while (index < value.length) {
    pattern.lastIndex = index;
    const match = pattern.exec(value);
    if (!match) return null;
    tags.push(match[2]!);
    index = pattern.lastIndex;
    if (match[3] === '') break;
  }
  return tags.length ? tags : null;
}

/** Weak comparison (RFC 9110 13.1.2): W/ is ignored, the opaque parts must be equal. */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  const parsed = header === undefined ? null : parseIfNoneMatch(header);
  return parsed === '*' || (parsed?.includes(etag.replace(/^W\//, '').slice(1, -1)) ?? false);
}
