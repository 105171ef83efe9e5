import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { plainText } from '#contract/plain-text';

/**
 * The rule for names and free text, with generated strings: every character the rule names is refused wherever
 * it stands, the joiners only between visible characters, a text that shows nothing is refused, and what is
 * accepted is trimmed, NFC and the same when read again. The refused characters are listed here one by one, not
 * by the categories the rule uses, so a category that stops covering one of them fails a test.
 */

const rule = plainText(5000);
const parse = (value: string) => v.safeParse(rule, value);
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i));

const REFUSED: Record<string, string[]> = {
  'C0 and C1 controls, DEL': [...range(0x00, 0x1f), ...range(0x7f, 0x9f)],
  'bidi embeddings, overrides, isolates': [...range(0x202a, 0x202e), ...range(0x2066, 0x2069)],
  'Arabic letter mark, LRM, RLM': ['\u061c', '\u200e', '\u200f'],
  'zero-width space, word joiner, BOM': ['\u200b', '\u2060', '\ufeff'],
  'tag characters': ['\u{e0001}', ...range(0xe0020, 0xe007f)],
  'line and paragraph separators': ['\u2028', '\u2029'],
  'fillers that render as nothing': ['\u115f', '\u1160', '\u3164', '\uffa0', '\u2800'],
  'lone surrogates': ['\ud800', '\udbff', '\udc00', '\udfff'],
};
const refusedChar = fc.constantFrom(...Object.values(REFUSED).flat());
const JOINERS = ['\u200c', '\u200d'];

/** Letters of several scripts, digits, punctuation and symbols, one code point each. */
const visibleChar = fc.constantFrom<string>('a', 'Z', '7', '-', '.', '€', 'é', 'ß', 'Ж', 'ی', 'خ', 'क', 'ष', '中', 'バ', '😀', '🔥', '𝄞');
/** Text as people type it: any printable graphemes (accents, emoji sequences, any script). */
const typed = fc.string({ unit: 'grapheme', maxLength: 20 });
/** Any code point, with the characters the rule is about, joiners and spaces drawn often. */
const anyText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    refusedChar,
    fc.constantFrom(...JOINERS, ' ', '\u3000', '\u0301'),
    visibleChar,
  ),
  maxLength: 12,
});

describe('names and free text', () => {
  it.each(Object.entries(REFUSED))('refuses %s wherever they stand', (_, chars) => {
    fc.assert(
      fc.property(typed, fc.constantFrom(...chars), typed, (before, char, after) => {
        expect(parse(`${before}${char}${after}`).success).toBe(false);
      }),
    );
  });

  it('takes ZWJ and ZWNJ between visible characters, and refuses them at an edge or beside a space or another joiner', () => {
    fc.assert(
      fc.property(fc.array(visibleChar, { minLength: 2, maxLength: 8 }), fc.array(fc.constantFrom(...JOINERS)), (chars, joiners) => {
        const joined = chars.reduce((text, char, i) => text + (joiners[i - 1] ?? '') + char);
        expect(parse(joined)).toMatchObject({ success: true, output: joined.normalize('NFC') });
      }),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...JOINERS),
        visibleChar,
        fc.constantFrom(
          (j: string, c: string) => `${j}${c}`,
          (j: string, c: string) => `${c}${j}`,
          (j: string, c: string) => `${c}${j} ${c}`,
          (j: string, c: string) => `${c}${j}${j}${c}`,
        ),
        (joiner, char, place) => {
          expect(parse(place(joiner, char)).success).toBe(false);
        },
      ),
    );
  });

  it('refuses text with no letter, digit, punctuation or symbol (spaces, marks and joiners alone)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(' ', '\u00a0', '\u3000', '\u0301', '\u0308', '\ufe0f'), maxLength: 10 }), (text) => {
        expect(parse(text).success).toBe(false);
      }),
    );
  });

  it('stores what it accepts trimmed and NFC, with something readable and none of the refused characters; reading it again changes nothing', () => {
    const refused = new Set(Object.values(REFUSED).flat());
    fc.assert(
      fc.property(anyText, (text) => {
        const result = parse(text);
        if (!result.success) return;
        const output = result.output;
        expect(output).toBe(text.trim().normalize('NFC'));
        expect(output).toMatch(/[\p{L}\p{N}\p{P}\p{S}]/u);
        expect(Array.from(output).filter((char) => refused.has(char))).toEqual([]);
        expect(parse(output)).toMatchObject({ success: true, output });
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['Persian with ZWNJ', 'می\u200cخواهم'],
    ['Devanagari with a virama and ZWJ', 'क्\u200dष'],
    ['an emoji family (ZWJ sequence)', '👨\u200d👩\u200d👧'],
    ['an emoji with a variation selector before ZWJ', '❤️\u200d🔥'],
    ['a regional-indicator flag', '🇫🇷 Bar'],
    ['right-to-left text', 'بار الشاطئ'],
  ])('takes %s', (_, text) => {
    expect(parse(text)).toMatchObject({ success: true, output: text });
  });

  it('names the first refused character, and says a blank name is blank', () => {
    const messageOf = (text: string) => v.safeParse(rule, text).issues?.[0]?.message;
    expect(messageOf('\u200b\u200b')).toBe('must not contain invisible characters (U+200B)');
    expect(messageOf('Bar\u200f')).toBe('must not contain invisible characters (U+200F)');
    expect(messageOf('\u3164')).toBe('must not contain invisible characters (U+3164)');
    expect(messageOf('Bar\u202e')).toBe('must not contain bidirectional override or isolate characters (U+202E)');
    expect(messageOf('Bar\n')).toBe('must not contain control characters or line breaks (U+000A)');
    expect(messageOf('\u200dBar')).toBe('must not contain a zero-width joiner or non-joiner except between visible characters (U+200D)');
    expect(messageOf('\u0301')).toBe('must contain a letter, digit, punctuation mark or symbol');
    expect(messageOf('   ')).toBe('must not be blank');
  });

  it('stores NFC: a letter and its combining accent become one character, counted once against the bound', () => {
    expect(parse('Cafe\u0301')).toMatchObject({ success: true, output: 'Café' });
    expect(v.safeParse(plainText(4), 'Cafe\u0301').success).toBe(true);
  });
});
