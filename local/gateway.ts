import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { ADMIN_PROXY_PATH, ADMIN_ROOT, ADMIN_ROUTES, isAdminPath } from '#contract/admin-routes';
import { type Family, CATCH_ALL_FAMILY, TOKEN_PATH } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { pathResolver } from '#platform/api-handler';
import { NO_SNIFF } from '#platform/http';
import { timeoutSecondsOf, type FunctionName } from '#lib/functions';
import { isProducerPath, PRODUCER_PROXY_PATH, PRODUCER_ROOT } from '#lambdas/producers/routes';
import type { ProxyHandler } from './families.js';
import { type Guard, LOCAL_ACCOUNT, LOCAL_API_ID, PARTITION } from './iam-guard.js';
import { LOCAL_SQS_PATH, type LocalSqsAnswer } from './producer-sqs.js';
import { LOCAL_THROTTLE, tokenBucket, type StageThrottle } from './stage-throttle.js';

/**
 * A local stand-in for an API Gateway HTTP API with Lambda proxy integrations
 * (payload format 1.0), keeping the rules a client can see; each is written
 * down with its source in docs/decisions/api-gateway.md.
 */

/** API Gateway's payload quota for a request (10 MB, not adjustable). */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Lambda's quota for a synchronous invocation's payload: the whole event as JSON, not just the body. */
export const MAX_EVENT_BYTES = 6 * 1024 * 1024;

/** API Gateway's own answers. An HTTP API cannot customise them, so they never carry the contract's error shape. */
const GATEWAY = {
  badRequest: [400, 'Bad Request'],
  forbidden: [403, 'Forbidden'],
  tooLarge: [413, 'Request Entity Too Large'],
  throttled: [429, 'Too Many Requests'],
  integrationFailed: [500, 'Internal Server Error'],
} as const;

/** Content types passed to the function as text; any other body arrives base64-encoded (isBase64Encoded). */
const TEXT_TYPE = /^(text\/[^;]+|application\/(json|xml|javascript)|[^;/]+\/[^;]+\+(json|xml))\s*(;|$)/i;

/** The admin API behind the gateway, and the key that stands in locally for IAM (SigV4) authorization. */
export type LocalAdmin = { handler: ProxyHandler; key: string };

/**
 * The producer API behind the gateway: each producer's key stands in for its IAM principal, held to the statements
 * of its policy in the synthesized stack (`guard`; null when IAM enforcement is off), as API Gateway holds a SigV4
 * caller to execute-api:Invoke on the route's ARN.
 */
type LocalProducers = {
  handler: ProxyHandler;
  region: string;
  keys: readonly { producer: string; key: string; guard: Guard | null }[];
  /** SQS's consumer actions below LOCAL_SQS_PATH, for a producer key (local/producer-sqs.ts); absent: none. */
  sqs?: (target: string | undefined, body: string, producer: string, guard: Guard | null) => Promise<LocalSqsAnswer>;
};

/** Static files served beside the API (the console); answers true when it took the request. */
export type Site = (req: IncomingMessage, res: ServerResponse, path: string) => boolean;

/**
 * `timeoutScale` multiplies every function's timeout (lib/functions.ts), which the gateway enforces as Lambda
 * does: tests shrink it so a slow engine runs into it in seconds.
 */
export type GatewayOptions = {
  timeoutScale?: number;
  /** The throttle buckets' clock (ms); default Date.now. Tests pin it, so a bucket refills only when they say. */
  now?: () => number;
  /** The producer API; absent, every producer path is refused as an unsigned request is. */
  producers?: LocalProducers;
};

