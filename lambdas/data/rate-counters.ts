import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Db, itemOf, readItems } from './store.js';

/**
 * Which limit a counter belongs to: an application's API calls, tokens issued to a client id (`TOKEN`), or
 * token-endpoint attempts for one client id from one source address (`TOKEN_ADDR`, keyed by a hash of both). Every
 * counter item carries a TTL an hour past its window.
 */
/** A fixed one-minute UTC window (contract 8): the counters' key and lifetime, the reset the headers announce. */
export type RateWindow = { start: string; resetSeconds: number; expiresAtSeconds: number };

export function rateWindow(nowMs: number): RateWindow {
  const startMs = nowMs - (nowMs % 60_000);
  return {
    start: new Date(startMs).toISOString().slice(0, 16),
    resetSeconds: Math.max(1, Math.ceil((startMs + 60_000 - nowMs) / 1000)),
    // Counters outlive their window briefly; TTL then removes them.
    expiresAtSeconds: Math.ceil((startMs + 60_000) / 1000) + 3600,
  };
}

export type CounterKind = 'API' | 'TOKEN' | 'TOKEN_ADDR';

/**
 * Every request of an application in a minute is one ADD on the same small
 * item (under 1 KB: one write unit), and one item lives in one partition,
 * which takes at most 1,000 write units a second
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/burst-adaptive-capacity.html).
 * So no application's limit may exceed what that item can count in a minute.
 */
const PARTITION_WRITES_PER_SECOND = 1_000;
export const APP_RATE_CEILING_PER_MINUTE = PARTITION_WRITES_PER_SECOND * 60;

export const counterKeys = {
  counter: (kind: CounterKind, subject: string, windowStart: string) => ({
    PK: `RATE#${kind}#${subject}`,
    SK: windowStart,
  }),
};

export type RateCountersRepo = {
  hit(kind: CounterKind, subject: string, windowStart: string, expiresAtSeconds: number): Promise<number>;
  /** Several applications' counts in one window (eventually consistent: an operator's view), 0 for none. */
  counts(subjects: readonly string[], windowStart: string): Promise<Map<string, number>>;
};

export function rateCountersRepo({ doc, tableName }: Db): RateCountersRepo {
  return {
    /**
     * Counts one request in a window with a single atomic ADD and returns the
     * new total; each total is seen by exactly one request, which is what
     * makes "alert once per window" free of extra writes.
     */
    async hit(kind: CounterKind, subject: string, windowStart: string, expiresAtSeconds: number): Promise<number> {
      const { Attributes } = await doc.send(
        new UpdateCommand({
          TableName: tableName,
          Key: counterKeys.counter(kind, subject, windowStart),
          UpdateExpression: 'ADD #count :one SET #ttl = :ttl',
          ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAtSeconds },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.count ?? 0);
    },
    async counts(subjects, windowStart) {
      const found = await readItems(
        { doc, tableName },
        subjects.map((s) => counterKeys.counter('API', s, windowStart)),
        false,
      );
      return new Map(subjects.map((s) => [s, Number(itemOf(found, counterKeys.counter('API', s, windowStart))?.count ?? 0)]));
    },
  };
}
