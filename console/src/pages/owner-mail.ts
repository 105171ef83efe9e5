import { api } from '../api.js';
import type { MailSuppression, Paged } from '../documents.js';
import { h, time } from '../dom.js';
import { pagedList, PAGE_SIZE } from '../lists.js';
import type { Shell } from '../shell.js';
import { query } from './parts.js';

/** Owner addresses SES reported bouncing for good or complaining: no owner mail goes to them until lifted here. */
export async function ownerMailPage(shell: Shell): Promise<HTMLElement> {
  const lift = (address: string) =>
    h(
      'button',
      {
        type: 'button',
        'aria-label': `Lift ${address}`,
        onclick: () => {
          if (
            !confirm(`Send owner mail to ${address} again? Only once its owner has mended the mailbox: a new bounce suppresses it again.`)
          )
            return;
          void shell.act(async () => {
            await api('POST', '/mail-suppressions/lift', { address });
            shell.say(`Owner mail goes to ${address} again.`);
            await list.reload();
          });
        },
      },
      'Lift',
    );
  const list = pagedList(shell, {
    caption: 'Suppressed owner addresses',
    headers: ['Address', 'Reason', 'Since', 'Actions'],
    empty: 'no address is suppressed.',
    async load(_q, cursor) {
      const page = await api<Paged<'suppressions', MailSuppression>>(
        'GET',
        `/mail-suppressions?${query({ limit: String(PAGE_SIZE), cursor })}`,
      );
      return { rows: page.suppressions.map((s) => [s.address, s.reason, time(s.at), lift(s.address)]), nextCursor: page.nextCursor };
    },
  });
  await list.reload();
  return h(
    'section',
    {},
    h('h2', {}, 'Owner mail'),
    h('p', {}, 'Addresses SES reported bouncing for good (bounce) or marking the mail as spam (complaint). No owner mail is sent to them.'),
    list.element,
  );
}
