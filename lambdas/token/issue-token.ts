import type { APIGatewayProxyEvent } from 'aws-lambda';
import {
  ACCESS_TOKEN_TTL_SECONDS,
  MAX_REQUEST_BODY_BYTES,
  TOKEN_ADMITTED_ADDRESS_SECONDS,
  TOKEN_ADMITTED_ATTEMPTS_PER_MINUTE,
  TOKEN_ATTEMPTS_PER_MINUTE,
  TOKENS_ISSUED_PER_MINUTE,
} from '#platform/config';
import { mintAccessToken, safeEqual, sha256Hex } from '#domain/crypto';
import type { Deps } from '#platform/deps';
import { isId } from '#contract/ids';
import { parseIPv4, parseIPv6 } from '#domain/url-safety';
import { bodyBytes, bodyText, header, type HttpResponse, jsonResponse } from '#platform/http';
import { rateWindow, type RateWindow } from '#data/rate-counters';
import { secretGenerationOf } from '#data/apps';
import type { OAUTH_ERROR_CODES } from './schemas.js';
import type { Scope } from '#contract/scopes';
import { CLIENT_CREDENTIALS } from '#contract/credentials';

type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

const STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  unsupported_grant_type: 400,
  invalid_client: 401,
  temporarily_unavailable: 429,
};

// RFC 6749 5.1: token responses, including errors (the edge's too), are never cached.
export const TOKEN_NO_CACHE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

class OAuthError extends Error {
  constructor(
    readonly code: OAuthErrorCode,
    readonly description: string,
    readonly headers: Record<string, string> = {},
    /** The code's own status unless the refusal is of the method (405, with Allow). */
    readonly status = STATUS[code],
  ) {
    super(description);
  }
}

/** The refusal of a body over the limit (400 `invalid_request`), the edge's static answer included. */
export const TOKEN_BODY_TOO_LARGE = `The request body exceeds ${MAX_REQUEST_BODY_BYTES} bytes.`;

/** A hash no secret has, compared when the client is unknown so timing does not tell unknown ids apart. */
const UNKNOWN_CLIENT_HASH = sha256Hex('unknown-client');

/**
 * POST /oauth/token (contract 5.1, 7.2; RFC 6749 4.4): client_credentials
 * only, client authentication by form body or HTTP Basic, never both.
 */
export async function issueToken(event: APIGatewayProxyEvent, deps: Deps, ip: string | undefined): Promise<HttpResponse> {
  try {
    return await exchange(event, deps, ip);
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    return jsonResponse(err.status, { error: err.code, error_description: err.description }, { ...TOKEN_NO_CACHE, ...err.headers });
  }
}

