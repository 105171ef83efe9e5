import { type Route } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';

export type Reply = { status: number; headers: Headers; bytes: Buffer; text: string; json: any };
export type Http = (path: string, init?: { method?: string; headers?: Record<string, string>; body?: string }) => Promise<Reply>;

/** Plain fetch against the base URL (a stage URL keeps its `/dev` prefix); redirects are answers, not hops. */
export function httpClient(baseUrl: string): Http {
  const base = baseUrl.replace(/\/+$/, '');
  return async (path, init = {}) => {
    const response = await fetch(`${base}${path}`, { ...init, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
    const bytes = Buffer.from(await response.arrayBuffer());
    const text = bytes.toString('utf8');
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON: the checks say what they expected instead.
    }
    return { status: response.status, headers: response.headers, bytes, text, json };
  };
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

/** A route of the table by its operation name, so no path is spelt twice. */
export function route(operation: string): Route {
  const found = ROUTES.find((r) => r.operation === operation);
  if (!found) throw new Error(`no route ${operation}`);
  return found;
}

/** The route's path with its parameters filled in (encoded, as a client sends them). */
export function pathOf(operation: string, params: Record<string, string> = {}): string {
  return route(operation).path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${operation} needs ${name}`);
    return encodeURIComponent(value);
  });
}
