/**
 * The admin HTTP API, with the signed-in credential held in memory only:
 * never in storage or a cookie, so a reload signs out and no other page can
 * send it (no cookie: no cross-site request forgery).
 */
let credential: string | null = null;
/** The admin API's base path: /admin/v1 locally, the console's prefix in AWS (config.json). */
let base = '/admin/v1';
export const useApi = (apiBase: string) => void (base = apiBase);

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const signIn = (key: string) => void (credential = key);
export const signOut = () => void (credential = null);

export async function api<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${credential ?? ''}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  const parsed: unknown = text ? JSON.parse(text) : undefined;
  if (!response.ok) {
    // The API's own message; the gateway's refusals carry {"message"} only.
    const refusal = parsed as { error?: { message?: string }; message?: string } | undefined;
    throw new ApiFailure(response.status, refusal?.error?.message ?? refusal?.message ?? `HTTP ${response.status}`);
  }
  return parsed as T;
}
