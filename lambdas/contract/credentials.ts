/**
 * The two kinds of application credential (contract 5.1, 9.7): a client id and secret exchanged for tokens by
 * the OAuth 2.0 grant whose name the kind takes, and a legacy bearer credential sent as it is.
 */
export const CLIENT_CREDENTIALS = 'client_credentials';
export const LEGACY_BEARER = 'legacy_bearer';
export const CREDENTIAL_TYPES = [CLIENT_CREDENTIALS, LEGACY_BEARER] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];
