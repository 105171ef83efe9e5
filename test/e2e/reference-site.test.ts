import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS } from '#contract/errors';
import { REFERENCE_ROOT, REFERENCE_SECURITY_HEADERS, referenceObjects } from '#lib/reference-build';
import type { LocalRuntime } from '#local/runtime';
import { startTestRuntime } from '../support/runtime.js';

/**
 * The API reference over real HTTP from the local runtime, where the stack
 * serves it (docs/decisions/api-reference.md): the page, its scripts and the
 * document it fetches from its own origin, with the /docs behavior's headers.
 */
let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(async () => {
  await runtime?.stop();
});

const get = (path: string) => fetch(`${runtime.url}${path}`, { redirect: 'manual' });

describe('local API reference at /docs/', () => {
  it("serves the page with the reference's CSP (inline styles, no inline or eval'd script), and every file it loads from its own origin", async () => {
    const page = await get(REFERENCE_ROOT);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html');
    for (const [name, value] of Object.entries(REFERENCE_SECURITY_HEADERS)) expect(page.headers.get(name), name).toBe(value);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self' 'unsafe-inline';");
    expect(csp).not.toContain('unsafe-eval');
    const html = await page.text();
    // No inline script: every <script> has a src.
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);

    const scripts = [...html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['scalar.js', 'reference.js']);
    for (const src of scripts) {
      const script = await get(`${REFERENCE_ROOT}${src}`);
      expect(script.status, src).toBe(200);
      expect(script.headers.get('content-type'), src).toBe('text/javascript');
      expect(script.headers.get('content-security-policy'), src).toBe(csp);
      await script.arrayBuffer();
    }
    const init = await (await get(`${REFERENCE_ROOT}reference.js`)).text();
    expect(init).toContain('"url":"openapi.json"');
  });

  it('serves the OpenAPI document from the same origin, naming the runtime as its server, with the error codes and rate-limit headers in its intro', async () => {
    const response = await get(`${REFERENCE_ROOT}openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const document = (await response.json()) as {
      servers: { url: string }[];
      info: { description: string };
      paths: Record<string, unknown>;
      webhooks: Record<string, unknown>;
    };
    expect(document.servers).toEqual([{ url: runtime.url }]);
    expect(document.paths['/v1/{group_id}/{location_id}/bevq/menu']).toBeDefined();
    expect(Object.keys(document.webhooks)).toContain('bevq.menu.updated');
    for (const [code, { status }] of Object.entries(ERRORS)) expect(document.info.description).toContain(`| ${status} | \`${code}\` |`);
    for (const header of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy', 'Retry-After'])
      expect(document.info.description).toContain(`| \`${header}\` |`);
    // Byte for byte the object the stack uploads, but for the server URL.
    expect(JSON.stringify(document)).toBe(referenceObjects(runtime.url).find((o) => o.key === 'docs/openapi.json')!.body);
  });

  it("keeps S3's answers: /docs without the slash and a missing file are 403 AccessDenied", async () => {
    for (const path of ['/docs', `${REFERENCE_ROOT}nothing.js`]) {
      const response = await get(path);
      expect(response.status, path).toBe(403);
      expect(await response.text(), path).toContain('<Code>AccessDenied</Code>');
    }
  });
});
