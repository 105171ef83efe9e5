import { type Mail, MAIL_TRIES } from '#data/mail-outbox';
import { normalAddress } from '#data/mail-suppressions';
import type { Store } from '#data/repositories';
import { count, type Logger, type Metrics } from './observability.js';

export type { Mail };
export type Mailer = { send(mail: Mail): Promise<void> };

/** For functions that send no mail: a use would be a wiring mistake, which sendMail counts and logs like any failed send. */
export const NO_MAILER: Mailer = {
  async send() {
    throw Object.assign(new Error('this function has no mailer'), { name: 'NoMailer' });
  },
};

/**
 * A subject as one line: every run of control characters (CR, LF, NUL, tab, C1 ...) and line or paragraph
 * separators becomes one space. Names are refused with such characters when they are saved (domain/inputs.ts);
 * this is the second wall, so no value that reaches a subject (older data, a future field) can start a header.
 */
export function oneLineSubject(subject: string): string {
  return subject.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/gu, ' ');
}

type MailDeps = { store: Pick<Store, 'mailSuppressions'>; mailer: Mailer; logger: Logger; metrics?: Metrics };

/**
 * Sends an owner e-mail, its subject on one line (oneLineSubject), unless SES reported its address bouncing or
 * complaining (one small read first). A failure never fails the caller but is always counted (MailFailed) and
 * logged with what it was for and SES's error name, never the address, subject or text. True when sent.
 */
export async function sendMail(deps: MailDeps, mail: Mail, purpose: string): Promise<boolean> {
  if ((await deps.store.mailSuppressions.suppressed([mail.to])).size > 0) {
    notSentToSuppressed(deps, purpose);
    return false;
  }
  return deliver(deps, mail, purpose);
}

async function deliver(deps: Omit<MailDeps, 'store'>, mail: Mail, purpose: string): Promise<boolean> {
  try {
    await deps.mailer.send({ ...mail, subject: oneLineSubject(mail.subject) });
    return true;
  } catch (err) {
    count(deps, 'MailFailed');
    deps.logger.warn('owner mail not sent', { purpose, error: (err as Error).name });
    return false;
  }
}

/** Mail to a suppressed address is dropped, not retried: SES would only bounce it again (docs/decisions/mail-suppression.md). */
function notSentToSuppressed(deps: Omit<MailDeps, 'store'>, purpose: string): void {
  count(deps, 'MailSuppressed');
  deps.logger.info('owner mail not sent: address suppressed', { purpose });
}

/** Queued mails one sweep sends per outbox partition: a sweep's mail stays a few seconds of its minute. */
const MAIL_SWEEP_PAGE = 10;

/**
 * The sweeper's share: sends queued owner mail; a failed one is tried again next sweep. The page's addresses are
 * checked against the suppressions in one BatchGetItem; mail to a suppressed one is finished unsent.
 */
export async function sendQueuedMail(deps: MailDeps & { store: Pick<Store, 'mailOutbox'> }): Promise<number> {
  let sent = 0;
  const pending = await deps.store.mailOutbox.pending(MAIL_SWEEP_PAGE);
  const suppressed = await deps.store.mailSuppressions.suppressed([...new Set(pending.map((m) => m.to))]);
  for (const mail of pending) {
    // Keys start with what the mail is for (`rate-limit#…`): safe to log.
    const purpose = mail.key.split('#')[0]!;
    if (suppressed.has(normalAddress(mail.to))) {
      notSentToSuppressed(deps, purpose);
      await deps.store.mailOutbox.done(mail.key);
    } else if (await deliver(deps, mail, purpose)) {
      await deps.store.mailOutbox.done(mail.key);
      sent++;
    } else if (mail.failures + 1 >= MAIL_TRIES) {
      deps.logger.error('owner mail given up', { purpose, tries: MAIL_TRIES });
      await deps.store.mailOutbox.done(mail.key);
    } else {
      await deps.store.mailOutbox.failed(mail.key);
    }
  }
  return sent;
}
