import type { Deps } from './deps.js';
import { type App, appKeys, appsRepo, type Credential, credentialKeys, credentialScopes, credentialsRepo, useIsStale } from '#data/apps';
import { type Location, locationKeys, locationsRepo } from '#data/locations';
import type { ItemKey, Read } from '#data/store';
import type { RepositoryFactories, Store } from '#data/repositories';
import { mailOutboxRepo } from '#data/mail-outbox';
import { rateCountersRepo, rateWindow, type RateWindow } from '#data/rate-counters';
import { tokenKeysRepo } from '#data/token-keys';
import { namesApplication, readAccessToken, sha256Hex } from '#domain/crypto';
import { ApiError } from '#contract/errors';
import { isLocationRoute, moduleOfRoute, type Route } from '#contract/routes';
import { RATE_WARNING_FRACTION } from './config.js';

export type AuthContext = { app: App; credential: Credential };

/** What authorizing a request reads and writes: credential, signing key, application, rate counter, location, the owner's rate-limit mail. */
export const AUTH_REPOSITORIES = {
  credentials: credentialsRepo,
  tokenKeys: tokenKeysRepo,
  apps: appsRepo,
  rateCounters: rateCountersRepo,
  locations: locationsRepo,
  mailOutbox: mailOutboxRepo,
} satisfies RepositoryFactories;

export type Authorized = {
  auth: AuthContext;
  /** The path's location, loaded while authorizing location routes. */
  location: Location | null;
  rateHeaders: Record<string, string>;
  /** The store with this request's items already read: hand it to the operation only once authorization passed. */
  store: Store;
};

const REALM = 'Bearer realm="customer-api"';
// RFC 6750 b64token, bounded so a huge header costs nothing.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{16,512}=*)$/i;

/**
 * Authenticates and authorizes one /v1 request. The order is fixed so that a
 * token never learns anything about another group: (1) credential valid,
 * (2) not expired or revoked, (3) within the rate limit, (4) scope held,
 * (5) path group is the token's group, (6) location allowed, (7) location
 * exists, (8) module enabled there. Ids outside the token's reach are refused
 * with 403 before anything about them is returned, so 404 can only be seen
 * for the token's own group.
 *
 * Round trips: a token that names its application (domain/crypto.ts)
 * is checked from memory, then its credential, application, location and
 * the items the operation declared (`reads`) are fetched in one strongly
 * consistent BatchGetItem while the rate counter's UpdateItem and the
 * operation's declared Queries run beside it. Only a token whose signature
 * holds starts them, and what they read reaches the operation only once
 * authorization passed. A legacy credential must be found by hash first:
 * one round trip more.
 */
export async function authorize(
  deps: Deps,
  route: Route,
  params: Record<string, string>,
  authorization: string | undefined,
  now: number,
  reads: readonly Read[],
): Promise<Authorized> {
  if (!authorization) throw new ApiError('invalid_token', undefined, { 'WWW-Authenticate': REALM });
  // Built only when thrown: an error's stack trace is not free on the success path.
  const invalid = () => new ApiError('invalid_token', undefined, { 'WWW-Authenticate': `${REALM}, error="invalid_token"` });
  const token = BEARER.exec(authorization.trim())?.[1];
  if (!token) throw invalid();
  const tokenHash = sha256Hex(token);
  const window = rateWindow(now);
  const locationKey = isLocationRoute(route) && params.location_id ? locationKeys.location(params.group_id!, params.location_id) : null;
  // The application, its window counter, the location and the operation's items are independent: fetch them together, judge them in order.
  // An application this process has already seen past its limit in this window is not counted again: refused traffic writes nothing.
  let remembered: number | undefined;
  const hit = (clientId: string) => deps.store.rateCounters.hit('API', clientId, window.start, window.expiresAtSeconds);
  const fetchFor = (clientId: string, first: ItemKey[]) => {
    remembered = OVER_LIMIT.countIn(clientId, window.start);
    // A request that will be refused reads nothing ahead.
    const ahead = remembered === undefined ? reads : [];
    return Promise.all([
      deps.store.preload([...first, appKeys.app(clientId), ...(locationKey ? [locationKey] : []), ...ahead]),
      remembered ?? hit(clientId),
    ]);
  };

  let store: Store;
  let count: number;
  let credential: Credential | null;
  if (namesApplication(token)) {
    // No key yet: no such token was ever issued. A revoked or retired version's tokens are not ours. A token the
    // cached versions do not verify may be of a version added since: looked at once more, at most once a second.
    const named =
      readAccessToken(await deps.store.tokenKeys.verifiers(now), token) ??
      readAccessToken(await deps.store.tokenKeys.verifiers(now, { refresh: true }), token);
    if (!named) throw invalid();
    if (named.expiresAtSeconds * 1000 <= now) throw new ApiError('token_expired');
    [store, count] = await fetchFor(named.clientId, [credentialKeys.credential(tokenHash)]);
    credential = await store.credentials.get(tokenHash);
    if (credential?.clientId !== named.clientId) throw invalid();
    if (isExpired(credential, now)) throw new ApiError('token_expired');
  } else {
    credential = await deps.store.credentials.get(tokenHash);
    if (!credential) throw invalid();
    if (isExpired(credential, now)) throw new ApiError('token_expired');
    [store, count] = await fetchFor(credential.clientId, []);
  }
  const app = await store.apps.get(credential.clientId, { consistent: true });
  if (!app) throw invalid();
  if (app.status === 'revoked') throw new ApiError('token_revoked');
  if (app.expiresAt && Date.parse(app.expiresAt) <= now) throw new ApiError('application_expired');
  // A legacy credential's last use, for planning its retirement (contract 5.1 rule 5): a write at most once an hour.
  if (credential.credentialType === 'legacy_bearer' && useIsStale(app, now)) await recordLegacyUse(deps, app.clientId, now);

  if (remembered !== undefined && remembered <= app.rateLimitPerMinute) {
    // The limit was raised since this process remembered the count: count this request after all.
    OVER_LIMIT.forget(app.clientId);
    [count, remembered] = [await hit(app.clientId), undefined];
  }
  const rate = decide(count, app.rateLimitPerMinute, window);
  // Each written count reaches one request, which alone may alert; a remembered count was alerted on already.
  if (rate.alert && remembered === undefined) await queueRateAlert(deps, app, rate.alert, window.start, now);
  if (!rate.allowed) {
    OVER_LIMIT.remember(app.clientId, window.start, count);
    throw new ApiError('rate_limited', undefined, rate.headers);
  }

  const refuse = (code: ConstructorParameters<typeof ApiError>[0], headers: Record<string, string> = {}) =>
    new ApiError(code, undefined, { ...rate.headers, ...headers });
  // From here the application is seen with this token's scopes only: the scope check, and discovery's token block and resources.
  const scoped = { ...app, scopes: credentialScopes(app, credential) };
  if (route.scope && !scoped.scopes.includes(route.scope)) {
    throw refuse('insufficient_scope', {
      'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${route.scope}"`,
    });
  }
  if (params.group_id !== credential.groupId) throw refuse('group_not_allowed');
  let location: Location | null = null;
  if (isLocationRoute(route)) {
    const locationId = params.location_id!;
    if (app.allowedLocationIds && !app.allowedLocationIds.includes(locationId)) throw refuse('location_not_allowed');
    location = await store.locations.get(credential.groupId, locationId);
    if (!location) throw refuse('not_found');
    const module = moduleOfRoute(route);
    if (module && !location.modulesEnabled[module]) throw refuse('module_not_enabled');
  }
  return { auth: { app: scoped, credential }, location, rateHeaders: rate.headers, store };
}

