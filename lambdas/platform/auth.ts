import type { Deps } from './deps.js';
import type { App } from '#data/apps';
import type { Credential } from '#data/credentials';
import type { Location } from '#data/locations';
import { sha256Hex } from '#domain/crypto';
import { ApiError } from '#contract/errors';
import { decide, rateWindow } from './rate-limit.js';
import { isLocationRoute, moduleOfRoute, type Route } from '#contract/routes';

export type AuthContext = { app: App; credential: Credential };

export type Authorized = {
  auth: AuthContext;
  /** The path's location, loaded while authorizing location routes. */
  location: Location | null;
  rateHeaders: Record<string, string>;
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
 * with 403 before anything about them is read, so 404 can only be seen for
 * the token's own group.
 */
export async function authorize(
  deps: Deps,
  route: Route,
  params: Record<string, string>,
  authorization: string | undefined,
  now: number,
): Promise<Authorized> {
  if (!authorization) throw new ApiError('invalid_token', undefined, { 'WWW-Authenticate': REALM });
  const invalid = new ApiError('invalid_token', undefined, {
    'WWW-Authenticate': `${REALM}, error="invalid_token"`,
  });
  const token = BEARER.exec(authorization.trim())?.[1];
  if (!token) throw invalid;
  const credential = await deps.store.credentials.get(sha256Hex(token));
  if (!credential) throw invalid;
  if (credential.expiresAt !== null && Date.parse(credential.expiresAt) <= now) throw new ApiError('token_expired');

  const groupMatches = params.group_id === credential.groupId;
  const window = rateWindow(now);
  // The application (for revocation and limits), the window counter and the
  // location are independent reads: fetch them together, judge them in order.
  const [app, count, location] = await Promise.all([
    deps.store.apps.get(credential.clientId, { consistent: true }),
    deps.store.rateCounters.hit('API', credential.clientId, window.start, window.expiresAtSeconds),
    groupMatches && isLocationRoute(route) && params.location_id
      ? deps.store.locations.get(credential.groupId, params.location_id)
      : Promise.resolve(null),
  ]);
  if (!app) throw invalid;
  if (app.status === 'revoked') throw new ApiError('token_revoked');
  if (app.expiresAt && Date.parse(app.expiresAt) <= now) throw new ApiError('application_expired');

  const rate = decide(count, app.rateLimitPerMinute, window);
  if (rate.alert) await queueRateAlert(deps, app, rate.alert, window.start, now);
  if (!rate.allowed) throw new ApiError('rate_limited', undefined, rate.headers);

  const refuse = (code: ConstructorParameters<typeof ApiError>[0], headers: Record<string, string> = {}) =>
    new ApiError(code, undefined, { ...rate.headers, ...headers });
  if (route.scope && !app.scopes.includes(route.scope)) {
    throw refuse('insufficient_scope', {
      'WWW-Authenticate': `${REALM}, error="insufficient_scope", scope="${route.scope}"`,
    });
  }
  if (!groupMatches) throw refuse('group_not_allowed');
  if (isLocationRoute(route)) {
    const locationId = params.location_id!;
    if (app.allowedLocationIds && !app.allowedLocationIds.includes(locationId)) throw refuse('location_not_allowed');
    if (!location) throw refuse('not_found');
    const module = moduleOfRoute(route);
    if (module && !location.modulesEnabled[module]) throw refuse('module_not_enabled');
  }
  return { auth: { app, credential }, location, rateHeaders: rate.headers };
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
