import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '#platform/config';
import { rateWindow } from '#data/rate-counters';
import { APP_RATE_CEILING_PER_MINUTE } from '#data/rate-counters';
import { randomSecret, sha256Hex } from '#domain/crypto';
import { type App, secretRotation } from '#data/apps';
import type { WalkKey } from '#data/group-index';
import type { Store } from '#data/repositories';
import { normalAddress } from '#data/mail-suppressions';
import { AdminConflictError, AdminInputError, AdminNotFoundError, appInput, type AppInput } from '#domain/inputs';
import { parseInput } from '#contract/validation';
import { randomBytes } from 'node:crypto';
import type { AdminDeps } from './deps.js';
import { DESTINATIONS_PER_APPLICATION } from '#lambdas/webhooks/destination-limit';
import { adminPage, type PageQuery } from '#platform/admin-paging';
import { matches, searchPage } from '#platform/admin-search';
import { CLIENT_CREDENTIALS, LEGACY_BEARER, type CredentialType } from '#contract/credentials';

/** Legacy bearer credentials start with this fixed prefix (contract 5.1 rule 5). */
export const LEGACY_PREFIX = 'lgcy_';
/** How much of a legacy credential `tokenPrefix` shows: enough to recognise it, far too little to use it. */
const SHOWN_PREFIX_LENGTH = LEGACY_PREFIX.length + 6;

export type CreatedApp = { app: App; clientSecret?: string; legacyCredential?: string };

/**
 * The largest per-minute limit an application can have on a stage: what its
 * one counter item can count (the data design) and what every route's
 * throttle lets through at least in a minute (the stage's per-route floor,
 * all clients together). Above it, a tenant within its own limit could meet
 * API Gateway's 429 instead of the service's own, with its RateLimit-* headers.
 */
export function rateLimitCeiling(stageRateLimit: number): number {
  return Math.min(APP_RATE_CEILING_PER_MINUTE, Math.floor(stageRateLimit * 60));
}

/**
 * Creates an application; the secret (or legacy credential) is returned here once and stored only as a hash.
 * `stageRateLimit` is the target stage's per-route floor (Config.stageRateLimit).
 */
export async function createApp(
  store: Store,
  input: AppInput,
  now: number,
  credentialType: CredentialType = CLIENT_CREDENTIALS,
  stageRateLimit = Infinity,
): Promise<CreatedApp> {
  const fields = parseInput(appInput, { rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE, ...input });
  const ceiling = rateLimitCeiling(stageRateLimit);
  if (fields.rateLimitPerMinute > ceiling) {
    throw new AdminInputError(
      `rateLimitPerMinute: at most ${ceiling} here; every route's throttle lets at least ${stageRateLimit} requests a second through for all applications together`,
    );
  }
  await requireGroup(store, fields.groupId);
  if (fields.allowedLocationIds) {
    const known = new Set((await store.locations.list(fields.groupId)).map((l) => l.id));
    const unknown = fields.allowedLocationIds.filter((l) => !known.has(l));
    if (unknown.length) throw new AdminInputError(`unknown locations in ${fields.groupId}: ${unknown.join(', ')}`);
  }
  const createdAt = new Date(now).toISOString();
  const clientId = `app_${randomBytes(10).toString('hex')}`;
  const base: App = { clientId, ...fields, status: 'active', credentialType, tokenPrefix: '', createdAt };

  if (credentialType === CLIENT_CREDENTIALS) {
    const clientSecret = randomSecret(32);
    const app: App = { ...base, secretHash: sha256Hex(clientSecret), secretRotatedAt: createdAt, secretGeneration: 1 };
    await store.apps.create(app);
    return { app, clientSecret };
  }
  const legacyCredential = `${LEGACY_PREFIX}${randomSecret(32)}`;
  const app: App = { ...base, tokenPrefix: legacyCredential.slice(0, SHOWN_PREFIX_LENGTH) };
  // The report's marker first: no legacy application exists that the report cannot list.
  await store.appList.markLegacy(app);
  await store.apps.create(app);
  await store.credentials.put({
    tokenHash: sha256Hex(legacyCredential),
    clientId,
    groupId: app.groupId,
    credentialType: LEGACY_BEARER,
    issuedAt: createdAt,
    expiresAt: null,
  });
  return { app, legacyCredential };
}

