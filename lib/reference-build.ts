import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERRORS } from '#contract/errors';
import { openApiDocument } from './openapi.js';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '#platform/config';
import { refusedHeaders } from '#platform/auth';
import { rateWindow } from '#data/rate-counters';
import {
  CONSOLE_CACHE_CONTROL,
  consoleCsp,
  contentTypeOf,
  consoleSecurity,
  securityHeaders,
  type ConsoleObject,
  type ConsoleSecurity,
} from './console-build.js';

/**
 * The API reference (docs/decisions/api-reference.md): the OpenAPI document
 * rendered in the browser by Scalar's standalone bundle, served from the
 * console's bucket and distribution under /docs/, through the same
 * viewer-request function, and by the local site from the same objects.
 */
export const REFERENCE_ROOT = '/docs/';

/** The reference's objects are under this prefix of the console bucket. */
export const REFERENCE_KEY_PREFIX = REFERENCE_ROOT.slice(1);

/** The distribution behavior that serves the reference with its own headers (CloudFront's `*` matches `/docs/` too). */
export const REFERENCE_PATH_PATTERN = `${REFERENCE_ROOT}*`;

/**
 * The console's policy but for styles: Scalar (Vue) writes <style> elements
 * and style attributes at run time, which only 'unsafe-inline' allows (a
 * nonce needs a per-response value, hashes do not cover style attributes).
 * Scripts stay 'self' only, with no 'unsafe-eval'.
 */
export const referenceSecurity = (): ConsoleSecurity => ({
  ...consoleSecurity(),
  contentSecurityPolicy: consoleCsp([], ["'unsafe-inline'"]),
});

export const REFERENCE_SECURITY_HEADERS = securityHeaders(referenceSecurity());

const RENDERER = fileURLToPath(new URL('../node_modules/@scalar/api-reference/dist/browser/standalone.js', import.meta.url));

const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Customer API reference</title>
    <link rel="icon" href="favicon.svg" />
    <script src="scalar.js" defer></script>
    <script src="reference.js" defer></script>
  </head>
  <body>
    <div id="reference"></div>
  </body>
</html>
`;

const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#1f4e79"/></svg>\n';

/**
 * Scalar's options for a page that reaches nothing but its own origin: no
 * fonts from Scalar's CDN, no telemetry, no AI agent, MCP or developer
 * tools (hosted services), no request client (the API is another origin).
 */
const REFERENCE_JS = `Scalar.createApiReference('#reference', ${JSON.stringify({
  url: 'openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  hideClientButton: true,
  hideTestRequestButton: true,
})});
`;

/** What a client meets on every /v1 response, each header the rate limiter sets (lambdas/platform/rate-limit.ts). */
const RATE_LIMIT_HEADERS: Record<string, string> = {
  'RateLimit-Limit': "the application's requests per UTC minute",
  'RateLimit-Remaining': 'requests left in this minute',
  'RateLimit-Reset': 'seconds until the minute ends and the count starts again',
  'RateLimit-Policy': 'the quota and its window in seconds',
  'Retry-After': 'on a 429 only: seconds to wait before the next request',
};

/** The intro's errors and rate limits, from the codes and headers the functions use. */
function referenceIntro(): string {
  const limit = DEFAULT_RATE_LIMIT_PER_MINUTE;
  // The request after the last one allowed, 42 s before the minute ends: every header the limiter can set.
  const headers = refusedHeaders(limit, rateWindow(Date.UTC(2026, 0, 1, 12, 0, 18)));
  const undocumented = Object.keys(headers).filter((name) => !RATE_LIMIT_HEADERS[name]);
  if (undocumented.length) throw new Error(`API reference: rate-limit headers without a meaning: ${undocumented.join(', ')}`);
  return [
    '## Errors',
    '',
    'Every non-success `/v1` response has one shape, `{"ok": false, "version": "v1", "error": {"code", "message", "status", "requestId"}}`, with a stable `code`:',
    '',
    '| status | code | message |',
    '|---|---|---|',
    ...Object.entries(ERRORS).map(([code, { status, message }]) => `| ${status} | \`${code}\` | ${message} |`),
    '',
    'The token endpoint answers OAuth errors instead (`{"error", "error_description"}`).',
    '',
    '## Rate limits',
    '',
    `Each application has a quota of requests per UTC minute (${limit} unless set otherwise). Every \`/v1\` response carries these headers; the example is the request after the last one allowed, with 42 s of the minute left:`,
    '',
    '| header | example | meaning |',
    '|---|---|---|',
    ...Object.entries(headers).map(([name, value]) => `| \`${name}\` | \`${value}\` | ${RATE_LIMIT_HEADERS[name]} |`),
  ].join('\n');
}

/** The OpenAPI document the page renders: the served one, with `serverUrl` as its server and the intro after its description. */
function referenceDocument(serverUrl: string) {
  const document = openApiDocument(serverUrl);
  return { ...document, info: { ...document.info, description: `${document.info.description}\n\n${referenceIntro()}` } };
}

/**
 * The reference's objects in the console bucket: what the stack uploads
 * (`serverUrl` the API's public URL, resolved at deploy time) and what the
 * local site serves (the runtime's URL), under the same keys.
 */
export function referenceObjects(serverUrl: string): ConsoleObject[] {
  return [
    { name: 'index.html', body: INDEX_HTML },
    { name: 'reference.js', body: REFERENCE_JS },
    { name: 'scalar.js', body: readFileSync(RENDERER, 'utf8') },
    // Named by the page: a browser otherwise asks for /favicon.ico, a key that does not exist (403).
    { name: 'favicon.svg', body: FAVICON_SVG },
    { name: 'openapi.json', body: JSON.stringify(referenceDocument(serverUrl)) },
  ].map((file) => ({
    ...file,
    key: `${REFERENCE_KEY_PREFIX}${file.name}`,
    contentType: contentTypeOf(file.name),
    cacheControl: CONSOLE_CACHE_CONTROL,
  }));
}
