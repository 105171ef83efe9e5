/** OAuth 2.0 authorization code with PKCE (RFC 7636), S256: the verifier stays in this tab, only its hash leaves it. */
const base64url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** 32 random bytes: a 43-character verifier, the RFC's minimum length, from the browser's CSPRNG. */
export const newVerifier = (): string => base64url(crypto.getRandomValues(new Uint8Array(32)));

export async function challengeOf(verifier: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
}
