import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import type { ConsoleConfig } from '#contract/console-config';

/**
 * The administration console's static files (console/), built by esbuild,
 * the Lambda bundles' tool: served by the local runtime under /console/ and
 * deployed to the console bucket by the stack. Both serve them with the
 * same headers (docs/decisions/console.md).
 */
export const CONSOLE_ROOT = '/console/';

/** The Content-Security-Policy, with the origins the page may call besides its own (the Cognito domain in AWS). */
export const consoleCsp = (connect: readonly string[] = []): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self'${connect.map((o) => ` ${o}`).join('')}`,
    "img-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');

/** HSTS's max-age: two years, as browsers' preload lists ask. */
export const HSTS_SECONDS = 63_072_000;

export const CONSOLE_HEADERS = {
  'Content-Security-Policy': consoleCsp(),
  'Strict-Transport-Security': `max-age=${HSTS_SECONDS}; includeSubDomains`,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};


export const LOCAL_CONSOLE_CONFIG: ConsoleConfig = { apiBase: '/admin/v1', signIn: 'admin-key' };

const source = (name: string) => fileURLToPath(new URL(`../console/${name}`, import.meta.url));

/** The built files by name (config.json apart: it differs by where the page runs). */
export function buildConsole(): Map<string, { type: string; body: Buffer }> {
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
    ['index.html', { type: 'text/html; charset=utf-8', body: readFileSync(source('index.html')) }],
    ['style.css', { type: 'text/css; charset=utf-8', body: readFileSync(source('style.css')) }],
    ['app.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(bundle.outputFiles[0]!.contents) }],
  ]);
}