export async function revokeApp(store: Store, clientId: string, now: number) {
  if (!(await store.apps.revoke(clientId, new Date(now).toISOString()))) {
    throw new AdminNotFoundError(`application ${clientId} does not exist`);
  }
  return { revoked: clientId };
}

/** How long a replaced client secret keeps working after a rotation: by default, and at most (7 days). */
export const SECRET_OVERLAP_HOURS = { default: 24, max: 168 } as const;

/**
 * Gives an application a new client secret, shown in this answer only. The one it replaces keeps working for
 * `overlapHours` (default 24; 0: it stops at once, for a leaked secret; at most 168), so running clients
 * can move over without downtime; a secret replaced earlier stops at once. Tokens already issued keep their
 * 24 hours, unless `endOldTokens`: then every token of an older secret ends with the replaced secret (at once with
 * no overlap, which always ends them; at the overlap's end otherwise). Revoking the application ends them all at once.
 */
export async function rotateClientSecret(
  store: Store,
  clientId: string,
  { overlapHours = SECRET_OVERLAP_HOURS.default, endOldTokens }: { overlapHours?: number; endOldTokens?: boolean },
  now: number,
) {
  if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > SECRET_OVERLAP_HOURS.max) {
    throw new AdminInputError(`overlapHours: a whole number of hours from 0 to ${SECRET_OVERLAP_HOURS.max}`);
  }
  if (overlapHours === 0 && endOldTokens === false) {
    throw new AdminInputError('endOldTokens: overlapHours 0 is for a leaked secret and always ends its tokens');
  }
  const app = await requireApp(store, clientId);
  if (app.credentialType !== CLIENT_CREDENTIALS || !app.secretHash) {
    throw new AdminConflictError(
      `application ${clientId} has a legacy bearer credential, not a client secret: create a client_credentials application to migrate to`,
    );
  }
  if (app.status !== 'active') throw new AdminConflictError(`application ${clientId} is revoked`);
  const clientSecret = randomSecret(32);
  const previousUntil = new Date(now + overlapHours * 3_600_000).toISOString();
  const at = new Date(now).toISOString();
  const rotation = secretRotation(app, overlapHours === 0 || endOldTokens === true, previousUntil, now);
  const change = { expectedHash: app.secretHash, newHash: sha256Hex(clientSecret), previousUntil, at, ...rotation };
  if (!(await store.apps.rotateSecret(clientId, change))) {
    throw new AdminConflictError(`application ${clientId} changed meanwhile (rotated or revoked); show it and try again`);
  }
  const { pendingTokensEnd, ...generations } = rotation;
  const rotated: App = { ...app, previousSecretExpiresAt: previousUntil, secretRotatedAt: at, ...generations };
  if (pendingTokensEnd) rotated.pendingTokensEnd = pendingTokensEnd;
  else delete rotated.pendingTokensEnd;
  // When the replaced secret's tokens end: now, at the overlap's end, or null (they keep their 24 hours).
  const oldTokensEndAt = rotation.tokensEndBelow === rotation.secretGeneration ? at : (pendingTokensEnd?.at ?? null);
  return { app: publicApp(rotated), clientSecret, oldTokensEndAt };
}

