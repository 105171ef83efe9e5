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

export function createCustomerApiClient(options: CustomerApiOptions): CustomerApiClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const send = options.fetch ?? ((request: Request) => fetch(request));
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const budget = { ...DEFAULT_RETRY, ...options.retry };
  const tokens = tokenSource({ ...options, baseUrl, fetch: send, now });

  async function authorised(request: Request): Promise<Response> {
    request.headers.set('Authorization', `Bearer ${await tokens.get()}`);
    return send(request);
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
