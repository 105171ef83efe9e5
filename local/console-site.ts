import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { runInNewContext } from 'node:vm';
import {
  CONSOLE_ROOT,
  CONSOLE_SECURITY_HEADERS,
  CONSOLE_VIEWER_REQUEST_FUNCTION,
  consoleObjects,
  LOCAL_CONSOLE_CONFIG,
} from '#lib/console-build';
import { REFERENCE_ROOT, REFERENCE_SECURITY_HEADERS, referenceObjects } from '#lib/reference-build';

/** A CloudFront Functions viewer-request event, the part our function reads and writes (values as CloudFront gives them). */
type ViewerRequestEvent = {
  version: '1.0';
  context: { eventType: 'viewer-request' };
  viewer: { ip: string };
  request: {
    method: string;
    uri: string;
    querystring: Record<string, { value: string }>;
    headers: Record<string, { value: string }>;
    cookies: Record<string, { value: string }>;
  };
};
type FunctionResult =
  | ViewerRequestEvent['request']
  | { statusCode: number; statusDescription?: string; headers?: Record<string, { value: string }>; body?: string };

/** The console's viewer-request function, its very text (lib/console-build.ts), evaluated as CloudFront would run it. */
const consoleViewerRequest = runInNewContext(`${CONSOLE_VIEWER_REQUEST_FUNCTION}\n;handler`, {}) as (
  event: ViewerRequestEvent,
) => FunctionResult;

/** What S3 answers CloudFront for a key that does not exist, when (as with origin access control here) it may not list the bucket. */
const accessDeniedXml = (requestId: string, hostId: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied</Message><RequestId>${requestId}</RequestId><HostId>${hostId}</HostId></Error>`;

/**
 * The console served by the local runtime as the stack serves it
 * (docs/decisions/console-hosting.md): the console distribution mounted at
 * the same paths on the API's own origin (so the page calls the admin API
 * with no CORS; signed in with the admin key). Each request goes through
 * the distribution's viewer-request function, then is read as an S3 key
 * among exactly the objects the deployment uploads, with their
 * Content-Type, Cache-Control and ETag; the response-headers policy's
 * headers are added to every answer; a key that does not exist is S3's
 * 403 AccessDenied, and a method other than GET or HEAD CloudFront's 403.
 * The API reference is served the same way under /docs/, with its own
 * behavior's headers; its document names `serverUrl()` as the server.
 */
export function consoleSite(serverUrl: () => string) {
  // Built at the first request for it: a runtime nobody opens the console on (every test's) never pays for the build.
  let objects: Map<string, { contentType: string; cacheControl: string; body: Buffer; etag: string }> | undefined;
  const lastModified = new Date().toUTCString();
  const objectsOf = () =>
    (objects ??= new Map(
      [...consoleObjects(LOCAL_CONSOLE_CONFIG), ...referenceObjects(serverUrl())].map((o) => {
        const body = Buffer.from(o.body);
        return [
          o.key,
          { contentType: o.contentType, cacheControl: o.cacheControl, body, etag: `"${createHash('md5').update(body).digest('hex')}"` },
        ];
      }),
    ));
  const mounts = [CONSOLE_ROOT, REFERENCE_ROOT];
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (!mounts.some((root) => path === root.slice(0, -1) || path.startsWith(root))) return false;
    // The distribution's behaviors: /docs/* has the reference's headers policy, the default behavior the console's.
    const securityHeaders = path.startsWith(REFERENCE_ROOT) ? REFERENCE_SECURITY_HEADERS : CONSOLE_SECURITY_HEADERS;
    const method = req.method ?? 'GET';
    if (method !== 'GET' && method !== 'HEAD') {
      // The console behavior allows GET and HEAD only; CloudFront itself refuses the rest.
      res.writeHead(403, { 'Content-Type': 'text/html', ...securityHeaders });
      res.end(
        '<html><body><h1>403 ERROR</h1><p>This distribution is not configured to allow the HTTP request method that was used for this request.</p></body></html>',
      );
      return true;
    }
    const result = consoleViewerRequest({
      version: '1.0',
      context: { eventType: 'viewer-request' },
      viewer: { ip: req.socket.remoteAddress ?? '' },
      request: { method, uri: path, querystring: {}, headers: {}, cookies: {} },
    });
    if ('statusCode' in result) {
      const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, { value }]) => [name, value]));
      res.writeHead(result.statusCode, { ...headers, ...securityHeaders }).end(method === 'HEAD' ? undefined : result.body);
      return true;
    }
    const object = objectsOf().get(result.uri.slice(1));
    if (!object) {
      const body = accessDeniedXml(randomBytes(8).toString('hex').toUpperCase(), randomBytes(24).toString('base64'));
      res.writeHead(403, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body), ...securityHeaders });
      res.end(method === 'HEAD' ? undefined : body);
      return true;
    }
    const metadata = { 'Cache-Control': object.cacheControl, ETag: object.etag, 'Last-Modified': lastModified, ...securityHeaders };
    if (req.headers['if-none-match'] === object.etag) {
      res.writeHead(304, metadata).end();
      return true;
    }
    res.writeHead(200, { 'Content-Type': object.contentType, 'Content-Length': object.body.length, 'Accept-Ranges': 'bytes', ...metadata });
    res.end(method === 'HEAD' ? undefined : object.body);
    return true;
  };
}
