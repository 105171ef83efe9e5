import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { challengeOf, newVerifier } from '#console/pkce';

/** The console's PKCE pair (RFC 7636, S256), checked against Node's own SHA-256 and the RFC's example. */
describe('console sign-in: PKCE', () => {
  it('makes 43-character unreserved verifiers, each new', () => {
    const verifiers = new Set(Array.from({ length: 50 }, newVerifier));
    expect(verifiers.size).toBe(50);
    for (const v of verifiers) expect(v).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("derives the S256 challenge: the RFC's example, and base64url of SHA-256 for any verifier", async () => {
    expect(await challengeOf('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const v = newVerifier();
    expect(await challengeOf(v)).toBe(createHash('sha256').update(v).digest('base64url'));
  });
});