/**
 * Applications this process has seen past their limit, with the count then,
 * for the current window only. Counts only grow within a window, so a
 * request of such an application would be refused anyway: it is judged with
 * the remembered count and writes nothing. Other processes still count; the
 * window's end clears the memory.
 */
const OVER_LIMIT = (() => {
  let windowStart = '';
  let counts = new Map<string, number>();
  const current = (start: string) => {
    if (start !== windowStart) [windowStart, counts] = [start, new Map<string, number>()];
    return counts;
  };
  return {
    countIn: (clientId: string, start: string): number | undefined => current(start).get(clientId),
    remember: (clientId: string, start: string, count: number) => void current(start).set(clientId, count),
    forget: (clientId: string) => void counts.delete(clientId),
  };
})();

/** A failed write of the last use never fails the request it was for: the next use after the hour tries again. */
async function recordLegacyUse(deps: Deps, clientId: string, now: number): Promise<void> {
  try {
    await deps.store.apps.markUsed(clientId, now);
  } catch (err) {
    deps.logger.warn('legacy credential use not recorded', { clientId, error: (err as Error).name });
  }
}

function isExpired(credential: Credential, now: number): boolean {
  return credential.expiresAt !== null && Date.parse(credential.expiresAt) <= now;
}

/** Owner e-mail at 80 % and on the first throttled request of a window, queued: the sweeper sends it, off the request path. */
async function queueRateAlert(deps: Deps, app: App, kind: 'warning' | 'exceeded', windowStart: string, now: number) {
  if (!app.ownerEmail) return;
  const subject =
    kind === 'warning'
      ? `Customer API: application ${app.name} reached 80% of its rate limit`
      : `Customer API: application ${app.name} exceeded its rate limit`;
  const text =
    `Application ${app.clientId} (${app.name}) ${kind === 'warning' ? 'reached 80% of' : 'exceeded'} ` +
    `its limit of ${app.rateLimitPerMinute} requests per minute in the UTC minute starting ${windowStart}Z.\n` +
    (kind === 'exceeded' ? 'Further requests in this minute receive 429 with Retry-After.\n' : '');
  await deps.store.mailOutbox.queue(`rate-limit#${app.clientId}#${windowStart}#${kind}`, { to: app.ownerEmail, subject, text }, now);
}

export type RateDecision = {
  allowed: boolean;
  headers: Record<string, string>;
  /** An owner alert this exact count triggers: each count is seen by one request only. */
  alert: 'warning' | 'exceeded' | null;
};

export function decide(count: number, limit: number, window: RateWindow): RateDecision {
  const allowed = count <= limit;
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - count)),
    'RateLimit-Reset': String(window.resetSeconds),
    'RateLimit-Policy': `${limit};w=60`,
  };
  if (!allowed) headers['Retry-After'] = String(window.resetSeconds);
  const warnAt = Math.ceil(limit * RATE_WARNING_FRACTION);
  const alert = count === limit + 1 ? 'exceeded' : count === warnAt ? 'warning' : null;
  return { allowed, headers, alert };
}
