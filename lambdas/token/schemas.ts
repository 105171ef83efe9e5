import * as v from 'valibot';

export const tokenRequest = v.object({
  grant_type: v.pipe(v.string(), v.description('Must be client_credentials')),
  client_id: v.pipe(v.optional(v.string()), v.description('Omit when using HTTP Basic client authentication')),
  client_secret: v.pipe(v.optional(v.string()), v.description('Omit when using HTTP Basic client authentication')),
  scope: v.pipe(
    v.optional(v.string()),
    v.description(
      "Space-separated scopes the token should carry (RFC 6749 3.3): it gets those the application holds, named in the response's scope; omitted, all of them. None held: invalid_request.",
    ),
  ),
});

export const tokenResponse = v.object({
  access_token: v.string(),
  token_type: v.literal('Bearer'),
  expires_in: v.literal(86400),
  scope: v.optional(v.string()),
});

export const OAUTH_ERROR_CODES = ['invalid_request', 'unsupported_grant_type', 'invalid_client', 'temporarily_unavailable'] as const;

export const oauthError = v.object({
  error: v.picklist(OAUTH_ERROR_CODES),
  error_description: v.optional(v.string()),
});
