import type { Scope } from '#contract/scopes';
import { applied, type Db, getItem, putItem, updateItem, withoutKeys } from './store.js';
import type { GroupIndex } from './group-index.js';
import { CLIENT_CREDENTIALS, type CredentialType } from '#contract/credentials';

/** An application: the unit of scopes, locations, rate limit and revocation. */
export type App = {
  clientId: string;
  groupId: string;
  name: string;
  scopes: Scope[];
  /** null: the whole group, including locations added later. */
  allowedLocationIds: string[] | null;
  rateLimitPerMinute: number;
  ownerEmail: string | null;
  status: 'active' | 'revoked';
  credentialType: CredentialType;
  /** SHA-256 of the client secret; absent for legacy bearer applications. */
  secretHash?: string;
  /** SHA-256 of the secret a rotation replaced, which still works until previousSecretExpiresAt (the overlap). */
  previousSecretHash?: string;
  previousSecretExpiresAt?: string;
  /** When the secret last changed (creation or rotation). */
  secretRotatedAt?: string;
  /** The current secret's generation: 1 at creation (and when absent), one more at each rotation. Tokens record theirs. */
  secretGeneration?: number;
  /** Tokens minted by a secret of a generation below this one are refused (a rotation that ended them). */
  tokensEndBelow?: number;
  /** The same, from `at` on: a rotation that ends the replaced secret's tokens when its overlap ends. */
  pendingTokensEnd?: TokensEnd;
  /** Legacy bearer applications: when the credential was last used, to within LEGACY_USE_RESOLUTION_SECONDS. */
  lastUsedAt?: string;
  /** First characters of a legacy bearer credential, for recognising it; empty otherwise. */
  tokenPrefix: string;
  expiresAt: string | null;
  createdAt: string;
  revokedAt?: string;
  /** Its webhook destinations, counted by their create and remove (destinations.ts); absent: none yet. */
  destinationCount?: number;
};

/** Tokens of a secret generation below `below` are refused from `at` on. */
type TokensEnd = { below: number; at: string };

/** A legacy credential's last use is written at most once in this many seconds (never a write per request). */
const LEGACY_USE_RESOLUTION_SECONDS = 3_600;

export const appKeys = {
  app: (clientId: string) => ({ PK: `APP#${clientId}`, SK: 'APP' }),
  /** GSI1 partitions listing applications: one per group. */
  index: { of: (groupId: string) => `APPS#${groupId}` } satisfies GroupIndex,
};

export function appsRepo(db: Db) {
  return {
    /** `consistent` wherever a revocation made a moment ago must count: every authenticated request, the token endpoint, the deliverer's re-check. */
    async get(clientId: string, { consistent = false } = {}): Promise<App | null> {
      const item = await getItem(db, appKeys.app(clientId), consistent);
      return item ? toApp(item) : null;
    },
    async create(app: App): Promise<void> {
      await putItem(db, {
        Item: { ...appKeys.app(app.clientId), GSI1PK: appKeys.index.of(app.groupId), GSI1SK: `${app.createdAt}#${app.clientId}`, ...app },
        ConditionExpression: 'attribute_not_exists(PK)',
      });
    },
    /** Marks the application revoked; its tokens fail on their next use. Returns false for an unknown id. */
    async revoke(clientId: string, at: string): Promise<boolean> {
      return applied(
        updateItem(db, {
          Key: appKeys.app(clientId),
          UpdateExpression: 'SET #status = :revoked, revokedAt = if_not_exists(revokedAt, :at)',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':revoked': 'revoked', ':at': at },
        }),
      );
    },
    /**
     * Replaces an active client_credentials application's secret, keeping the one it replaces until `previousUntil`
     * (never past, when `previousUntil` is now), with the new generation and where its tokens end (secretRotation);
     * only when its secret is still `expectedHash`, so of two rotations racing one wins. Returns false otherwise.
     */
    async rotateSecret(
      clientId: string,
      change: { expectedHash: string; newHash: string; previousUntil: string; at: string } & SecretRotation,
    ): Promise<boolean> {
      const { expectedHash, newHash, previousUntil, at, secretGeneration, tokensEndBelow, pendingTokensEnd } = change;
      const set =
        'secretHash = :new, previousSecretHash = :old, previousSecretExpiresAt = :until, secretRotatedAt = :at, ' +
        `secretGeneration = :generation, tokensEndBelow = :below${pendingTokensEnd ? ', pendingTokensEnd = :pending' : ''}`;
      return applied(
        updateItem(db, {
          Key: appKeys.app(clientId),
          UpdateExpression: `SET ${set}${pendingTokensEnd ? '' : ' REMOVE pendingTokensEnd'}`,
          ConditionExpression: 'secretHash = :old AND #status = :active',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':new': newHash,
            ':old': expectedHash,
            ':until': previousUntil,
            ':at': at,
            ':active': 'active',
            ':generation': secretGeneration,
            ':below': tokensEndBelow,
            ...(pendingTokensEnd ? { ':pending': pendingTokensEnd } : {}),
          },
        }),
      );
    },
    /** Records a legacy credential's use at `at`, unless one was recorded less than LEGACY_USE_RESOLUTION_SECONDS before. */
    async markUsed(clientId: string, at: number): Promise<void> {
      // The condition makes concurrent instances write once between them; a lost race is the outcome wanted.
      await applied(
        updateItem(db, {
          Key: appKeys.app(clientId),
          UpdateExpression: 'SET lastUsedAt = :at',
          ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(lastUsedAt) OR lastUsedAt < :stale)',
          ExpressionAttributeValues: {
            ':at': new Date(at).toISOString(),
            ':stale': new Date(at - LEGACY_USE_RESOLUTION_SECONDS * 1000).toISOString(),
          },
        }),
      );
    },
  };
}