async function exchange(event: APIGatewayProxyEvent, deps: Deps, ip: string | undefined): Promise<HttpResponse> {
  // The endpoint's ANY route brings every method here: another than POST is refused in the OAuth shape.
  if (event.httpMethod !== 'POST') throw new OAuthError('invalid_request', 'Use POST to request a token.', { Allow: 'POST' }, 405);
  const contentType = (header(event, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'Content-Type must be application/x-www-form-urlencoded.');
  }
  if (bodyBytes(event) > MAX_REQUEST_BODY_BYTES) {
    throw new OAuthError('invalid_request', TOKEN_BODY_TOO_LARGE);
  }
  const form = parseForm(bodyText(event));
  const basic = parseBasic(header(event, 'authorization'));
  if (basic && form.client_secret !== undefined) {
    throw new OAuthError('invalid_request', 'Use one client authentication method, not both.');
  }
  if (basic && form.client_id !== undefined && form.client_id !== basic.clientId) {
    throw new OAuthError('invalid_request', 'client_id differs from the Authorization header.');
  }
  if (!form.grant_type) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (form.grant_type !== CLIENT_CREDENTIALS) {
    throw new OAuthError('unsupported_grant_type', 'Only client_credentials is supported.');
  }

  const clientId = basic?.clientId ?? form.client_id ?? '';
  const clientSecret = basic?.clientSecret ?? form.client_secret ?? '';
  const challenge: Record<string, string> = basic ? { 'WWW-Authenticate': 'Basic realm="customer-api", charset="UTF-8"' } : {};
  const failed = new OAuthError('invalid_client', 'Client authentication failed.', challenge);
  // A client id outside the id rule names no application: refused before any counter is written for it.
  if (!clientId || !clientSecret || !isId(clientId)) throw failed;

  // Attempts per client id and source address, counted before the secret is checked, a made-up client id's as a
  // known one's: guessing is bounded per pair, and a stranger who spends the budget shuts out their own address.
  // Past it, the right secret still passes from an address admitted for the client id (one that got a token there
  // lately), up to the admitted cap: strangers' failures behind the owner's own NAT do not lock the owner out.
  const now = deps.clock.now();
  const window = rateWindow(now);
  const subject = attemptSubject(clientId, ip);
  const attempts = await deps.store.rateCounters.hit('TOKEN_ADDR', subject, window.start, window.expiresAtSeconds);
  if (attempts > TOKEN_ADMITTED_ATTEMPTS_PER_MINUTE) throw throttled(window);
  const overBudget = attempts > TOKEN_ATTEMPTS_PER_MINUTE;
  const [app, admitted] = await Promise.all([
    // A revocation made a moment ago counts.
    deps.store.apps.get(clientId, { consistent: true }),
    overBudget ? deps.store.rateCounters.admitted(subject, now) : true,
  ]);
  if (!admitted) throw throttled(window);
  // The current secret, or the one a rotation replaced while its overlap lasts; both compared every time, so the
  // answer's timing tells nothing about which matched or whether a rotation is under way.
  const presented = sha256Hex(clientSecret);
  const matchesCurrent = safeEqual(presented, app?.secretHash ?? UNKNOWN_CLIENT_HASH);
  const matchesPrevious = safeEqual(presented, app?.previousSecretHash ?? UNKNOWN_CLIENT_HASH);
  const secretMatches =
    matchesCurrent || (matchesPrevious && app?.previousSecretExpiresAt !== undefined && Date.parse(app.previousSecretExpiresAt) > now);
  const usable =
    app !== null &&
    secretMatches &&
    app.credentialType === CLIENT_CREDENTIALS &&
    app.status === 'active' &&
    (app.expiresAt === null || Date.parse(app.expiresAt) > now);
  // Past the budget a failure is throttled, whichever part failed: the same answer for every wrong client id or secret.
  if (!usable) throw overBudget ? throttled(window) : failed;
  // Judged once the client is known: a stranger learns nothing of an application's scopes.
  const scopes = requestedScopes(form.scope, app.scopes);

  // Tokens issued per client id, from every address together: only the secret's holder can spend this.
  const issued = await deps.store.rateCounters.hit('TOKEN', sha256Hex(clientId), window.start, window.expiresAtSeconds);
  if (issued > TOKENS_ISSUED_PER_MINUTE) throw throttled(window);

  const expiresAtSeconds = Math.floor(now / 1000) + ACCESS_TOKEN_TTL_SECONDS;
  const accessToken = mintAccessToken(await deps.store.tokenKeys.signingKey(now), app.clientId, expiresAtSeconds);
  const putCredential = deps.store.credentials.put({
    tokenHash: sha256Hex(accessToken),
    clientId: app.clientId,
    groupId: app.groupId,
    credentialType: CLIENT_CREDENTIALS,
    // The secret that matched: a rotation that ends its tokens ends this one (data/apps.ts tokenEnded).
    secretGeneration: secretGenerationOf(app) - (matchesCurrent ? 0 : 1),
    issuedAt: new Date(now).toISOString(),
    expiresAt: new Date(expiresAtSeconds * 1000).toISOString(),
    ...(scopes.length < app.scopes.length ? { scopes } : {}),
  });
  const admit = deps.store.rateCounters.admit(subject, Math.floor(now / 1000) + TOKEN_ADMITTED_ADDRESS_SECONDS);
  await Promise.all([putCredential, admit]);
  return jsonResponse(
    200,
    { access_token: accessToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: scopes.join(' ') },
    TOKEN_NO_CACHE,
  );
}

