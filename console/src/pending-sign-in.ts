import { HOME, hrefOf, routeOf } from './routes.js';

/**
 * What waits in this tab's sessionStorage across the redirect to the sign-in page and back: the PKCE verifier,
 * the state, and the address to land on (the hosted UI returns to one fixed redirect URI, without the hash).
 * None of it is a credential: the code is useless without the verifier, and the tokens never touch storage.
 */
export type PendingSignIn = { verifier: string; state: string; route: string };

/** The stored form of a sign-in under way. */
export const keep = (pending: PendingSignIn): string => JSON.stringify(pending);

/**
 * The verifier and route of the sign-in under way, when the answer's state is the one kept; null when none was
 * kept. A route that names no page becomes the first page's (the stored text is this tab's, but never trusted).
 */
export function answerTo(stored: string | null, answeredState: string | null): { verifier: string; route: string } | null {
  if (!stored) return null;
  const { verifier, state, route } = JSON.parse(stored) as Partial<PendingSignIn>;
  if (!verifier || !state || answeredState !== state) throw new Error('The sign-in answer does not match this tab: sign in again.');
  return { verifier, route: hrefOf(routeOf(route ?? '') ?? HOME) };
}