/** A page of legacy bearer applications with their credential's last use (never the credential), oldest first. */
export async function legacyReport(deps: AdminDeps, query: PageQuery = {}) {
  const { items, nextCursor } = await adminPage<App>(deps, { r: 'legacy-apps' }, query, (limit, startKey) =>
    deps.store.appList.legacyPage({ limit, startKey }),
  );
  return {
    legacyCredentials: items.map(({ clientId, groupId, name, status, tokenPrefix, createdAt, lastUsedAt }) => {
      return { clientId, groupId, name, status, tokenPrefix, createdAt, lastUsedAt: lastUsedAt ?? null };
    }),
    ...(nextCursor ? { nextCursor } : {}),
  };
}

async function requireApp(store: Store, clientId: string): Promise<App> {
  const app = await store.apps.get(clientId);
  if (!app) throw new AdminNotFoundError(`application ${clientId} does not exist`);
  return app;
}

/** With an owner's address, whether it is suppressed (SES reported it bouncing or complaining: no owner mail reaches it). */
export async function showApp(store: Store, clientId: string) {
  const app = await requireApp(store, clientId);
  if (!app.ownerEmail) return { app: publicApp(app) };
  const suppressed = await store.mailSuppressions.suppressed([app.ownerEmail]);
  return { app: { ...publicApp(app), ownerEmailSuppressed: suppressed.size > 0 } };
}

const WHOLE_CLIENT_ID = /^app_[0-9a-f]{20}$/;

/** A page of applications, or of those of one existing group, or those matching `q` (search.ts); never a secret or its hash. */
export async function listApps(deps: AdminDeps, { groupId, q, ...query }: { groupId?: string; q?: string } & PageQuery = {}) {
  if (groupId) await requireGroup(deps.store, groupId);
  const { items, nextCursor } = await adminPage<App, WalkKey>(
    deps,
    { r: 'apps', g: groupId ?? '', q: q ?? '' },
    query,
    async (limit, startKey) => {
      if (q && WHOLE_CLIENT_ID.test(q.trim())) {
        const app = await deps.store.apps.get(q.trim());
        return { items: app && (!groupId || app.groupId === groupId) ? [app] : [] };
      }
      const read = (n: number, key?: WalkKey) => deps.store.appList.page({ limit: n, groupId, startKey: key });
      return q
        ? searchPage(read, (apps) => apps.filter((a) => matches(q, [a.clientId, a.name, a.groupId, a.ownerEmail])), limit, startKey)
        : read(limit, startKey);
    },
  );
  // The current minute's count and whether the owner's address is suppressed beside each: a BatchGetItem each for the page.
  const window = rateWindow(deps.clock.now());
  const clientIds = items.map((a) => a.clientId);
  const [used, suppressed] = await Promise.all([
    deps.store.rateCounters.counts(clientIds, window.start),
    deps.store.mailSuppressions.suppressed(items.flatMap((a) => (a.ownerEmail ? [a.ownerEmail] : []))),
  ]);
  return {
    apps: items.map((a) => ({
      ...publicApp(a),
      requestsThisMinute: used.get(a.clientId) ?? 0,
      ...(a.ownerEmail ? { ownerEmailSuppressed: suppressed.has(normalAddress(a.ownerEmail)) } : {}),
    })),
    minute: window.start,
    ...(nextCursor ? { nextCursor } : {}),
  };
}

/** What creation hands back, the one time the credential is shown: `clientSecret` or `legacyCredential`. */
export function createdAppDocument({ app, clientSecret, legacyCredential }: CreatedApp) {
  return { app: publicApp(app), ...(clientSecret ? { clientSecret } : { legacyCredential }) };
}

/** An application as ops see it: never a secret hash; how many destinations it has, of the most it may. */
function publicApp(app: App) {
  const { secretHash: _hash, previousSecretHash: _previous, ...rest } = app;
  return { ...rest, destinationCount: app.destinationCount ?? 0, destinationLimit: DESTINATIONS_PER_APPLICATION };
}

/** Refuses a group id that names no group. */
export async function requireGroup(store: Store, groupId: string): Promise<void> {
  if (!(await store.groups.get(groupId, { consistent: true }))) throw new AdminInputError(`group ${groupId} does not exist`);
}
