import { randomBytes } from 'node:crypto';
import { applied, type Db, getItem, putItem, updateItem } from './store.js';

/**
 * The service's signing keys: versions of the access-token key (one signs, the ones it replaced verify until the
 * tokens they signed have expired), and the page-token key for cursors when PAGE_TOKEN_KEY is not configured.
 */
export const tokenKeyKeys = {
  /** Every access-token key version, in one item: one read gives the signer and the verifiers. */
  versions: { PK: 'TOKEN_KEY', SK: 'VERSIONS' },
  /** The page-token key, under the key it was first stored with (review pages had it first). */
  pageToken: { PK: 'SHIFTQ', SK: 'PAGE_TOKEN_KEY' },
};

/**
 * How long a function trusts the verifying versions it read: a revoked version's tokens are refused by every
 * function within this, by the token endpoint at once. Read by each function instance at most this often (never a
 * read per request), so the one item is never read by every request of every tenant.
 */
export const VERIFIERS_CACHE_MS = 10_000;
/**
 * A version added by a rotation verifies at once and signs only this much later: by then every function has read
 * it, so no function meets a token of a version it does not know (published before used, as JWKS rotations are).
 */
export const SIGNING_DELAY_MS = VERIFIERS_CACHE_MS + 1_000;
/**
 * A token no cached version verifies makes a function read the versions again, at most this often: after a
 * revocation of the signing version (whose successor signs at once) every function knows the successor within a
 * second, and a forged token costs a function at most one read a second.
 */
export const VERIFIERS_REFRESH_MS = 1_000;

type KeyVersion = {
  version: number;
  /** 32 random bytes, base64: never leaves the service (listings drop it). */
  key: string;
  createdAt: string;
  /** From when it signs (the newest version past this signs); it verifies from its creation. */
  signsFrom: string;
  /** Set when a newer version replaces it: it verifies until then (the last token it signed has expired). */
  retiresAt?: string;
  /** Set when revoked: its tokens are refused from then on. */
  revokedAt?: string;
};

/** A version as ops see it: never the key. */
export type KeyVersionState = Omit<KeyVersion, 'key'> & { state: 'next' | 'signing' | 'verifying' | 'revoked' };

const newVersion = (version: number, now: number, signsFrom = now): KeyVersion => ({
  version,
  key: randomBytes(32).toString('base64'),
  createdAt: new Date(now).toISOString(),
  signsFrom: new Date(signsFrom).toISOString(),
});
/** Not yet retired: kept, and listed (a revoked version too, until it would have retired). */
const isKept = (v: KeyVersion, now: number) => v.retiresAt === undefined || Date.parse(v.retiresAt) > now;
const isLive = (v: KeyVersion, now: number) => v.revokedAt === undefined && isKept(v, now);
/** The version that signs at `now`: the newest live one whose signing has begun. */
const signerAt = (versions: readonly KeyVersion[], now: number) =>
  versions.filter((v) => isLive(v, now) && Date.parse(v.signsFrom) <= now).sort((a, b) => b.version - a.version)[0];

function states(versions: readonly KeyVersion[], now: number): KeyVersionState[] {
  const signer = signerAt(versions, now)?.version;
  return versions
    .filter((v) => isKept(v, now))
    .map(({ key: _key, ...v }): KeyVersionState => ({
      ...v,
      state:
        v.revokedAt !== undefined ? 'revoked' : v.version === signer ? 'signing' : Date.parse(v.signsFrom) > now ? 'next' : 'verifying',
    }))
    .sort((a, b) => b.version - a.version);
}

