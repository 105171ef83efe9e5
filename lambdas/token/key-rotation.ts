import { DAY_MS } from '#contract/business-date';
import { TOKEN_KEY_RETIRE_AFTER_MS } from '#platform/config';
import type { Deps } from '#platform/deps';

/**
 * The scheduled rotation of the access-token key (the stage's `tokenKeyRotationDays`, run by the sweeper every
 * minute): a new version signs once the signing one is that many days old; the one it replaces verifies until its
 * tokens have expired. Returns the new version, or null when none was due.
 */
export async function rotateTokenKeyWhenDue(deps: Deps, now: number): Promise<number | null> {
  const days = deps.config.tokenKeyRotationDays;
  if (!days) return null;
  const versions = await deps.store.tokenKeys.rotate(now, TOKEN_KEY_RETIRE_AFTER_MS, days * DAY_MS);
  const signing = versions?.find((v) => v.state === 'signing');
  if (signing) deps.logger.info('access-token key rotated on schedule', { version: signing.version, everyDays: days });
  return signing?.version ?? null;
}
