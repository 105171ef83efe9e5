import type { APIGatewayProxyEvent } from 'aws-lambda';

/** The host a REST API's stage answers on (its requests carry the stage in their path). */
export const API_HOST = 'abc123.execute-api.eu-west-1.amazonaws.com';

/**
 * A request as API Gateway (REST, payload 1.0) hands it to a function on the `dev` stage: the matched template with
 * its path parameters filled in, over HTTPS; `extra` replaces whole fields (`headers` included).
 */
export function apiGatewayEvent(
  method: string,
  resource: string,
  path: string,
  extra: Partial<APIGatewayProxyEvent> = {},
): APIGatewayProxyEvent {
  // API Gateway fills pathParameters from the matched template.
  const names = resource.split('/');
  const params = Object.fromEntries(
    path.split('/').flatMap((value, i) => (names[i]?.startsWith('{') ? [[names[i].slice(1, -1).replace('+', ''), value]] : [])),
  );
  return {
    httpMethod: method,
    resource,
    path,
    pathParameters: params,
    headers: { Host: API_HOST, 'X-Forwarded-Proto': 'https' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    body: null,
    isBase64Encoded: false,
    stageVariables: null,
    requestContext: {
      requestId: 'req-1',
      path: `/dev${path}`,
      stage: 'dev',
      domainName: API_HOST,
    } as APIGatewayProxyEvent['requestContext'],
    ...extra,
  };
}