export function tokenKeysRepo(db: Db) {
  /** The stored versions (none before the first token) and the generation of the item that holds them (null: no item). */
  const read = async (): Promise<{ versions: KeyVersion[]; generation: number | null }> => {
    const item = await getItem(db, tokenKeyKeys.versions, true);
    return item ? { versions: item.versions as KeyVersion[], generation: Number(item.generation) } : { versions: [], generation: null };
  };
  /** Writes the next state only over the one read (`generation`), so of two changes racing one wins and the other reads again. */
  const write = (versions: KeyVersion[], generation: number | null) =>
    applied(
      putItem(db, {
        Item: { ...tokenKeyKeys.versions, versions, generation: (generation ?? 0) + 1 },
        ...(generation === null
          ? { ConditionExpression: 'attribute_not_exists(PK)' }
          : { ConditionExpression: 'generation = :g', ExpressionAttributeValues: { ':g': generation } }),
      }),
    );
  /** Applies `change` to the stored versions until its write wins; a change that returns no `next` writes nothing. */
  const update = async <T>(change: (versions: KeyVersion[]) => { next: KeyVersion[]; result: T } | { result: T }): Promise<T> => {
    for (;;) {
      const { versions, generation } = await read();
      const outcome = change(versions);
      if (!('next' in outcome)) return outcome.result;
      if (await write(outcome.next, generation)) return outcome.result;
    }
  };
  /**
   * The versions after adding one that signs from `signsFrom`: every live version without an end (the signer, a
   * version still waiting to sign) retires `retireAfterMs` after that, and versions past their end go.
   */
  const withNewVersion = (versions: KeyVersion[], now: number, signsFrom: number, retireAfterMs: number): KeyVersion[] => {
    const retiresAt = new Date(signsFrom + retireAfterMs).toISOString();
    const version = Math.max(0, ...versions.map((v) => v.version)) + 1;
    const kept = versions
      .map((v) => (v.retiresAt === undefined && v.revokedAt === undefined ? { ...v, retiresAt } : v))
      .filter((v) => isKept(v, now));
    return [...kept, newVersion(version, now, signsFrom)];
  };

  return {
    /** The version that signs new tokens now (read afresh each call: a new version signs from the moment it is added), created by the first caller that finds none. */
    async signingKey(now: number): Promise<Buffer> {
      return update((versions) => {
        const signer = signerAt(versions, now);
        if (signer) return { result: Buffer.from(signer.key, 'base64') };
        // The first token ever (or every version revoked): a version that signs at once.
        const next = withNewVersion(versions, now, now, 0);
        return { next, result: Buffer.from(next.at(-1)!.key, 'base64') };
      });
    },
    /** The versions whose tokens are accepted at `now` (none while no token was ever issued), read afresh: authorization keeps them (platform/auth.ts). */
    async verifiers(now: number): Promise<Buffer[]> {
      const { versions } = await read();
      return versions.filter((v) => isLive(v, now)).map((v) => Buffer.from(v.key, 'base64'));
    },
    /**
     * Adds a version that verifies at once and signs after SIGNING_DELAY_MS; the ones it replaces verify until
     * `retireAfterMs` after that. Versions past their time are removed. With `minAgeMs`, only when the newest version
     * is at least that old (a schedule: of two instances that find it due, one rotates); null when it was not (or no
     * version exists yet).
     */
    async rotate(now: number, retireAfterMs: number, minAgeMs?: number) {
      return update<KeyVersionState[] | null>((versions) => {
        if (minAgeMs !== undefined) {
          const newest = versions.filter((v) => v.revokedAt === undefined).sort((a, b) => b.version - a.version)[0];
          if (!newest || now - Date.parse(newest.signsFrom) < minAgeMs) return { result: null };
        }
        const next = withNewVersion(versions, now, now + SIGNING_DELAY_MS, retireAfterMs);
        return { next, result: states(next, now) };
      });
    },
    /** Revokes a version at once (a new one signs at once if it was the signer); null when there is no such version, 'revoked' when it already was. */
    async revoke(version: number, now: number, retireAfterMs: number) {
      return update<KeyVersionState[] | null | 'revoked'>((versions) => {
        const target = versions.find((v) => v.version === version && isKept(v, now));
        if (!target) return { result: null };
        if (target.revokedAt !== undefined) return { result: 'revoked' };
        const wasSigner = signerAt(versions, now)?.version === version;
        // Revoked, it verifies nothing from now on; kept (and listed) until it would have retired.
        const revoked = versions.map((v) =>
          v.version === version
            ? { ...v, revokedAt: new Date(now).toISOString(), retiresAt: v.retiresAt ?? new Date(now + retireAfterMs).toISOString() }
            : v,
        );
        // Its successor signs at once: waiting for every function to know it would leave nothing to sign with.
        const next = wasSigner ? withNewVersion(revoked, now, now, retireAfterMs) : revoked;
        return { next, result: states(next, now) };
      });
    },
    /** Every version kept, newest first, with its state at `now`; never a key. */
    async list(now: number): Promise<KeyVersionState[]> {
      return states((await read()).versions, now);
    },
    /** The page-token key: the stored one, or this candidate stored by the first caller. */
    async pageKey(candidate: string): Promise<string> {
      const { Attributes } = await updateItem(db, {
        Key: tokenKeyKeys.pageToken,
        UpdateExpression: 'SET secret = if_not_exists(secret, :candidate)',
        ExpressionAttributeValues: { ':candidate': candidate },
        ReturnValues: 'ALL_NEW',
      });
      return String(Attributes!.secret);
    },
  };
}
