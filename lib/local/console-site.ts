import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

/**
 * The administration console's static files, built once when the runtime
 * starts (esbuild, the same tool as the Lambda bundles) and served under
 * /console/ on the API's own origin, so the page calls the admin API with
 * no CORS. In AWS the same files come from a private bucket through
 * CloudFront, with the same headers (docs/decisions/console.md).
 */
export const CONSOLE_ROOT = '/console/';

/** No inline script or style, no framing, nothing but this origin: what the page needs and no more. */
export const CONSOLE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

const source = (name: string) => fileURLToPath(new URL(`../../console/${name}`, import.meta.url));

/** The built files by name. */
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

/** Serves a request below /console/; false for any other path. */
export function consoleSite(files = buildConsole()) {
  return (req: IncomingMessage, res: ServerResponse, path: string): boolean => {
    if (path === CONSOLE_ROOT.slice(0, -1)) {
      res.writeHead(308, { Location: CONSOLE_ROOT, ...CONSOLE_HEADERS }).end();
      return true;
    }
    if (!path.startsWith(CONSOLE_ROOT)) return false;
    const file = files.get(path.slice(CONSOLE_ROOT.length) || 'index.html');
    if (!file || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(file ? 405 : 404, { 'Content-Type': 'text/plain; charset=utf-8', ...CONSOLE_HEADERS }).end(file ? 'Method Not Allowed' : 'Not Found');
      return true;
    }
    res.writeHead(200, { 'Content-Type': file.type, 'Content-Length': file.body.length, ...CONSOLE_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : file.body);
    return true;
  };
}