export function createGateway(
  handlers: Record<Family, ProxyHandler>,
  admin: LocalAdmin,
  throttle: StageThrottle = LOCAL_THROTTLE,
  site?: Site,
  options: GatewayOptions = {},
): Server {
  const route = router(handlers, admin.handler, options.producers?.handler);
  const keyHash = sha256(admin.key);
  const producerKeys = (options.producers?.keys ?? []).map((k) => ({ ...k, hash: sha256(k.key) }));
  const buckets = new Map<string, { take(): boolean }>();
  const bucketOf = (routeKey: string) => buckets.get(routeKey) ?? buckets.set(routeKey, tokenBucket(throttle, options.now)).get(routeKey)!;

  return createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      if (body === null) return refuse(res, GATEWAY.tooLarge);
      const [rawPath, rawQuery = ''] = (req.url ?? '/').split(/\?(.*)/s);
      const path = decodedPath(rawPath!);
      if (path === null) return refuse(res, GATEWAY.badRequest);
      // In AWS the console comes from its own distribution, not through the API.
      if (site?.(req, res, path)) return;
      const method = req.method ?? 'GET';
      if (path === LOCAL_SQS_PATH && method === 'POST' && options.producers?.sqs) {
        const caller = producerKeys.find((k) => keyMatches(req.headers.authorization, k.hash));
        if (!caller) return refuse(res, GATEWAY.forbidden);
        const target = req.headers['x-amz-target'];
        const answer = await options.producers.sqs(
          Array.isArray(target) ? target[0] : target,
          body.toString('utf8'),
          caller.producer,
          caller.guard,
        );
        res.writeHead(answer.status, { 'Content-Type': 'application/x-amz-json-1.0', ...NO_SNIFF }).end(JSON.stringify(answer.body));
        return;
      }
      const target = route(method, path);
      if (!bucketOf(target.routeKey).take()) return refuse(res, GATEWAY.throttled);
      if (target.auth === 'admin' && !keyMatches(req.headers.authorization, keyHash)) return refuse(res, GATEWAY.forbidden);
      if (target.auth === 'producer') {
        const caller = producerKeys.find((k) => keyMatches(req.headers.authorization, k.hash));
        const arn = `arn:${PARTITION}:execute-api:${options.producers?.region}:${LOCAL_ACCOUNT}:${LOCAL_API_ID}/$default/${method}${path}`;
        if (!caller || (caller.guard && caller.guard.allows({ action: 'execute-api:Invoke', resource: arn, context: {} }) !== 'allowed'))
          return refuse(res, GATEWAY.forbidden);
        target.caller = `local-producer-key:${caller.producer}`;
      }

      // Lambda receives the event as JSON: measured as such when it could reach the limit (toEvent builds its parse).
      // (The type also names what an HTTP API leaves out of payload 1.0: an authorizer, most of identity.)
      const event = toEvent(req, method, path, rawQuery, body, target) as unknown as APIGatewayProxyEvent;
      if (mayPassEventLimit(event.body, EVENT_FRAME_BYTES) && Buffer.byteLength(JSON.stringify(event)) > MAX_EVENT_BYTES)
        return refuse(res, GATEWAY.integrationFailed);
      const answer = await withinTimeout(target, event, timeoutSecondsOf(target.name as FunctionName) * 1000 * (options.timeoutScale ?? 1));
      // Timed out: Lambda reports the invocation failed, and the API answers 500 (the function runs on here, where Lambda would stop it).
      if (answer === null) return refuse(res, GATEWAY.integrationFailed);
      // Lambda hands API Gateway the answer's JSON: measured as such, then sent as JSON would carry it (send).
      if (mayPassEventLimit(answer.body, answerFrameBytes(answer)) && Buffer.byteLength(JSON.stringify(answer)) > MAX_EVENT_BYTES)
        return refuse(res, GATEWAY.integrationFailed);
      send(res, answer);
    })().catch(() => {
      // A function that throws is a failed integration: API Gateway answers 500 without detail.
      if (!res.headersSent) refuse(res, GATEWAY.integrationFailed);
      else res.end();
    });
  });
}

/**
 * Whether a payload's JSON could pass Lambda's limit, so only those are serialised to be measured: a character of
 * its body takes at most 6 bytes in JSON (`\uXXXX`), the rest at most `frameBytes`.
 */
const mayPassEventLimit = (body: string | null | undefined, frameBytes: number) => 6 * (body?.length ?? 0) + frameBytes > MAX_EVENT_BYTES;

/**
 * A request's event beyond its body, at most: Node reads at most 16 KB of request line and headers (its
 * `--max-http-header-size`), which the event carries twice (headers and multi-value headers) beside the path and
 * the query, each character at most 6 bytes of JSON, and the fixed fields.
 */
const EVENT_FRAME_BYTES = 1024 * 1024;

/** An answer beyond its body: its headers as JSON text (at most 3 bytes a character in UTF-8), status, flag and names. */
const answerFrameBytes = ({ headers, multiValueHeaders }: APIGatewayProxyResult) =>
  3 * JSON.stringify([headers, multiValueHeaders]).length + 100;