/**
 * RFC 6749 3.3: a request may name the scopes it wants, space-separated; the token gets those the application
 * holds (in the application's order), and names them in `scope`. Without the parameter it gets them all; a
 * request none of whose scopes the application holds is refused, saying so.
 */
function requestedScopes(requested: string | undefined, held: Scope[]): Scope[] {
  if (requested === undefined) return held;
  const names = requested.split(' ').filter((name) => name !== '');
  const granted = held.filter((scope) => names.includes(scope));
  if (granted.length === 0) {
    throw new OAuthError('invalid_request', 'The application holds none of the requested scopes; omit scope to get all it holds.');
  }
  return granted;
}

/** Contract 7.2: a throttled exchange is 429 `temporarily_unavailable`, with Retry-After until the window turns. */
function throttled(window: RateWindow): OAuthError {
  return new OAuthError('temporarily_unavailable', 'Too many token requests; retry later.', { 'Retry-After': String(window.resetSeconds) });
}

/** The parameters this endpoint reads; RFC 6749 3.2: any other is ignored, whatever its name. */
const FORM_FIELDS = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;
type FormField = (typeof FORM_FIELDS)[number];

/** Known form fields; RFC 6749 3.2 forbids repeating one. Looked up by name, never through an object's prototype. */
function parseForm(body: string): Partial<Record<FormField, string>> {
  const params = new URLSearchParams(body);
  const fields: Partial<Record<FormField, string>> = {};
  for (const name of FORM_FIELDS) {
    const values = params.getAll(name);
    if (values.length > 1) throw new OAuthError('invalid_request', `Parameter ${name} was given more than once.`);
    if (values.length === 1) fields[name] = values[0]!;
  }
  return fields;
}

/** RFC 6749 2.3.1: Basic credentials are form-urlencoded before base64. */
function parseBasic(authorization: string | undefined): { clientId: string; clientSecret: string } | null {
  if (!authorization) return null;
  const credentials = /^Basic +([A-Za-z0-9+/]+=*)$/i.exec(authorization.trim())?.[1] ?? '';
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  try {
    const unescape = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    if (colon >= 0) return { clientId: unescape(decoded.slice(0, colon)), clientSecret: unescape(decoded.slice(colon + 1)) };
  } catch {
    // A malformed percent-encoding: refused below like any other.
  }
  throw new OAuthError('invalid_request', 'The Authorization header is not valid HTTP Basic.');
}

/**
 * The address a failed exchange is charged to: an IPv4 address as it is, an IPv6 address by its /64 (one
 * customer's allocation: a host holding a /64 can pick a fresh address for every request), an IPv4-mapped IPv6
 * address as the IPv4 address it carries. Unknown (no source address reported) is one bucket of its own.
 */
export function addressBucket(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const v6 = parseIPv6(ip);
  if (v6) {
    const isMapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
    if (isMapped) return `4:${v6.slice(12).join('.')}`;
    return `6:${Buffer.from(v6.slice(0, 8)).toString('hex')}/64`;
  }
  const v4 = parseIPv4(ip);
  if (v4 !== null) return `4:${[24, 16, 8, 0].map((s) => Math.floor(v4 / 2 ** s) % 256).join('.')}`;
  // Not an address (never from API Gateway): bounded by the hash below all the same.
  return `?:${ip.slice(0, 64)}`;
}

/**
 * The attempt counter's subject for a client id and source address: a SHA-256, so the key is 64 characters
 * whatever was sent and no address is stored in the clear.
 */
export function attemptSubject(clientId: string, ip: string | undefined): string {
  return sha256Hex(`${clientId}\n${addressBucket(ip)}`);
}
