import { expect } from 'vitest';

/**
 * Contract 6.5 rule 6: a signing secret is 32 random bytes, base64url, at creation and at rotation. Decoded, not
 * matched by length alone: Node's base64url decoder skips characters outside the alphabet, and 43 characters could
 * carry stray bits, so the bytes must re-encode to the very string shown.
 */
export function expectSigningSecret(secret: unknown): void {
  expect(secret).toEqual(expect.any(String));
  const bytes = Buffer.from(secret as string, 'base64url');
  expect(bytes).toHaveLength(32);
  expect(bytes.toString('base64url')).toBe(secret);
}
