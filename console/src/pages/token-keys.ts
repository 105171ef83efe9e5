import { api } from '../api.js';
import type { KeyVersion, KeyVersions } from '../documents.js';
import { h, table, time } from '../dom.js';
import type { Shell } from '../shell.js';

/** The access-token key's versions (never a key): which signs, which verify until when; rotate, or revoke a compromised one. */
export async function tokenKeysPage(shell: Shell): Promise<HTMLElement> {
  const list = h('div', {});
  const draw = (versions: KeyVersion[]) =>
    list.replaceChildren(
      table(
        'Access-token key versions',
        ['Version', 'State', 'Created', 'Verifies until', 'Revoked', 'Actions'],
        versions.map((k) => [
          k.version,
          k.state,
          time(k.createdAt),
          time(k.retiresAt),
          time(k.revokedAt),
          k.state === 'revoked'
            ? '—'
            : h(
                'button',
                {
                  type: 'button',
                  class: 'danger',
                  'aria-label': `Revoke key version ${k.version}`,
                  onclick: () => {
                    if (!confirm(`Revoke key version ${k.version}? Every token it signed is refused from now on.`)) return;
                    void shell.act(async () => {
                      draw((await api<KeyVersions>('POST', `/token-keys/${k.version}/revoke`, {})).versions);
                      shell.say(`Key version ${k.version} revoked.`);
                    });
                  },
                },
                'Revoke',
              ),
        ]),
        'no key version yet: the first token issued creates one.',
      ),
    );
  draw((await api<KeyVersions>('GET', '/token-keys')).versions);
  const rotate = h(
    'button',
    {
      type: 'button',
      onclick: () => {
        if (
          !confirm('Rotate the access-token key? A new version signs from now on; the current one verifies its tokens until they expire.')
        )
          return;
        void shell.act(async () => {
          draw((await api<KeyVersions>('POST', '/token-keys/rotate', {})).versions);
          shell.say('Access-token key rotated.');
        });
      },
    },
    'Rotate key',
  );
  return h(
    'section',
    {},
    h('h2', {}, 'Token keys'),
    h('p', {}, 'The key that signs access tokens, by version. No key is ever shown.'),
    rotate,
    list,
  );
}
