import type { Deps } from '#platform/deps';
import { httpShell } from '#platform/http-shell';
import { issueToken } from './issue-token.js';

/** The token function: POST /oauth/token, with OAuth error bodies rather than the /v1 error shape. */
export function createHandler(deps: Deps) {
  return httpShell('token', deps).handler(async (event, context) => {
    context.operation = 'issueToken';
    return issueToken(event, deps);
  });
}
