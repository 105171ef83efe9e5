import { createHash } from 'node:crypto';
import { applied, queryPage, type Db, itemOf, readItems, deleteItem, putItem, gsi1Partition } from './store.js';

/**
 * Owner addresses SES reported as permanently bouncing or complaining (docs/decisions/mail-suppression.md): one
 * item per address, keyed by a hash of the lower-cased address (any length of address fits a key, and two
 * spellings of one mailbox are one item), holding the address for operators, why and when. Listed through GSI1
 * from eight partitions picked by the hash, so no one index partition takes every mark.
 */
export type MailSuppressionReason = 'bounce' | 'complaint';
export type MailSuppression = { address: string; reason: MailSuppressionReason; at: string };

const SHARDS = 8;
/** The rule of an address the store marks, as the admin names one and SES reports one: at most 320 characters, one @ and a dot after it. */
export const isMailAddress = (address: string) => address.length <= 320 && /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(address);

/** One spelling per mailbox: what is hashed, and what `suppressed` answers in. */
export const normalAddress = (address: string) => address.trim().toLowerCase();
const hashOf = (address: string) => createHash('sha256').update(normalAddress(address), 'utf8').digest('hex');

const mailSuppressionKeys = {
  address: (address: string) => ({ PK: `MAIL_SUPPRESSION#${hashOf(address)}`, SK: 'MAIL_SUPPRESSION' }),
  shard: (n: number) => `MAIL_SUPPRESSIONS#${n}`,
  shardOf: (address: string) => mailSuppressionKeys.shard(parseInt(hashOf(address).slice(0, 8), 16) % SHARDS),
};

/** Where a page of the listing stops: the partition being read and the key within it. */
export type SuppressionPosition = { shard: number; key?: Record<string, unknown> };

const toSuppression = (item: Record<string, unknown>): MailSuppression => ({
  address: String(item.address),
  reason: item.reason as MailSuppressionReason,
  at: String(item.at),
});

export function mailSuppressionsRepo(db: Db) {
  return {
    /** Marks an address; false when it already was (the first reason and time are kept). */
    async suppress(entry: MailSuppression): Promise<boolean> {
      return applied(
        putItem(db, {
          Item: {
            ...mailSuppressionKeys.address(entry.address),
            ...entry,
            GSI1PK: mailSuppressionKeys.shardOf(entry.address),
            GSI1SK: `${entry.at}#${hashOf(entry.address)}`,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
    },
    /** Which of these addresses are suppressed, as normalAddress spells them: one BatchGetItem per 100 addresses. */
    async suppressed(addresses: readonly string[]): Promise<Set<string>> {
      if (addresses.length === 0) return new Set();
      const found = await readItems(db, addresses.map(mailSuppressionKeys.address), false);
      return new Set(addresses.filter((a) => itemOf(found, mailSuppressionKeys.address(a)) !== null).map(normalAddress));
    },
    /** Lifts an address's suppression; false when it was not suppressed. */
    async lift(address: string): Promise<boolean> {
      return applied(
        deleteItem(db, {
          Key: mailSuppressionKeys.address(address),
          ConditionExpression: 'attribute_exists(PK)',
        }),
      );
    },
    /** A page of suppressed addresses, partition by partition (a full page may be followed by an empty last one). */
    async page({ limit, start = { shard: 0 } }: { limit: number; start?: SuppressionPosition }) {
      const suppressions: MailSuppression[] = [];
      let position: SuppressionPosition | undefined = start;
      // Partition after partition until the page is full: at most one Query each (eight), whatever the table holds.
      while (position && suppressions.length < limit) {
        const query = gsi1Partition(mailSuppressionKeys.shard(position.shard));
        const { items, lastKey } = await queryPage(db, query, limit - suppressions.length, position.key);
        suppressions.push(...items.map(toSuppression));
        position = lastKey
          ? { shard: position.shard, key: lastKey }
          : position.shard + 1 < SHARDS
            ? { shard: position.shard + 1 }
            : undefined;
      }
      return { suppressions, ...(position ? { next: position } : {}) };
    },
  };
}
