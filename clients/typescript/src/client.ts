import createClient, { type Client } from 'openapi-fetch';
import { ApiError } from './errors.js';
import { DEFAULT_RETRY, withRetries, type RetryBudget } from './retry.js';
import type { paths } from './schema.js';
import { tokenSource } from './token.js';

export interface CustomerApiOptions {
  /** The API's base URL, e.g. `https://api.example.com` (no trailing `/v1`). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /** Defaults to the platform's `fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Milliseconds since the epoch; defaults to `Date.now` (token expiry and `Retry-After` dates). */
  now?: () => number;
  /** How a retry waits; defaults to `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
  /** Renew the token this long before it expires; default 5 minutes. */
  renewBeforeMs?: number;
  retry?: Partial<RetryBudget>;
}

export interface CustomerApiClient {
  /**
   * The typed client of every route (openapi-fetch over the service's OpenAPI document). Each request carries the
   * cached token; safe requests are retried on 429 and 5xx; any answer other than 2xx or 304 throws an `ApiError`.
   */
  api: Client<paths>;
  /** The current access token (exchanged or renewed when needed). */
  token(): Promise<string>;
}

async function refusesToken(response: Response): Promise<boolean> {
  if (response.status === 401) return true;
  if (response.status !== 403) return false;
  const body = (await response
    .clone()
    .json()
    .catch(() => null)) as { error?: { code?: string } } | null;
  return body?.error?.code === 'token_expired';
}

export function createCustomerApiClient(options: CustomerApiOptions): CustomerApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const budget = { ...DEFAULT_RETRY, ...options.retry };
  const tokens = tokenSource({ ...options, baseUrl, fetch: send, now });

  /**
   * Sends with the cached token. A token the service no longer takes (401, or 403 `token_expired`: a clock that
   * jumped, a process that slept) is dropped and the request sent once more with a new one: it was refused before
   * anything acted, so even a POST may be repeated.
   */
  async function authorised(request: Request): Promise<Response> {
    for (let renewed = false; ; renewed = true) {
      const token = await tokens.get();
      const attempt = request.clone();
      attempt.headers.set('Authorization', `Bearer ${token}`);
      const response = await send(attempt);
      if (renewed || !(await refusesToken(response))) return response;
      await response.body?.cancel();
      tokens.drop(token);
    }
  }

  const api = createClient<paths>({
    baseUrl,
    fetch: async (request) => {
      const response = await withRetries(request, authorised, budget, { now, sleep });
      if (!response.ok && response.status !== 304) throw await ApiError.from(response);
      return response;
    },
  });
  return { api, token: () => tokens.get() };
}
