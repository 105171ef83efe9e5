import { queryPage, type Db, putItem, withoutKeys } from '#data/store';
import { DAY_MS } from '#contract/business-date';

/**
 * The admin API's record of changes (docs/decisions/audit.md): one small
 * item per change, in a partition per UTC day, newest first within it. A day
 * is written only by administrators' changes, never by client traffic, so
 * its partition is far below DynamoDB's per-partition limits.
 */
export type AuditEntry = {
  at: string;
  requestId: string;
  /** Who: the IAM principal API Gateway verified, or the local admin key. */
  actor: string;
  /** The admin operation (its route's name), e.g. `rotateSecret`. */
  operation: string;
  /** What it touched, as far as it is named: never a secret. */
  clientId: string | null;
  destinationId: string | null;
  deliveryId: string | null;
  groupId: string | null;
  locationId: string | null;
  /** The change's parameters (overlap hours, scopes, a URL's host…), picked field by field per operation: never a secret. */
  details: AuditDetails;
};

export type AuditDetails = Record<string, string | number | boolean | string[] | null>;

/** Kept a little over a year, like the health items. */
const RETENTION_DAYS = 400;
/** Day partitions one page of the trail reads at most: the whole retention in four pages, however quiet. */
const DAYS_PER_PAGE = 100;

const auditKeys = {
  day: (isoDay: string) => `AUDIT#${isoDay}`,
  entry: (e: Pick<AuditEntry, 'at' | 'requestId'>) => ({ PK: auditKeys.day(e.at.slice(0, 10)), SK: `${e.at}#${e.requestId}` }),
};

/** Where a page of the trail stops: the day being read and the key within it. */
export type AuditPosition = { day: string; key?: Record<string, unknown> };

/** A page of the trail asks for this (listAudit). */
type PageRequest = {
  limit: number;
  today: string;
  filter?: Partial<Pick<AuditEntry, 'clientId' | 'destinationId'>>;
  start?: AuditPosition;
};

const dayBefore = (isoDay: string) => new Date(Date.parse(`${isoDay}T00:00:00Z`) - DAY_MS).toISOString().slice(0, 10);

export function auditRepo(db: Db) {
  return {
    async record(entry: AuditEntry): Promise<void> {
      const ttl = Math.floor(Date.parse(entry.at) / 1000) + RETENTION_DAYS * 86_400;
      await putItem(db, { Item: { ...auditKeys.entry(entry), ...entry, ttl } });
    },
    /**
     * A page of entries, newest first, from `start` (today when absent), of
     * one application or destination if asked; at most DAYS_PER_PAGE day
     * partitions a page, never past the retention. A page may hold fewer than
     * `limit` and still have a next.
     */
    async page({ limit, today, filter = {}, start }: PageRequest): Promise<{ entries: AuditEntry[]; next?: AuditPosition }> {
      const oldest = new Date(Date.parse(`${today}T00:00:00Z`) - RETENTION_DAYS * DAY_MS).toISOString().slice(0, 10);
      const conditions = Object.entries(filter).filter(([, v]) => v !== undefined);
      const entries: AuditEntry[] = [];
      let position: AuditPosition | undefined = start ?? { day: today };
      for (let days = 0; position && days < DAYS_PER_PAGE && entries.length < limit; days++) {
        const { items, lastKey } = await queryPage(
          db,
          {
            KeyConditionExpression: 'PK = :pk',
            ExpressionAttributeValues: {
              ':pk': auditKeys.day(position.day),
              ...Object.fromEntries(conditions.map(([k, v]) => [`:${k}`, v])),
            },
            ...(conditions.length ? { FilterExpression: conditions.map(([k]) => `${k} = :${k}`).join(' AND ') } : {}),
            ScanIndexForward: false,
          },
          limit - entries.length,
          position.key,
        );
        entries.push(...items.map(withoutKeys<AuditEntry>));
        if (lastKey) position = { day: position.day, key: lastKey };
        else position = position.day > oldest ? { day: dayBefore(position.day) } : undefined;
      }
      return { entries, ...(position ? { next: position } : {}) };
    },
  };
}
