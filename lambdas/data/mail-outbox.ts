import { queryPage, type Db, updateItem, gsi1Partition } from './store.js';

/** An owner e-mail: what the mailer sends and the outbox keeps until it is sent. */
export type Mail = { to: string; subject: string; text: string };

/**
 * Owner e-mails queued by a request and sent by the sweeper, so a request
 * never waits on (or fails with) SES. Queued with UpdateItem, which every
 * API function already holds; a sent mail leaves the GSI1 listing and expires.
 */
export type QueuedMail = Mail & { key: string; failures: number };

/** Sends tried before a mail is given up (one per sweep, about a minute apart). */
export const MAIL_TRIES = 5;
const RETENTION_SECONDS = 24 * 3600;

/** Pending mail is listed from eight index partitions, so no one partition value takes every application's alerts. */
const PENDING_SHARDS = 8;
const hashOf = (key: string) => [...key].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 0);

export const mailKeys = {
  mail: (key: string) => ({ PK: `MAIL#${key}`, SK: 'MAIL' }),
  pending: (key: string) => `MAIL_PENDING#${hashOf(key) % PENDING_SHARDS}`,
  /** Every partition a pending mail may sit in: the shards. */
  pendingPartitions: () => Array.from({ length: PENDING_SHARDS }, (_, i) => `MAIL_PENDING#${i}`),
};

export function mailOutboxRepo(db: Db) {
  const update = (key: string, expression: string, names?: Record<string, string>, values?: Record<string, unknown>) =>
    updateItem(db, {
      Key: mailKeys.mail(key),
      UpdateExpression: expression,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  return {
    /** One mail per key, however often it is queued. */
    async queue(key: string, mail: Mail, now: number): Promise<void> {
      const queuedAt = new Date(now).toISOString();
      await update(
        key,
        'SET #to = :to, subject = :subject, #text = :text, failures = if_not_exists(failures, :zero), GSI1PK = :pk, GSI1SK = :sk, #ttl = :ttl',
        { '#to': 'to', '#text': 'text', '#ttl': 'ttl' },
        {
          ':to': mail.to,
          ':subject': mail.subject,
          ':text': mail.text,
          ':zero': 0,
          ':pk': mailKeys.pending(key),
          ':sk': `${queuedAt}#${key}`,
          ':ttl': Math.floor(now / 1000) + RETENTION_SECONDS,
        },
      );
    },
    /** Mail still to send, oldest first within each partition: at most `perPartition` of each (a backlog drains over several sweeps). */
    async pending(perPartition: number): Promise<QueuedMail[]> {
      const pages = await Promise.all(mailKeys.pendingPartitions().map((pk) => queryPage(db, gsi1Partition(pk), perPartition)));
      return pages.flatMap(({ items }) =>
        items.map((i) => ({
          key: String(i.PK).slice('MAIL#'.length),
          to: String(i.to),
          subject: String(i.subject),
          text: String(i.text),
          failures: Number(i.failures ?? 0),
        })),
      );
    },
    /** Out of the pending listing: sent, or given up. */
    async done(key: string): Promise<void> {
      await update(key, 'REMOVE GSI1PK, GSI1SK');
    },
    async failed(key: string): Promise<void> {
      await update(key, 'ADD failures :one', undefined, { ':one': 1 });
    },
  };
}
