import type { MailSuppression } from '#data/mail-suppressions';
import { allPages } from '#platform/admin-paging';
import { table } from './format.js';
import { defineCommand, type Command } from './spec.js';

/** Owner mail: the addresses SES reported bouncing or complaining, which no owner mail goes to. */
export const MAIL_COMMANDS: readonly Command[] = [
  defineCommand({
    name: 'mail suppressions',
    summary: 'List owner addresses no mail goes to: SES reported them bouncing for good (bounce) or complaining (complaint).',
    flags: {},
    json: '{"suppressions": [{"address", "reason", "at"}]}',
    async run({ api }) {
      const suppressions = (
        await allPages<{ suppressions: MailSuppression[] }>((cursor) => api.call('listMailSuppressions', { query: { cursor } }))
      ).flatMap((p) => p.suppressions);
      const text = table<MailSuppression>(suppressions, [
        ['ADDRESS', (s) => s.address],
        ['REASON', (s) => s.reason],
        ['SINCE', (s) => s.at],
      ]);
      return { json: { suppressions }, text };
    },
  }),
  defineCommand({
    name: 'mail unsuppress',
    summary: 'Send owner mail to a suppressed address again, once its owner mended the mailbox (a new bounce suppresses it again).',
    arg: 'ADDRESS',
    flags: {},
    json: '{"lifted": "ADDRESS"}',
    async run({ arg, api }) {
      const lifted: { lifted: string } = await api.call('liftMailSuppression', { body: { address: arg } });
      return { json: lifted, text: `Owner mail goes to ${lifted.lifted} again.` };
    },
  }),
];
