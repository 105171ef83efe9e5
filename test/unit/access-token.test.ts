import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { mintAccessToken, NAMED_TOKEN, readAccessToken } from '#domain/crypto';

const key = randomBytes(32);

describe('access tokens that name their application', () => {
  it('reads back the client id and expiry of a token it minted', () => {
    const token = mintAccessToken(key, 'app_1', 1_800_000_000);
    expect(NAMED_TOKEN.test(token)).toBe(true);
    expect(readAccessToken([key], token)).toEqual({ clientId: 'app_1', expiresAtSeconds: 1_800_000_000 });
    // Two tokens for the same application and instant still differ in their 256 random bits.
    expect(mintAccessToken(key, 'app_1', 1_800_000_000)).not.toBe(token);
  });

  it('refuses any altered part, and a tag under another key', () => {
    const token = mintAccessToken(key, 'app_1', 1_800_000_000);
    const [id, exp, secret, tag] = token.split('.') as [string, string, string, string];
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const altered of [
      `app_2.${exp}.${secret}.${tag}`,
      `${id}.${Number(exp) + 1}.${secret}.${tag}`,
      `${id}.${exp}.${flip(secret)}.${tag}`,
      `${id}.${exp}.${secret}.${flip(tag)}`,
    ]) {
      expect(readAccessToken([key], altered)).toBeNull();
    }
    expect(readAccessToken([randomBytes(32)], token)).toBeNull();
  });

  it('accepts a token signed by any accepted key version (during a rotation), and none when no version is accepted', () => {
    const older = randomBytes(32);
    const token = mintAccessToken(older, 'app_1', 1_800_000_000);
    expect(readAccessToken([key, older], token)).toEqual({ clientId: 'app_1', expiresAtSeconds: 1_800_000_000 });
    expect(readAccessToken([key], token)).toBeNull();
    expect(readAccessToken([], token)).toBeNull();
  });

  it('tells legacy credentials apart by their shape', () => {
    expect(NAMED_TOKEN.test(randomBytes(32).toString('base64url'))).toBe(false);
    expect(NAMED_TOKEN.test(`lgcy_${randomBytes(32).toString('base64url')}`)).toBe(false);
    expect(NAMED_TOKEN.test('a.b.c.d')).toBe(false);
    // A reserved word is no client id.
    expect(readAccessToken([key], mintAccessToken(key, 'v1', 1))).toBeNull();
  });
});
