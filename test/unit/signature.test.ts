import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sign } from '#lambdas/webhooks/attempt-rules';

/** The published vectors (spec/README.md): their signatures were computed with OpenSSL and Python, not by this code. */
type Vector = {
  name: string;
  secret: string;
  timestamp: string;
  body: string;
  bodyBase64: string;
  expected: string;
  header: string;
  valid: boolean;
  reason?: string;
};
const VECTORS: Vector[] = JSON.parse(readFileSync(new URL('../../spec/webhook-signature-vectors.json', import.meta.url), 'utf8'));
const byName = (name: string) => VECTORS.find((v) => v.name === name)!;

describe('the signature vectors themselves', () => {
  it('cover ASCII, non-ASCII UTF-8 (decomposed, JSON-escaped), raw whitespace (CRLF), {} and the near misses', () => {
    expect(VECTORS.map((v) => v.name).sort()).toEqual(
      [
        'ascii',
        'utf8',
        'whitespace',
        'empty-object',
        'near-miss-one-hex-digit',
        'near-miss-uppercase-hex',
        'near-miss-no-prefix',
        'near-miss-truncated',
        'near-miss-timestamp-off-by-one',
        'near-miss-reserialised-body',
        'utf8-decomposed',
        'utf8-json-escapes',
        'whitespace-crlf',
        'near-miss-nfc-normalised-body',
        'near-miss-unescaped-body',
        'near-miss-lf-body',
        'near-miss-decoded-secret',
        'near-miss-body-only',
        'near-miss-sha1-prefix',
        'near-miss-extra-hex-digit',
        'near-miss-space-after-prefix',
      ].sort(),
    );
    expect(byName('utf8').body).toContain('Café – ß – 日本 – 🍺');
    expect(byName('whitespace').body).toMatch(/\n\t/);
    expect(byName('empty-object').body).toBe('{}');
  });
  it('give each body as text and as the same UTF-8 bytes, and every expected value in the contract format', () => {
    for (const v of VECTORS) {
      expect(Buffer.from(v.bodyBase64, 'base64').toString('utf8'), v.name).toBe(v.body);
      expect(v.expected, v.name).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(v.header === v.expected, v.name).toBe(v.valid);
      // A rejected case names why: a header not in the contract's format, or a well-formed one that does not match.
      expect(v.reason, v.name).toBe(
        v.valid ? undefined : /^sha256=[0-9a-f]{64}$/.test(v.header) ? 'signature_mismatch' : 'malformed_signature',
      );
    }
    // Multi-byte characters: the signed bytes are not the string's UTF-16 length.
    expect(Buffer.from(byName('utf8').bodyBase64, 'base64').length).toBeGreaterThan(byName('utf8').body.length);
  });
});

describe('sign (contract 6.4) against the vectors', () => {
  for (const v of VECTORS) {
    it(`signs ${v.name} as the independent computation did`, () => {
      expect(sign(v.secret, v.timestamp, v.body)).toBe(v.expected);
      expect(sign(v.secret, v.timestamp, Buffer.from(v.bodyBase64, 'base64').toString('utf8'))).toBe(v.expected);
    });
  }
  it('changes with the secret, the timestamp and any byte of the body', () => {
    const base = sign('s', '1', '{}');
    expect(sign('t', '1', '{}')).not.toBe(base);
    expect(sign('s', '2', '{}')).not.toBe(base);
    expect(sign('s', '1', '{ }')).not.toBe(base);
  });
});
