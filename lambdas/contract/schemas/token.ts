import * as z from 'zod';

export const tokenRequest = z.object({
  grant_type: z.string().describe('Must be client_credentials'),
  client_id: z.string().optional().describe('Omit when using HTTP Basic client authentication'),
  client_secret: z.string().optional().describe('Omit when using HTTP Basic client authentication'),
});

export const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.literal(86400),
  scope: z.string().optional(),
});

export const OAUTH_ERROR_CODES = ['invalid_request', 'unsupported_grant_type', 'invalid_client', 'temporarily_unavailable'] as const;

export const oauthError = z.object({
  error: z.enum(OAUTH_ERROR_CODES),
  error_description: z.string().optional(),
});