/** The function's answer, or null once its timeout passes first (its context counts down to it). */
async function withinTimeout(target: Target, event: APIGatewayProxyEvent, timeoutMs: number): Promise<APIGatewayProxyResult | null> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), timeoutMs)));
  try {
    return await Promise.race([target.handler(event, lambdaContext(target.name, event.requestContext.requestId, timeoutMs)), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

type Target = {
  /** Which function runs (names its local Lambda context). */
  name: string;
  handler: ProxyHandler;
  /** The route API Gateway picked; each has its own throttle bucket. */
  routeKey: string;
  /** Payload 1.0 `resource`: the route's path, or `$default`. */
  resource: string;
  pathParameters: Record<string, string> | null;
  /** Who may call: anyone (the function decides), the admin key, or a producer key its policy allows. */
  auth: 'none' | 'admin' | 'producer';
  /** The principal the gateway verified (an event's identity.userArn). */
  caller?: string;
};

/**
 * Route selection as an HTTP API does it: a route whose method and path both
 * match (literal segments before variables), then an ANY route of the path
 * (the token endpoint's), the IAM-guarded greedy admin route, then `$default`, which sends every other path and method to
 * the catch-all family (the contract's 404, or 405 with Allow).
 */
function router(handlers: Record<Family, ProxyHandler>, adminHandler: ProxyHandler, producerHandler: ProxyHandler | undefined) {
  const explicit: { method: string; path: string; name: string; handler: ProxyHandler; auth: Target['auth'] }[] = [
    ...ROUTES.map((r) => ({ method: r.method, path: r.path, name: r.family, handler: handlers[r.family], auth: 'none' as const })),
    ...ADMIN_ROUTES.map((r) => ({ method: r.method, path: r.path, name: 'admin-api', handler: adminHandler, auth: 'admin' as const })),
    // The token endpoint's other methods reach the token function, which answers them in the OAuth shape.
    { method: 'ANY', path: TOKEN_PATH, name: 'token', handler: handlers.token, auth: 'none' },
  ];
  const byMethod = new Map(
    [...new Set(explicit.map((r) => r.method))].map((m) => [m, pathResolver(explicit.filter((r) => r.method === m))]),
  );
  return (method: string, path: string): Target => {
    // An exact method first, then an ANY route of the path, as an HTTP API picks.
    const exact = byMethod.get(method)?.(method, path);
    const hit = exact && 'match' in exact ? exact : byMethod.get('ANY')?.('ANY', path);
    if (hit && 'match' in hit) {
      const { route, params } = hit.match;
      return {
        name: route.name,
        handler: route.handler,
        routeKey: `${route.method} ${route.path}`,
        resource: route.path,
        pathParameters: params,
        auth: route.auth,
      };
    }
    if (isAdminPath(path)) {
      const proxy = path.slice(`${ADMIN_ROOT}/`.length);
      return {
        name: 'admin-api',
        handler: adminHandler,
        routeKey: `ANY ${ADMIN_PROXY_PATH}`,
        resource: ADMIN_PROXY_PATH,
        pathParameters: { proxy },
        auth: 'admin',
      };
    }
    if (isProducerPath(path)) {
      return {
        name: 'producer-api',
        handler: producerHandler ?? (() => Promise.reject(new Error('no producer API'))),
        routeKey: `ANY ${PRODUCER_PROXY_PATH}`,
        resource: PRODUCER_PROXY_PATH,
        pathParameters: { proxy: path.slice(`${PRODUCER_ROOT}/`.length) },
        auth: 'producer',
      };
    }
    return {
      name: CATCH_ALL_FAMILY,
      handler: handlers[CATCH_ALL_FAMILY],
      routeKey: '$default',
      resource: '$default',
      pathParameters: null,
      auth: 'none',
    };
  };
}

/**
 * The path as an HTTP API routes it and hands it over (`path` and path
 * parameters): percent-decoded before routing, so `%2F` splits a segment.
 * Live captures show it cut at a decoded `?`, then decoded once more, and a
 * 400 where a pass meets a malformed escape. Null: that 400.
 */
export function decodedPath(raw: string): string | null {
  try {
    return decodeURIComponent(decodeURIComponent(raw).split('?')[0]!);
  } catch {
    return null;
  }
}

/**
 * The event as a function gets it from Lambda, which parses its JSON: plain objects whose every name is an own data
 * property, `__proto__` and `constructor` included (`put`).
 */
function toEvent(req: IncomingMessage, method: string, path: string, rawQuery: string, body: Buffer, target: Target) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  const add = (name: string, value: string) => {
    put(headers, name, value);
    put(multiValueHeaders, name, [...(own(multiValueHeaders, name) ?? []), value]);
  };
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    // API Gateway sets the forwarding headers itself; a client's own never reach the function as sent.
    if (/^(x-forwarded-|forwarded$)/i.test(req.rawHeaders[i]!)) continue;
    add(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  }
  const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';
  add('X-Forwarded-For', sourceIp);
  add('X-Forwarded-Port', String(req.socket.localPort ?? ''));
  add('X-Forwarded-Proto', 'http');

  const query: Record<string, string> = {};
  const multiQuery: Record<string, string[]> = {};
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    put(query, name, value);
    put(multiQuery, name, [...(own(multiQuery, name) ?? []), value]);
  }
  const hasQuery = Object.keys(query).length > 0;
  const text = TEXT_TYPE.test(req.headers['content-type'] ?? '');
  const requestId = randomUUID();
  const now = Date.now();
  return {
    version: '1.0',
    resource: target.resource,
    path,
    httpMethod: method,
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    requestContext: {
      accountId: '000000000000',
      apiId: LOCAL_API_ID,
      // The API's own host, as API Gateway reports its domain whatever Host the client sent (never the Host header).
      domainName: `localhost:${req.socket.localPort ?? ''}`,
      domainPrefix: 'local',
      extendedRequestId: requestId,
      httpMethod: method,
      identity: {
        sourceIp,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: target.caller ?? (target.auth === 'admin' ? 'local-admin-key' : null),
      },
      path,
      protocol: `HTTP/${req.httpVersion}`,
      requestId,
      requestTime: new Date(now).toUTCString(),
      requestTimeEpoch: now,
      resourceId: target.resource,
      resourcePath: target.resource,
      stage: '$default',
    },
    pathParameters: target.pathParameters,
    stageVariables: null,
    body: body.length ? body.toString(text ? 'utf8' : 'base64') : null,
    isBase64Encoded: body.length > 0 && !text,
  };
}

/** Sets a name as JSON.parse does, an own data property: `__proto__` too, which an assignment would take for the prototype. */
function put<T>(map: Record<string, T>, name: string, value: T): void {
  if (name === '__proto__') Object.defineProperty(map, name, { value, writable: true, enumerable: true, configurable: true });
  else map[name] = value;
}

/** A name's own value, never one inherited (`constructor`, `__proto__`). */
const own = <T>(map: Record<string, T>, name: string): T | undefined => (Object.hasOwn(map, name) ? map[name] : undefined);

/** An HTTP API decodes a base64 body whenever the function says so, whatever the request's Accept. */
function send(res: ServerResponse, result: APIGatewayProxyResult): void {
  const headers: Record<string, string | string[]> = Object.create(null);
  // JSON drops a header whose value is undefined.
  for (const [name, value] of Object.entries(result.headers ?? {})) if (value !== undefined) headers[name] = String(value);
  for (const [name, values] of Object.entries(result.multiValueHeaders ?? {})) if (values !== undefined) headers[name] = values.map(String);
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/** API Gateway's own answer; nosniff as the edge adds it in AWS (lib/constructs/edge.ts). */
function refuse(res: ServerResponse, [status, message]: readonly [number, string]): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Apigw-Requestid': randomUUID(), ...NO_SNIFF });
  res.end(JSON.stringify({ message }));
}

/** What Lambda hands a function of `family`, for in-process invocations; with `timeoutMs`, its remaining time counts down to it. */
export function lambdaContext(family: string, requestId: string, timeoutMs?: number): Context {
  const deadline = timeoutMs === undefined ? null : Date.now() + timeoutMs;
  return {
    functionName: `customer-api-local-${family}`,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:customer-api-local-${family}`,
    memoryLimitInMB: '512',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/customer-api-local-${family}`,
    logStreamName: 'local',
    callbackWaitsForEmptyEventLoop: false,
    getRemainingTimeInMillis: () => (deadline === null ? 29_000 : Math.max(0, deadline - Date.now())),
    done: ignored,
    fail: ignored,
    succeed: ignored,
  };
}

/** The callbacks of Lambda's context, which an async handler never calls. */
const ignored = () => undefined;

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Compared as hashes, so the comparison takes the same time whatever the length or content sent. */
function keyMatches(authorization: string | undefined, keyHash: Buffer): boolean {
  const sent = /^Bearer (\S+)$/i.exec(authorization ?? '')?.[1];
  return sent !== undefined && timingSafeEqual(sha256(sent), keyHash);
}

/** The whole body, or null once it passes API Gateway's limit. */
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
