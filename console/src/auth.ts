import type { ConsoleConfig } from '#contract/console-config';
import { challengeOf, newVerifier } from './pkce.js';

type Cognito = Extract<ConsoleConfig, { signIn: 'cognito' }>;

/**
 * The PKCE verifier and state must outlive the redirect to the sign-in page
 * and back: they wait in this tab's sessionStorage, are removed as soon as
 * the code is exchanged, and are no credential (the code is useless without
 * the verifier, and the tokens never touch storage).
 */
const PENDING = 'console-sign-in';

export async function startSignIn(config: Cognito): Promise<void> {
  const verifier = newVerifier();
  const state = newVerifier();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state }));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    scope: 'openid email',
    state,
    code_challenge: await challengeOf(verifier),
    code_challenge_method: 'S256',
  });
  location.assign(`${config.authDomain}/oauth2/authorize?${query}`);
}

/** Back from the sign-in page with a code: exchanges it for an access token (kept in memory by the caller); null when there is none. */
export async function finishSignIn(config: Cognito): Promise<string | null> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const pending = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  // The code leaves the address bar and the history at once.
  history.replaceState(null, '', location.pathname);
  if (!code || !pending) return null;
  const { verifier, state } = JSON.parse(pending) as { verifier: string; state: string };
  if (params.get('state') !== state) throw new Error('The sign-in answer does not match this tab: sign in again.');
  const response = await fetch(`${config.authDomain}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: config.clientId,
      code,
      redirect_uri: config.redirectUri,
      code_verifier: verifier,
    }),
  });
  if (!response.ok) throw new Error('The sign-in could not be completed: sign in again.');
  return ((await response.json()) as { access_token: string }).access_token;
}

export function signOutOf(config: Cognito): void {
  location.assign(`${config.authDomain}/logout?${new URLSearchParams({ client_id: config.clientId, logout_uri: config.redirectUri })}`);
}
