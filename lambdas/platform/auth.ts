import type { Deps } from './deps.js';
import {
  type App,
  appKeys,
  appsRepo,
  type Credential,
  credentialKeys,
  credentialScopes,
  credentialsRepo,
  tokenEnded,
  useIsStale,
} from '#data/apps';
import { type Location, locationKeys, locationsRepo } from '#data/locations';
import type { ItemKey, Read } from '#data/store';
import type { RepositoryFactories, Store } from '#data/repositories';
import { mailOutboxRepo } from '#data/mail-outbox';
import { type Grant, rateCountersRepo, type RateLeases, rateWindow, type RateWindow } from '#data/rate-counters';
import { tokenKeysRepo, VERIFIERS_CACHE_MS, VERIFIERS_REFRESH_MS } from '#data/token-keys';
import { NAMED_TOKEN, type NamedToken, readAccessToken, sha256Hex } from '#domain/crypto';
import { ApiError, type ErrorCode } from '#contract/errors';
import type { Route, RouteFacts } from '#contract/routes';
import { RATE_WARNING_FRACTION } from './config.js';
import { LEGACY_BEARER } from '#contract/credentials';

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

const REALM = 'Bearer realm="customer-api"';
// RFC 6750 b64token, bounded so a huge header costs nothing.
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]{16,512}=*)$/i;

/** Tokens this instance has verified, by hash, per set of key versions it read: at most this many a set. */
const VERIFIED_TOKENS = 10_000;
const verifiedTokens = new WeakMap<readonly Buffer[], Map<string, NamedToken>>();

/** Per function instance (its store), the verifying versions it read last and when, by the request's clock. */
const readVerifiers = new WeakMap<object, { at: number; keys: Buffer[] }>();

/**
 * The versions whose tokens are accepted, read at most every VERIFIERS_CACHE_MS, never a read per request; with
 * `refresh` (a token the kept ones did not verify), read again unless read within VERIFIERS_REFRESH_MS, so a forged
 * token costs a function at most one read a second. None yet (no token ever issued) is asked again next time, so the
 * first token works at once.
 */
async function verifiers(deps: Deps, now: number, refresh = false): Promise<Buffer[]> {
  const hit = readVerifiers.get(deps.store);
  const age = hit && now >= hit.at ? now - hit.at : Infinity;
  if (hit && age < (refresh ? VERIFIERS_REFRESH_MS : hit.keys.length ? VERIFIERS_CACHE_MS : 0)) return hit.keys;
  const keys = await deps.store.tokenKeys.verifiers(now);
  readVerifiers.set(deps.store, { at: now, keys });
  return keys;
}

/**
 * A token's tag checked once per set of key versions: the set read again (every VERIFIERS_CACHE_MS, or after a
 * rotation or revocation) starts a new memory, so a revoked version's tokens are refused as promptly as before.
 * Keyed by the token's hash, never the token. Only a token that verified is kept.
 */
function verifiedBy(keys: readonly Buffer[], token: string, tokenHash: string): NamedToken | null {
  let known = verifiedTokens.get(keys);
  if (!known) verifiedTokens.set(keys, (known = new Map<string, NamedToken>()));
  const seen = known.get(tokenHash);
  if (seen) return seen;
  const named = readAccessToken(keys, token);
  if (named) {
    if (known.size >= VERIFIED_TOKENS) known.clear();
    known.set(tokenHash, named);
  }
  return named;
}

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
 * consistent BatchGetItem while the operation's declared Queries, and the
 * rate counter's claim when this instance holds no lease, run beside it. A
 * claim of several units that no longer fits is made again for one, after
 * the read: once per instance and window at most, near the limit or the
 * 80 % mark. Only a token whose signature
 * holds starts them, and what they read reaches the operation only once
 * authorization passed. A legacy credential must be found by hash first:
 * one round trip more.
 */
