import { ROUTES } from '#lambdas/discovery/all-routes';
import type { Context } from './context.js';
import { bearer, pathOf, route } from './http.js';
import { Check } from './report.js';
import { errorShape } from './shape.js';

/** Refusals: the /v1 error shape, the status codes and the RFC 6750 challenges a client is owed. */
export async function errorChecks({ http, report, groupId }: Context, token: string | null): Promise<void> {
  const locations = pathOf('listLocations', { group_id: groupId });

  const anonymous = await http(locations);
  const challenge = anonymous.headers.get('www-authenticate') ?? '';
  report.add(
    errorShape(new Check('error: no Authorization'), anonymous, 401, 'invalid_token').holds(
      'WWW-Authenticate',
      'Bearer realm=…',
      /^Bearer realm=/i.test(challenge),
      challenge || '(absent)',
    ),
  );

  // Not a b64token at all, and a well-formed one the service never issued.
  const strangers: [string, string][] = [
    ['malformed token', 'not a token!'],
    ['unknown token', 'smoke0unknown0token0AAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ];
  for (const [label, value] of strangers) {
    const reply = await http(locations, { headers: bearer(value) });
    const header = reply.headers.get('www-authenticate') ?? '';
    report.add(
      errorShape(new Check(`error: ${label}`), reply, 401, 'invalid_token').holds(
        'WWW-Authenticate',
        'Bearer … error="invalid_token"',
        /^Bearer\b/i.test(header) && header.includes('error="invalid_token"'),
        header || '(absent)',
      ),
    );
  }

  if (!token) {
    for (const name of ['error: another group', 'error: unknown path', 'error: wrong method']) {
      report.notRun(name, 'an access token');
    }
    return;
  }
  const auth = { headers: bearer(token) };

  // An id the token cannot cover (the service answers 403 whether or not the group exists).
  const otherGroup = groupId === 'smoke-other-group' ? 'smoke-other-group-2' : 'smoke-other-group';
  const foreign = await http(pathOf('listLocations', { group_id: otherGroup }), auth);
  report.add(errorShape(new Check('error: another group'), foreign, 403, 'group_not_allowed'));

  // Four segments whose last word no route uses at that depth, so no route (and no location lookup) matches.
  const missing = await http(`/v1/${encodeURIComponent(groupId)}/smoke-no-such-location/no-such-resource`, auth);
  report.add(errorShape(new Check('error: unknown path'), missing, 404, 'not_found'));

  // DELETE: a method no /v1 route has, so the answer can only be the refusal.
  const wrong = await http(locations, { ...auth, method: 'DELETE' });
  const template = route('listLocations').path;
  const allow = [...new Set(ROUTES.filter((r) => r.path === template).map((r) => r.method))].sort().join(', ');
  const allowed = (wrong.headers.get('allow') ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort()
    .join(', ');
  report.add(errorShape(new Check('error: wrong method'), wrong, 405, 'method_not_allowed').equal('Allow', allow, allowed || undefined));
}