/** The generation of an application's current secret (applications created before generations were counted: 1). */
export const secretGenerationOf = (app: Pick<App, 'secretGeneration'>): number => app.secretGeneration ?? 1;

/** What a rotation writes beside the new secret: its generation, and which older generations' tokens end when. */
export type SecretRotation = { secretGeneration: number; tokensEndBelow: number; pendingTokensEnd: TokensEnd | null };

/**
 * A rotation's generations. The secret it replaces stops at `previousUntil`; the one replaced before stops now, so
 * tokens set to end with that one end now. With `endTokens`, every older generation's tokens end with the replaced
 * secret: at once when `previousUntil` is now (no overlap), else when the overlap ends.
 */
export function secretRotation(
  app: Pick<App, 'secretGeneration' | 'tokensEndBelow' | 'pendingTokensEnd'>,
  endTokens: boolean,
  previousUntil: string,
  now: number,
): SecretRotation {
  const secretGeneration = secretGenerationOf(app) + 1;
  const ended = Math.max(app.tokensEndBelow ?? 0, app.pendingTokensEnd?.below ?? 0);
  if (!endTokens) return { secretGeneration, tokensEndBelow: ended, pendingTokensEnd: null };
  if (Date.parse(previousUntil) <= now) return { secretGeneration, tokensEndBelow: secretGeneration, pendingTokensEnd: null };
  return { secretGeneration, tokensEndBelow: ended, pendingTokensEnd: { below: secretGeneration, at: previousUntil } };
}

/**
 * Whether an access token was minted by a secret whose tokens a rotation has ended. One minted before generations
 * were recorded counts as generation 1; a legacy credential has no secret.
 */
export function tokenEnded(
  { tokensEndBelow = 0, pendingTokensEnd: pending }: Pick<App, 'tokensEndBelow' | 'pendingTokensEnd'>,
  credential: Pick<Credential, 'credentialType' | 'secretGeneration'>,
  now: number,
): boolean {
  // The lowest secret generation whose tokens are still honoured at `now`.
  const lowestLive = Math.max(tokensEndBelow, pending && Date.parse(pending.at) <= now ? pending.below : 0);
  return credential.credentialType === CLIENT_CREDENTIALS && (credential.secretGeneration ?? 1) < lowestLive;
}

/** Whether a legacy credential's recorded use is older than the resolution (or missing): the next use writes it. */
export function useIsStale(app: Pick<App, 'lastUsedAt'>, now: number): boolean {
  return app.lastUsedAt === undefined || Date.parse(app.lastUsedAt) < now - LEGACY_USE_RESOLUTION_SECONDS * 1000;
}

/** The application of a stored item (its keys dropped). */
export const toApp = (item: Record<string, unknown>): App => withoutKeys<App>(item);

/**
 * A bearer credential, stored only under the SHA-256 of its value: an access
 * token from the token endpoint, or a legacy bearer credential.
 */
export type Credential = {
  tokenHash: string;
  clientId: string;
  /** The application's group, fixed for its life; lets auth check the path before reading more. */
  groupId: string;
  credentialType: CredentialType;
  issuedAt: string;
  /** null for legacy bearer credentials, which live until their application is revoked. */
  expiresAt: string | null;
  /** Access tokens: the generation of the client secret that minted it (App.secretGeneration). */
  secretGeneration?: number;
  /** The scopes an access token was issued for when its request named fewer than the application holds (RFC 6749 3.3); absent: all of them. */
  scopes?: Scope[];
};

/** What a credential may do: its application's scopes, narrowed to those its token was issued for. A scope the application lost since is gone from both. */
export const credentialScopes = (app: Pick<App, 'scopes'>, credential: Pick<Credential, 'scopes'>): Scope[] =>
  credential.scopes ? app.scopes.filter((scope) => credential.scopes!.includes(scope)) : app.scopes;

export const credentialKeys = {
  credential: (tokenHash: string) => ({ PK: `TOKEN#${tokenHash}`, SK: 'TOKEN' }),
};

export function credentialsRepo(db: Db) {
  return {
    /** Strongly consistent: a token is usable the moment the token endpoint returns it. */
    async get(tokenHash: string): Promise<Credential | null> {
      const item = await getItem(db, credentialKeys.credential(tokenHash), true);
      return item ? withoutKeys<Credential>(item) : null;
    },
    async put(credential: Credential): Promise<void> {
      const ttl = credential.expiresAt ? Math.ceil(Date.parse(credential.expiresAt) / 1000) : undefined;
      await putItem(db, {
        Item: { ...credentialKeys.credential(credential.tokenHash), ...credential, ttl },
        ConditionExpression: 'attribute_not_exists(PK)',
      });
    },
  };
}
