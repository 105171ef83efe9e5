import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { ADMIN_ROUTES, type AdminOperation } from '#contract/admin-routes';

/**
 * The admin API as the CLI calls it: one HTTP request per operation, found
 * by the operation's name in the admin route table, so the admin function
 * validates, changes and records each change in the audit trail
 * (docs/decisions/audit.md). A stage's requests are signed with SigV4, a
 * local runtime's carry its admin key.
 */

type AdminRequest = {
  params?: Record<string, string>;
  /** Absent values are left out. */
  query?: Record<string, string | undefined>;
  body?: unknown;
};

export type AdminApi = {
  /** The operation's JSON answer (undefined for 204), typed as the caller expects it; throws AdminApiError for any other answer. */
  call<T = unknown>(operation: AdminOperation, request?: AdminRequest): Promise<T>;
};

/** The admin API refused the request (or could not be reached): its message; exit code 2. */
export class AdminApiError extends Error {}

/** A request about to be sent; returns the headers to send it with (Authorization among them). */
export type Authorize = (request: {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: string | undefined;
}) => Promise<Record<string, string>>;

/** The local runtime's stand-in for IAM: `Authorization: Bearer <admin key>` (local/gateway.ts). */
export const withAdminKey =
  (key: string): Authorize =>
  async ({ headers }) => ({ ...headers, authorization: `Bearer ${key}` });

/** Credentials as the AWS SDK resolves them (the default chain: environment, profile, SSO, instance role…). */
type Credentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string | undefined };

/** SigV4 for API Gateway's IAM authorization (service execute-api), by the AWS SDK's own signer. */
export function withSigV4(
  region: string,
  credentials: Credentials | (() => Promise<Credentials>),
  now: () => Date = () => new Date(),
): Authorize {
  const signer = new SignatureV4({ service: 'execute-api', region, credentials, sha256: NodeSha256 });
  return async ({ method, url, headers, body }) => {
    const signed = await signer.sign(
      {
        method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        // The host is signed as sent; fetch adds the same one.
        headers: { ...headers, host: url.host },
        ...(body === undefined ? {} : { body }),
      },
      { signingDate: now() },
    );
    const { host: _host, ...rest } = signed.headers;
    return rest;
  };
}

/** SHA-256 and HMAC-SHA-256 in the shape the signer takes (its `sha256` option), from node:crypto. */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

const bytes = (data: string | ArrayBuffer | ArrayBufferView): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

/** The admin API at `baseUrl` (the API's root: the local runtime's URL, a stage's ApiUrl output). */
export function adminApi(baseUrl: string, authorize: Authorize): AdminApi {
  return {
    async call<T>(operation: AdminOperation, { params = {}, query = {}, body }: AdminRequest = {}): Promise<T> {
      const route = ADMIN_ROUTES.find((r) => r.operation === operation)!;
      const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
      const url = new URL(path.slice(1), baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
      for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
      const text = body === undefined ? undefined : JSON.stringify(body);
      const headers = await authorize({
        method: route.method,
        url,
        headers: text === undefined ? {} : { 'content-type': 'application/json' },
        body: text,
      });
      let response: Response;
      try {
        response = await fetch(url, { method: route.method, headers, ...(text === undefined ? {} : { body: text }) });
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new AdminApiError(`cannot reach the admin API at ${url.origin}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
      }
      const answer = await response.text();
      if (response.ok) return (answer ? JSON.parse(answer) : undefined) as T;
      throw new AdminApiError(messageOf(response.status, answer));
    },
  };
}

/** The service's own message (its error shape); API Gateway's answers (`{"message": "Forbidden"}`) with their status. */
function messageOf(status: number, answer: string): string {
  let parsed: { error?: { message?: unknown }; message?: unknown } = {};
  try {
    parsed = JSON.parse(answer) as typeof parsed;
  } catch {
    // Not JSON: the status alone.
  }
  if (typeof parsed.error?.message === 'string') return parsed.error.message;
  return `the admin API answered ${status}${typeof parsed.message === 'string' ? `: ${parsed.message}` : ''}`;
}
