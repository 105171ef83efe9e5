import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import type { ConsoleConfig } from '#contract/console-config';

/**
 * The administration console's static files (console/), built by esbuild,
 * the Lambda bundles' tool, declared once as the objects of the console
 * bucket: the stack uploads them (lib/constructs/admin-console.ts) and the
 * local runtime serves the same list under the same keys, with the same
 * metadata, the same rewrite and the same security headers
 * (local/console-site.ts; docs/decisions/console-hosting.md).
 */
export const CONSOLE_ROOT = '/console/';

/** The console's objects are under this prefix of its bucket: the root's path without its leading slash. */
export const CONSOLE_KEY_PREFIX = CONSOLE_ROOT.slice(1);

/** The page. A URL ending in `/` names it (the viewer-request function below): CloudFront's default root object applies to `/` only. */
const CONSOLE_INDEX = 'index.html';

/**
 * The console behavior's viewer-request CloudFront Function (runtime
 * cloudfront-js-2.0). `/` and `/console` answer 302 to `/console/`, the
 * address people type short of the page (302: a browser keeps a 301 for
 * good, and the root may serve something else one day). A URI ending in
 * `/` names its index: `/console/` → `/console/index.html`, which S3 can
 * answer; without it the request reaches S3 as the key `console/`, which
 * does not exist, and S3 answers CloudFront 403 (it may not list the
 * bucket). The local console site evaluates this same text.
 */
export const CONSOLE_VIEWER_REQUEST_FUNCTION = `function handler(event) {
  var request = event.request;
  if (request.uri === '/' || request.uri === '${CONSOLE_ROOT.slice(0, -1)}') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${CONSOLE_ROOT}' } } };
  }
  if (request.uri.endsWith('/')) request.uri += '${CONSOLE_INDEX}';
  return request;
}`;

/**
 * Every object is revalidated on each use (S3's ETag answers 304 when it is
 * unchanged): the names are not content-hashed (index.html names `app.js`),
 * so a long lifetime would keep an old script after a deploy.
 */
export const CONSOLE_CACHE_CONTROL = 'no-cache';

/**
 * Each file's Content-Type, by extension: one deployment uploads a site, and a deployment sets one type for all its
 * files or none, so it sets none and its `aws s3 sync` gives each object the type Python's mimetypes gives the
 * extension (the deployment handler runs on python3.13). The local site serves the same types. No charset: the pages
 * declare UTF-8 (`<meta charset>`), and their scripts, styles and JSON are read in it.
 */
const CONTENT_TYPES: Record<string, string> = {
  html: 'text/html',
  css: 'text/css',
  js: 'text/javascript',
  svg: 'image/svg+xml',
  json: 'application/json',
};

/** A site file's Content-Type from its name; a file of another kind would be uploaded with a type nobody checked. */
export function contentTypeOf(name: string): string {
  const type = CONTENT_TYPES[name.slice(name.lastIndexOf('.') + 1)];
  if (!type) throw new Error(`${name}: no Content-Type declared for its extension (lib/console-build.ts, CONTENT_TYPES)`);
  return type;
}

/**
 * The Content-Security-Policy, with the origins the page may call besides its own (the Cognito domain in AWS) and
 * any style sources besides its own files (the API reference's, lib/reference-build.ts).
 */
export const consoleCsp = (connect: readonly string[] = [], style: readonly string[] = []): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self'${style.map((s) => ` ${s}`).join('')}`,
    `connect-src 'self'${connect.map((o) => ` ${o}`).join('')}`,
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** HSTS's max-age: two years, as browsers' preload lists ask. */
const HSTS_SECONDS = 63_072_000;

/**
 * The security headers of the console's CloudFront response-headers policy,
 * as data: the stack turns it into the policy, `securityHeaders` into the
 * header lines CloudFront adds, which the local site sends.
 */
export type ConsoleSecurity = {
  contentSecurityPolicy: string;
  strictTransportSecurity: { maxAgeSeconds: number; includeSubdomains: boolean };
  frameOption: 'DENY' | 'SAMEORIGIN';
  contentTypeOptions: 'nosniff';
  referrerPolicy: 'no-referrer';
};

export const consoleSecurity = (connect: readonly string[] = []): ConsoleSecurity => ({
  contentSecurityPolicy: consoleCsp(connect),
  strictTransportSecurity: { maxAgeSeconds: HSTS_SECONDS, includeSubdomains: true },
  frameOption: 'DENY',
  contentTypeOptions: 'nosniff',
  referrerPolicy: 'no-referrer',
});

/** The header lines CloudFront writes for a policy's security headers (every one with override: the origin's never win). */
export const securityHeaders = (s: ConsoleSecurity): Record<string, string> => ({
  'Content-Security-Policy': s.contentSecurityPolicy,
  'Strict-Transport-Security': `max-age=${s.strictTransportSecurity.maxAgeSeconds}${s.strictTransportSecurity.includeSubdomains ? '; includeSubDomains' : ''}`,
  'X-Frame-Options': s.frameOption,
  'X-Content-Type-Options': s.contentTypeOptions,
  'Referrer-Policy': s.referrerPolicy,
});

/** What the console's responses carry locally: the policy's headers, with no extra origin to connect to (no Cognito). */
export const CONSOLE_SECURITY_HEADERS = securityHeaders(consoleSecurity());

/**
 * The OAuth scope the console's route requires (API Gateway's JWT authorizer
 * checks the token's `scope` claim): a Cognito ID token has no `scope`, so
 * only access tokens pass. `openid` is in every access token of the code
 * flow the page runs (docs/decisions/console-hosting.md).
 */
export const CONSOLE_TOKEN_SCOPE = 'openid';

/** The OAuth scopes the console's user pool client allows; the page asks for these (console/src/auth.ts). */
export const CONSOLE_CLIENT_SCOPES = [CONSOLE_TOKEN_SCOPE, 'email'] as const;

export const LOCAL_CONSOLE_CONFIG: ConsoleConfig = { apiBase: '/admin/v1', signIn: 'admin-key' };

const source = (name: string) => fileURLToPath(new URL(`../console/${name}`, import.meta.url));

/** The built files by name (config.json apart: it differs by where the page runs). */
function buildConsole(): Map<string, Buffer> {
  const bundle = buildSync({
    entryPoints: [source('src/app.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  return new Map([
    [CONSOLE_INDEX, readFileSync(source('index.html'))],
    ['style.css', readFileSync(source('style.css'))],
    // Named by the page: a browser otherwise asks for /favicon.ico, a key that does not exist (403).
    ['favicon.svg', readFileSync(source('favicon.svg'))],
    ['app.js', Buffer.from(bundle.outputFiles[0]!.contents)],
  ]);
}

/** One object of the console bucket: its key, its name below the prefix, its metadata and its (text) body. */
export type ConsoleObject = { key: string; name: string; contentType: string; cacheControl: string; body: string };

/**
 * The console bucket's objects, for a page configured with `config`: what
 * the deployment uploads (config holds deploy-time values there) and what
 * the local site serves, under the same keys.
 */
export function consoleObjects(config: ConsoleConfig): ConsoleObject[] {
  const files = [...buildConsole()].map(([name, body]) => ({ name, body: body.toString('utf8') }));
  files.push({ name: 'config.json', body: JSON.stringify(config) });
  return files.map((file) => ({
    ...file,
    key: `${CONSOLE_KEY_PREFIX}${file.name}`,
    contentType: contentTypeOf(file.name),
    cacheControl: CONSOLE_CACHE_CONTROL,
  }));
}
