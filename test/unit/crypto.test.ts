import { describe, expect, it } from 'vitest';
import { randomSecret, safeEqual, sha256Hex } from '#domain/crypto';

describe('crypto helpers', () => {
  it('makes 256-bit base64url secrets that do not repeat', () => {
    const secrets = new Set(Array.from({ length: 1000 }, () => randomSecret()));
    expect(secrets.size).toBe(1000);
    for (const s of secrets) expect(s).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(randomSecret(), 'base64url')).toHaveLength(32);
  });

  it('hashes with SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('compares equal strings only, including different lengths', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
    expect(safeEqual('', '')).toBe(true);
  });
});
