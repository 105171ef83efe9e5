import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isAdminPath, resolveAdminPath } from '../../lambdas/admin-api/routes.js';
import { ApiError } from '../../lambdas/shared/errors.js';
import { errorResponse } from '../../lambdas/shared/http.js';
import { resolvePath, type Family, type Resolution } from '../../lambdas/shared/routes.js';
import { CATCH_ALL_FAMILY, type ProxyHandler } from './families.js';

/** API Gateway's own payload limit; handlers apply their tighter limits. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

/** The admin API behind the gateway, and the key that stands in locally for IAM authorization. */
export type LocalAdmin = { handler: ProxyHandler; key: string };

/**
 * A local stand-in for API Gateway: it turns each HTTP request into the same
 * REST proxy event API Gateway sends and calls the same family handler.
 */
export function createGateway(handlers: Record<Family, ProxyHandler>, admin: LocalAdmin): Server {
  const adminKeyHash = sha256(admin.key);
  return createServer((req, res) => {
    handle(handlers, { ...admin, keyHash: adminKeyHash }, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ message: 'Internal server error' }));
    });
  });
}

async function handle(
  handlers: Record<Family, ProxyHandler>,
  admin: { handler: ProxyHandler; keyHash: Buffer },
  req: IncomingMessage,
  res: ServerResponse,
) {
  const body = await readBody(req);
  if (body === null) {
    res.writeHead(413, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ message: 'Request Too Long' }));
    return;
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  // API Gateway refuses an unsigned admin call before any function runs; locally the admin key plays SigV4.
  if (isAdminPath(url.pathname) && !adminKeyMatches(req.headers.authorization, admin.keyHash)) {
    const requestId = randomUUID();
    const refusal = errorResponse(new ApiError('forbidden', 'Missing or wrong admin key: send Authorization: Bearer <admin key>.'), requestId);
    send(res, { ...refusal, headers: { ...refusal.headers, 'X-Request-Id': requestId } });
    return;
  }
  const { name, handler, match } = targetOf(handlers, admin.handler, method, url.pathname);
  const event = toEvent(req, url, method, body, match);
  send(res, await handler(event, lambdaContext(name, event.requestContext.requestId)));
}

type Matched = { template: string; params: Record<string, string> } | null;

/** The function API Gateway would invoke for this path, and the template it would hand over. */
function targetOf(handlers: Record<Family, ProxyHandler>, adminHandler: ProxyHandler, method: string, path: string) {
  const matched = (r: Resolution<{ method: string; path: string }>): Matched =>
    r && 'match' in r ? { template: r.match.route.path, params: r.match.params } : null;
  if (isAdminPath(path)) return { name: 'admin-api', handler: adminHandler, match: matched(resolveAdminPath(method, path)) };
  const resolution = resolvePath(method, path);
  const family = resolution && 'match' in resolution ? resolution.match.route.family : CATCH_ALL_FAMILY;
  return { name: family, handler: handlers[family], match: matched(resolution) };
}

function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = { ...result.headers } as Record<string, string>;
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) headers[name] = values.map(String);
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

function toEvent(
  req: IncomingMessage,
  url: URL,
  method: string,
  body: Buffer,
  match: Matched,
): APIGatewayProxyEvent {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i]!;
    const value = req.rawHeaders[i + 1]!;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  headers['X-Forwarded-Proto'] = 'http';
  multiValueHeaders['X-Forwarded-Proto'] = ['http'];
  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    query[name] = value;
    (multiQuery[name] ??= []).push(value);
  }
  const hasQuery = Object.keys(query).length > 0;
  const requestId = randomUUID();
  return {
    httpMethod: method,
    path: url.pathname,
    resource: match?.template ?? '/{proxy+}',
    pathParameters: match ? match.params : { proxy: url.pathname.slice(1) },
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    body: body.length ? body.toString('utf8') : null,
    isBase64Encoded: false,
    stageVariables: null,
    requestContext: {
      requestId,
      path: url.pathname,
      stage: 'local',
      httpMethod: method,
      resourcePath: match?.template ?? '/{proxy+}',
      domainName: req.headers.host ?? 'localhost',
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: req.socket.remoteAddress ?? '127.0.0.1' },
    } as APIGatewayProxyEvent['requestContext'],
  };
}

/** What Lambda hands a function of `family`, for in-process invocations. */
export function lambdaContext(family: string, requestId: string): Context {
  return {
    functionName: `customer-api-local-${family}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:customer-api-local-${family}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/customer-api-local-${family}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Compared as hashes, so the comparison takes the same time whatever the length or content sent. */
function adminKeyMatches(authorization: string | undefined, keyHash: Buffer): boolean {
  const sent = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  return sent !== undefined && timingSafeEqual(sha256(sent), keyHash);
}

/** The whole body, or null once it passes the limit. */
function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
