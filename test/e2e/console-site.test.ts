import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_KEY_PREFIX, CONSOLE_ROOT, CONSOLE_SECURITY_HEADERS, consoleObjects, LOCAL_CONSOLE_CONFIG } from '#lib/console-build';
import type { LocalRuntime } from '#local/runtime';
import { startTestRuntime } from '../support/runtime.js';

/**
 * The local console site over real HTTP, as a stand-in for CloudFront + S3
 * (docs/decisions/console-hosting.md): the URLs the stack publishes and the
 * page references load with the objects' metadata and the response-headers
 * policy's headers; a missing key is S3's 403 AccessDenied (no ListBucket);
 * test/infra/console-hosting.test.ts holds the stack to the same list.
 */
let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(async () => {
  await runtime?.stop();
});

const get = (path: string, init: RequestInit = {}) => fetch(`${runtime.url}${path}`, { redirect: 'manual', ...init });
const expectSecurityHeaders = (response: Response, what: string) => {
  for (const [name, value] of Object.entries(CONSOLE_SECURITY_HEADERS)) expect(response.headers.get(name), `${what}: ${name}`).toBe(value);
};
const OBJECTS = consoleObjects(LOCAL_CONSOLE_CONFIG);
const objectAt = (path: string) => OBJECTS.find((o) => `/${o.key}` === path);

describe('local console site: the console distribution, stood in', () => {
  it('serves the page at the URL the stack publishes (ConsoleUrl, callback and logout), and every URL the page references', async () => {
    const page = await get(CONSOLE_ROOT);
    expect(page.status).toBe(200);
    const html = await page.text();
    const index = objectAt(`${CONSOLE_ROOT}index.html`)!;
    expect(html).toBe(index.body);
    expect(page.headers.get('content-type')).toBe(index.contentType);
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expectSecurityHeaders(page, CONSOLE_ROOT);
    // Back from the sign-in page with a code in the query: the same page.
    expect(await (await get(`${CONSOLE_ROOT}?code=abc&state=xyz`)).text()).toBe(html);

    const base = `http://console.test${CONSOLE_ROOT}`;
    const referenced = [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => new URL(m[1]!, base).pathname);
    const script = objectAt(new URL(html.match(/<script[^>]*\ssrc="([^"]+)"/)![1]!, base).pathname)!;
    referenced.push(...[...script.body.matchAll(/fetch\(\s*["']([^"']+)["']/g)].map((m) => new URL(m[1]!, base).pathname));
    expect(referenced).toEqual(expect.arrayContaining([`${CONSOLE_ROOT}app.js`, `${CONSOLE_ROOT}style.css`, `${CONSOLE_ROOT}config.json`]));
    for (const path of referenced) {
      const response = await get(path);
      const object = objectAt(path)!;
      expect(response.status, path).toBe(200);
      expect(await response.text(), path).toBe(object.body);
      expect(response.headers.get('content-type'), path).toBe(object.contentType);
      expect(response.headers.get('cache-control'), path).toBe(object.cacheControl);
      expectSecurityHeaders(response, path);
    }
    expect(((await (await get(`${CONSOLE_ROOT}config.json`)).json()) as { apiBase: string }).apiBase).toBe(LOCAL_CONSOLE_CONFIG.apiBase);
  });

  it('serves every uploaded object under its key, with its metadata, an ETag and 304 on revalidation', async () => {
    for (const object of OBJECTS) {
      expect(object.key.startsWith(CONSOLE_KEY_PREFIX)).toBe(true);
      const response = await get(`/${object.key}`);
      expect(response.status, object.key).toBe(200);
      expect(response.headers.get('content-type')).toBe(object.contentType);
      expect(response.headers.get('cache-control')).toBe(object.cacheControl);
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      await response.arrayBuffer();
      const again = await get(`/${object.key}`, { headers: { 'If-None-Match': etag } });
      expect(again.status, object.key).toBe(304);
      expectSecurityHeaders(again, `304 ${object.key}`);
      const head = await get(`/${object.key}`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(object.body)));
    }
  });

  it("answers a missing key as S3 answers CloudFront without ListBucket: 403 AccessDenied XML, with the policy's headers", async () => {
    for (const path of [`${CONSOLE_ROOT}nothing.js`, `${CONSOLE_ROOT}sub/`, `${CONSOLE_ROOT}index.htm`]) {
      const response = await get(path);
      expect(response.status, path).toBe(403);
      expect(response.headers.get('content-type'), path).toBe('application/xml');
      const body = await response.text();
      expect(body, path).toMatch(
        /^<\?xml version="1.0" encoding="UTF-8"\?>\n<Error><Code>AccessDenied<\/Code><Message>Access Denied<\/Message><RequestId>[^<]+<\/RequestId><HostId>[^<]+<\/HostId><\/Error>$/,
      );
      expectSecurityHeaders(response, path);
    }
  });

  it("sends /console to /console/ (the distribution's function: 302, with the policy's headers); / stays the API's", async () => {
    const response = await get(CONSOLE_ROOT.slice(0, -1));
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(CONSOLE_ROOT);
    expectSecurityHeaders(response, '/console');
    // The local site shares the API's origin, whose root is the API's (its 404 in the error shape), as in AWS.
    const root = await get('/');
    expect(root.status).toBe(404);
    expect(((await root.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('refuses a method other than GET and HEAD with 403, as the console behavior (GET, HEAD) does', async () => {
    const response = await get(CONSOLE_ROOT, { method: 'POST', body: '{}' });
    expect(response.status).toBe(403);
    expectSecurityHeaders(response, 'POST');
  });
});
