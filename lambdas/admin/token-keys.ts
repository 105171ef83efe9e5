import { TOKEN_KEY_RETIRE_AFTER_MS } from '#platform/config';
import type { AdminDeps } from './deps.js';
import { AdminConflictError, AdminInputError, AdminNotFoundError } from '#domain/inputs';

/** A compromised version: its tokens are refused from now on (by every function within 10 s); a new one signs if it did. */
export async function revokeTokenKey(deps: AdminDeps, version: string, now: number) {
  if (!/^[1-9]\d{0,8}$/.test(version)) throw new AdminInputError(`version: a key version number (1, 2, …), not ${JSON.stringify(version)}`);
  const outcome = await deps.store.tokenKeys.revoke(Number(version), now, TOKEN_KEY_RETIRE_AFTER_MS);
  if (outcome === null) throw new AdminNotFoundError(`access-token key version ${version} does not exist (or has retired)`);
  if (outcome === 'revoked') throw new AdminConflictError(`access-token key version ${version} is already revoked`);
  return { versions: outcome };
}
