import type { APIGatewayProxyEvent } from 'aws-lambda';
import { adminPathOf, CONSOLE_ADMIN_GROUP } from '#contract/admin-routes';
import { ApiError } from '#contract/errors';

/**
 * A request through the console's prefix: API Gateway's JWT authorizer has
 * checked the Cognito token (signature, issuer, client, expiry); this checks
 * that its user is in the admins group, then hands on the same request as
 * the admin route it mirrors. Any other request passes unchanged.
 */
export function fromConsole(event: APIGatewayProxyEvent): { event: APIGatewayProxyEvent; consoleUser: string | null } {
  const path = adminPathOf(event.path);
  if (path === null) return { event, consoleUser: null };
  // Payload 1.0 carries a JWT authorizer's claims flat under `authorizer.claims`; 2.0 under `authorizer.jwt.claims`.
  const authorizer = event.requestContext.authorizer as
    { claims?: Record<string, unknown>; jwt?: { claims?: Record<string, unknown> } } | null | undefined;
  const claims = authorizer?.claims ?? authorizer?.jwt?.claims;
  if (!claims || !groupsOf(claims['cognito:groups']).includes(CONSOLE_ADMIN_GROUP))
    throw new ApiError('forbidden', 'Only members of the admins group may use the console.');
  const claim = claims.username ?? claims['cognito:username'] ?? claims.sub ?? 'unknown';
  const user = typeof claim === 'string' ? claim : JSON.stringify(claim);
  return {
    event: { ...event, path, resource: adminPathOf(event.resource) ?? event.resource },
    consoleUser: `cognito:${user}`,
  };
}

/** Cognito's groups claim: an array, or as API Gateway passes it on, a bracketed, space-separated string. */
function groupsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'string')
    return value
      .replace(/^\[|\]$/g, '')
      .split(/[\s,]+/)
      .filter(Boolean);
  return [];
}
