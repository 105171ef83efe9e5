import * as v from 'valibot';

/**
 * The one rule for names and free text (applications, destinations, groups, locations, the emergency stop's
 * `reason`), wherever they come in: admin, ingest and /v1. Text that could show or mean something else where it
 * is printed (the console, logs, terminals, mail subjects) is refused, never silently mended, so what is stored
 * is what was typed, in NFC. Why each character class: docs/decisions/plain-text.md.
 */

/** Control characters (C0, C1, DEL) and the line and paragraph separators: terminal escapes, log and header splitting. */
const CONTROL = /^[\p{Cc}\p{Zl}\p{Zp}]$/u;
/** Bidirectional embeddings, overrides and isolates ("Trojan Source": text that reads backwards). */
const BIDI_OVERRIDE = /^[\u202a-\u202e\u2066-\u2069]$/u;
/** ZWNJ and ZWJ: Persian and Indic spelling and emoji sequences need them, between two visible characters. */
const JOINER = /^[\u200c\u200d]$/u;
/**
 * What renders as nothing: every format character but the joiners (zero-width space, LRM, RLM, ALM, word
 * joiner, BOM, tags, soft hyphen ...) and the fillers that are letters or symbols by category (Hangul fillers,
 * the blank Braille pattern).
 */
const INVISIBLE = /^[\p{Cf}\u115f\u1160\u3164\uffa0\u2800]$/u;
/** A joiner's neighbours: letters (with their marks, such as a virama or an emoji's variation selector), digits, punctuation, symbols. */
const VISIBLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
/** What a text must hold at least one of (a text of marks alone shows nothing to read). */
const READABLE = /[\p{L}\p{N}\p{P}\p{S}]/u;

const codeOf = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why a text is refused, naming the first offending character, or null when every character may stay. */
function characterProblem(value: string): string | null {
  const chars = Array.from(value);
  for (const [i, char] of chars.entries()) {
    // Array.from keeps a surrogate without its pair as one element: not text at all (no UTF-8 encoding).
    if (/^\p{Cs}$/u.test(char)) return 'must not contain a lone surrogate (not valid Unicode text)';
    if (CONTROL.test(char)) return `must not contain control characters or line breaks (${codeOf(char)})`;
    if (BIDI_OVERRIDE.test(char)) return `must not contain bidirectional override or isolate characters (${codeOf(char)})`;
    if (JOINER.test(char)) {
      if (VISIBLE.test(chars[i - 1] ?? '') && VISIBLE.test(chars[i + 1] ?? '')) continue;
      return `must not contain a zero-width joiner or non-joiner except between visible characters (${codeOf(char)})`;
    }
    if (INVISIBLE.test(char)) return `must not contain invisible characters (${codeOf(char)})`;
  }
  return null;
}

/**
 * A name or free-text field: its characters checked before trimming (a trailing line break or BOM is refused,
 * not trimmed away), trimmed, not blank, at least one readable character, stored NFC, 1 to `max` characters.
 */
export function plainText(max: number) {
  return v.pipe(
    v.string(),
    v.check(
      (value) => characterProblem(value) === null,
      (issue) => characterProblem(issue.input)!,
    ),
    v.trim(),
    v.minLength(1, 'must not be blank'),
    v.check((value) => READABLE.test(value), 'must contain a letter, digit, punctuation mark or symbol'),
    v.normalize('NFC'),
    v.maxLength(max),
  );
}
