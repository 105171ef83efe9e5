import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { Deps } from '#platform/deps';
import { count, observability } from '#platform/observability';
import { issueToken } from './issue-token.js';

/** The token family: POST /oauth/token, with OAuth error bodies rather than the /v1 error shape. */
export function createHandler(deps: Deps) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(observability(deps))
    .handler(async (event) => {
      const requestId = event.requestContext.requestId;
      const response = await issueToken(event, deps);
      count(deps, response.statusCode === 200 ? 'TokenIssued' : 'TokenRefused');
      deps.logger.info('request', { requestId, operation: 'issueToken', status: response.statusCode });
      return { ...response, headers: { ...response.headers, 'X-Request-Id': requestId } };
    });
}
