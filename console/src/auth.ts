import type { ConsoleConfig } from '#contract/console-config';
import { answerTo, keep } from './pending-sign-in.js';
import { challengeOf, newVerifier } from './pkce.js';

type Cognito = Extract<ConsoleConfig, { signIn: 'cognito' }>;

/** The sign-in under way (pending-sign-in.ts), in this tab's sessionStorage until the code is exchanged. */
const PENDING = 'console-sign-in';

/** To the hosted UI's sign-in (which answers at once while its own session lasts), to come back to `route`. */
export async function startSignIn(config: Cognito, route: string): Promise<void> {
  const verifier = newVerifier();
  const state = newVerifier();
  sessionStorage.setItem(PENDING, keep({ verifier, state, route }));
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

/**
 * Back from the sign-in page with a code: exchanges it for an access token (kept in memory by the caller) and puts
 * the kept route back in the address bar; null when there is no code.
 */
export async function finishSignIn(config: Cognito): Promise<{ token: string; route: string } | null> {
  const params = new URLSearchParams(location.search);
  const code = params.get('code');
  const pending = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  // The code leaves the address bar and the history at once (a reload's or a link's route stays).
  history.replaceState(null, '', `${location.pathname}${code ? '' : location.hash}`);
  if (!code) return null;
  const answer = answerTo(pending, params.get('state'));
  if (!answer) return null;
  const response = await fetch(`${config.authDomain}/oauth2/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: config.clientId,
      code,
      redirect_uri: config.redirectUri,
      code_verifier: answer.verifier,
    }),
  });
  if (!response.ok) throw new Error('The sign-in could not be completed: sign in again.');
  const token = ((await response.json()) as { access_token: string }).access_token;
  history.replaceState(null, '', `${location.pathname}${answer.route}`);
  return { token, route: answer.route };
}

export function signOutOf(config: Cognito): void {
  location.assign(`${config.authDomain}/logout?${new URLSearchParams({ client_id: config.clientId, logout_uri: config.redirectUri })}`);
}
