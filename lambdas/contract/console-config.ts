/**
 * What the administration console's page is told at start (`config.json`
 * beside it): where the admin API is, and how to sign in: locally the admin
 * key, in AWS the stage's Cognito user pool (authorization code with PKCE).
 */
export type ConsoleConfig =
  | { apiBase: string; signIn: 'admin-key' }
  | { apiBase: string; signIn: 'cognito'; authDomain: string; clientId: string; redirectUri: string };
