import { isMailAddress, type MailSuppression, type SuppressionPosition } from '#data/mail-suppressions';
import { AdminInputError, AdminNotFoundError } from '#domain/inputs';
import type { AdminDeps } from './deps.js';
import { adminPage, type PageQuery } from '#platform/admin-paging';

/**
 * Owner addresses SES reported bouncing for good or complaining, which no owner mail goes to
 * (docs/decisions/mail-suppression.md): a page of them, partition by partition.
 */
export async function listMailSuppressions(deps: AdminDeps, query: PageQuery = {}) {
  const { items, nextCursor } = await adminPage<MailSuppression, SuppressionPosition>(
    deps,
    { r: 'mail-suppressions' },
    query,
    async (limit, start) => {
      const { suppressions, next } = await deps.store.mailSuppressions.page({ limit, ...(start ? { start } : {}) });
      return { items: suppressions, ...(next ? { lastKey: next } : {}) };
    },
  );
  return { suppressions: items, ...(nextCursor ? { nextCursor } : {}) };
}

/** Owner mail goes to the address again (its owner mended the mailbox); 404 when it was not suppressed. */
export async function liftMailSuppression(deps: AdminDeps, { address }: { address: string }) {
  if (!isMailAddress(address)) throw new AdminInputError('address: not an e-mail address');
  if (!(await deps.store.mailSuppressions.lift(address))) throw new AdminNotFoundError('that address is not suppressed');
  return { lifted: address };
}
