import { ApiError } from './errors.js';

export interface TokenOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  fetch: (request: Request) => Promise<Response>;
  now: () => number;
  /** Renew this long before expiry (contract 5.1 rule 2: several minutes); default 5 minutes. */
  renewBeforeMs?: number;
}

/**
 * Client-credentials tokens (contract 5.1): one exchange, cached and reused until a few minutes before expiry.
 * Callers that find no usable token while an exchange is running wait for that one: there is never a second in flight.
 */
export function tokenSource(options: TokenOptions): { get(): Promise<string>; drop(value: string): void } {
  const renewBeforeMs = options.renewBeforeMs ?? 5 * 60_000;
  let cached: { value: string; expiresAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  async function exchange(): Promise<string> {
    // Encoded by hand: URLSearchParams is not among the globals every platform offers (the kit needs fetch and WebCrypto only).
    const body = Object.entries({ grant_type: 'client_credentials', client_id: options.clientId, client_secret: options.clientSecret })
      .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
      .join('&');
    const requestedAt = options.now();
    const response = await options.fetch(
      new Request(`${options.baseUrl}/oauth/token`, {
        method: 'POST',
        body,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
    );
    if (!response.ok) throw await ApiError.from(response);
    const token = (await response.json()) as { access_token: string; expires_in: number };
    // Counted from before the request: the token never outlives the copy's idea of it.
    cached = { value: token.access_token, expiresAt: requestedAt + token.expires_in * 1000 };
    return token.access_token;
  }

  return {
    get() {
      if (cached && options.now() < cached.expiresAt - renewBeforeMs) return Promise.resolve(cached.value);
      inFlight ??= exchange().finally(() => (inFlight = undefined));
      return inFlight;
    },
    /** Forgets `value` if it is still the cached token (a concurrent caller may have replaced it already). */
    drop(value) {
      if (cached?.value === value) cached = undefined;
    },
  };
}
