import { randomBytes } from 'node:crypto';
import type { Context } from './context.js';
import { pathOf, type Reply } from './http.js';
import { Check } from './report.js';
import { isA } from './shape.js';
import { CLIENT_CREDENTIALS } from '#contract/credentials';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

/** The token endpoint (contract 5.1, 7.2): one real exchange and, with `refusals`, three refusals. Returns the access token, if any. */
export async function tokenChecks({ http, report, clientId, clientSecret }: Context, refusals: boolean): Promise<string | null> {
  const path = pathOf('issueToken');
  const post = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    http(path, { method: 'POST', headers: { ...FORM, ...headers }, body: new URLSearchParams(fields).toString() });
  // Random, so no run can guess right; never the real secret.
  const wrongSecret = `wrong-${randomBytes(16).toString('base64url')}`;

  const issued = await post({ grant_type: CLIENT_CREDENTIALS, client_id: clientId, client_secret: clientSecret });
  const token: unknown = issued.json?.access_token;
  if (typeof token === 'string') report.redact(token);
  const check = new Check('token: client_secret_post')
    .equal('status', 200, issued.status)
    .equal('token_type', 'Bearer', issued.json?.token_type)
    .equal('expires_in', 86400, issued.json?.expires_in);
  report.add(isA(check, 'access_token', token, 'string'));
  const accessToken = issued.status === 200 && typeof token === 'string' && token ? token : null;
  if (!refusals) return accessToken;

  const refused = await post({ grant_type: CLIENT_CREDENTIALS, client_id: clientId, client_secret: wrongSecret });
  report.add(oauthError(new Check('token: wrong secret'), refused, 401, 'invalid_client'));

  // RFC 6749 2.3.1: Basic credentials are form-encoded before base64.
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(wrongSecret)}`).toString('base64');
  const challenged = await post({ grant_type: CLIENT_CREDENTIALS }, { Authorization: `Basic ${basic}` });
  const challenge = challenged.headers.get('www-authenticate');
  report.add(
    oauthError(new Check('token: HTTP Basic, wrong secret'), challenged, 401, 'invalid_client').holds(
      'WWW-Authenticate',
      'Basic …',
      /^Basic\b/i.test(challenge ?? ''),
      challenge ?? '(absent)',
    ),
  );

  const unsupported = await post({ grant_type: 'password', client_id: clientId, client_secret: clientSecret });
  report.add(oauthError(new Check('token: wrong grant_type'), unsupported, 400, 'unsupported_grant_type'));

  return accessToken;
}

/** An OAuth error body (RFC 6749 5.2): JSON with `error`, not the /v1 error shape. */
function oauthError(check: Check, reply: Reply, status: number, code: string): Check {
  const type = reply.headers.get('content-type') ?? '';
  return check
    .equal('status', status, reply.status)
    .holds('Content-Type', 'application/json', type.startsWith('application/json'), type || '(absent)')
    .equal('error', code, reply.json?.error);
}