export async function authorize(
  deps: Deps,
  leases: RateLeases,
  route: Pick<Route, 'scope'> & Pick<RouteFacts, 'atLocation' | 'module'>,
  params: Record<string, string>,
  authorization: string | undefined,
  now: number,
  reads: readonly Read[],
) {
  if (!authorization) throw new ApiError('invalid_token', undefined, { 'WWW-Authenticate': REALM });
  // Built only when thrown: an error's stack trace is not free on the success path.
  const invalid = () => new ApiError('invalid_token', undefined, { 'WWW-Authenticate': `${REALM}, error="invalid_token"` });
  const token = BEARER.exec(authorization.trim())?.[1];
  if (!token) throw invalid();
  const tokenHash = sha256Hex(token);
  const window = rateWindow(now);
  const locationKey = route.atLocation && params.location_id ? locationKeys.location(params.group_id!, params.location_id) : null;
  // The application, a unit of its window, the location and the operation's items are independent: fetch them together, judge them in order.
  // A unit comes from this instance's lease in memory; only a request that finds none claims one (a lease) beside the reads.
  const fetchFor = (clientId: string, first: ItemKey[]) => {
    // A request that will be refused reads nothing ahead.
    const ahead = leases.knowsFull(clientId, window) ? [] : reads;
    const granted = leases.acquire(clientId, window, now);
    return Promise.all([deps.store.preload([...first, appKeys.app(clientId), ...(locationKey ? [locationKey] : []), ...ahead]), granted]);
  };

  let store: Store;
  let grant: Grant;
  let credential: Credential | null;
  if (NAMED_TOKEN.test(token)) {
    // No key yet: no such token was ever issued. A revoked or retired version's tokens are not ours. A token the
    // cached versions do not verify may be of a version added since: looked at once more, at most once a second.
    const named =
      verifiedBy(await verifiers(deps, now), token, tokenHash) ?? verifiedBy(await verifiers(deps, now, true), token, tokenHash);
    if (!named) throw invalid();
    if (named.expiresAtSeconds * 1000 <= now) throw new ApiError('token_expired');
    [store, grant] = await fetchFor(named.clientId, [credentialKeys.credential(tokenHash)]);
    credential = await store.credentials.get(tokenHash);
    if (credential?.clientId !== named.clientId) throw invalid();
    if (isExpired(credential, now)) throw new ApiError('token_expired');
  } else {
    credential = await deps.store.credentials.get(tokenHash);
    if (!credential) throw invalid();
    if (isExpired(credential, now)) throw new ApiError('token_expired');
    [store, grant] = await fetchFor(credential.clientId, []);
  }
  const app = await store.apps.get(credential.clientId, { consistent: true });
  if (!app) throw invalid();
  if (app.status === 'revoked') throw new ApiError('token_revoked');
  // A rotation that ended this token's secret ends it too, on the item every request reads: invalid, so clients exchange again.
  if (tokenEnded(app, credential, now)) throw invalid();
  if (app.expiresAt && Date.parse(app.expiresAt) <= now) throw new ApiError('application_expired');
  // A legacy credential's last use, for planning its retirement (contract 5.1 rule 5): a write at most once an hour.
  if (credential.credentialType === LEGACY_BEARER && useIsStale(app, now)) await recordLegacyUse(deps, app.clientId, now);

  const limits = { limit: app.rateLimitPerMinute, warnAt: Math.ceil(app.rateLimitPerMinute * RATE_WARNING_FRACTION) };
  leases.learn(app.clientId, limits);
  // A claim of several units that did not fit, or a window full under a lower limit than now: one unit, under this limit.
  if ('full' in grant && (grant.asked > 1 || grant.limit < limits.limit)) {
    grant = await leases.retry(app.clientId, window, now, limits);
  }
  // The limit read on this request judges every unit, so a lowered limit binds at once, whatever a lease holds.
  if ('full' in grant || grant.unit > limits.limit) {
    leases.full(app.clientId, window, limits.limit);
    // Each instance numbers its first refusal of the window; the first of all mails the owner.
    if (leases.firstRefusal(app.clientId, window) && (await deps.store.rateCounters.refusal(app.clientId, window)) === 1) {
      await queueRateAlert(deps, app, 'exceeded', window.start, now);
    }
    throw new ApiError('rate_limited', undefined, refusedHeaders(limits.limit, window));
  }
  const headers = rateHeaders(limits.limit, Math.max(grant.unit, grant.counted), window);
  // The unit at the mark is the first of its lease (no lease straddles it): the one admitted request that holds it warns.
  if (grant.unit === limits.warnAt) await queueRateAlert(deps, app, 'warning', window.start, now);

  const refuse = (code: ErrorCode, more: Record<string, string> = {}) => new ApiError(code, undefined, { ...headers, ...more });
  // From here the application is seen with this token's scopes only: the scope check, and discovery's token block and resources.
  const scoped = { ...app, scopes: credentialScopes(app, credential) };
  if (route.scope && !scoped.scopes.includes(route.scope)) {
    throw refuse('insufficient_scope', {
      'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${route.scope}"`,
    });
  }
  if (params.group_id !== credential.groupId) throw refuse('group_not_allowed');
  let location: Location | null = null;
  if (route.atLocation) {
    const locationId = params.location_id!;
    if (app.allowedLocationIds && !app.allowedLocationIds.includes(locationId)) throw refuse('location_not_allowed');
    location = await store.locations.get(credential.groupId, locationId);
    if (!location) throw refuse('not_found');
    if (route.module && !location.modulesEnabled[route.module]) throw refuse('module_not_enabled');
  }
  // The store holds this request's items already read: the operation gets it only once authorization passed.
  return { auth: { app: scoped, credential }, location, rateHeaders: headers, store };
}

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
  const what = kind === 'warning' ? 'reached 80% of' : 'exceeded';
  const subject = `Customer API: application ${app.name} ${what} its rate limit`;
  const text =
    `Application ${app.clientId} (${app.name}) ${what} ` +
    `its limit of ${app.rateLimitPerMinute} requests per minute in the UTC minute starting ${windowStart}Z.\n` +
    (kind === 'exceeded' ? 'Further requests in this minute receive 429 with Retry-After.\n' : '');
  await deps.store.mailOutbox.queue(`rate-limit#${app.clientId}#${windowStart}#${kind}`, { to: app.ownerEmail, subject, text }, now);
}

/**
 * The RateLimit-* headers. `counted` is the window's count as this instance knows it, its own unused lease units
 * included (Grant), so Remaining never offers what this instance holds for its own next requests.
 */
export function rateHeaders(limit: number, counted: number, window: RateWindow): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(Math.max(0, limit - counted)),
    'RateLimit-Reset': String(window.resetSeconds),
    'RateLimit-Policy': `${limit};w=60`,
  };
}

/** A 429's headers: nothing remains, and Retry-After is the window's end. */
export function refusedHeaders(limit: number, window: RateWindow): Record<string, string> {
  return { ...rateHeaders(limit, limit, window), 'Retry-After': String(window.resetSeconds) };
}
