import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { call, startTestRuntime } from '../support/runtime.js';

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

const logo = (name: string, headers: Record<string, string> = {}) => call(runtime, `/v1/assets/sports-logo/${name}`, { headers });

describe('GET /v1/assets/sports-logo/{name}', () => {
  it('serves SVG publicly with its content type, long caching and an ETag', async () => {
    const reply = await logo('nfl.svg', { 'Accept-Encoding': 'identity' });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('image/svg+xml');
    expect(reply.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
    expect(reply.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    // A client that takes gzip gets the weak form of the same tag (docs/decisions/compression.md).
    expect((await logo('nfl.svg', { 'Accept-Encoding': 'gzip' })).headers.get('etag')).toBe(`W/${reply.headers.get('etag')}`);
    expect(reply.headers.get('x-content-type-options')).toBe('nosniff');
    expect(reply.text).toContain('<svg');
  });

  it('serves PNG bytes intact', async () => {
    const response = await fetch(`${runtime.url}/v1/assets/sports-logo/team-badge.png`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const etag = (await logo('nba.svg')).headers.get('etag')!;
    const reply = await logo('nba.svg', { 'If-None-Match': etag });
    expect(reply.status).toBe(304);
    expect(reply.text).toBe('');
  });

  it('404s an unknown logo and 400s names outside the pattern (no path traversal)', async () => {
    expect((await logo('mlb.svg')).status).toBe(404);
    for (const name of ['NFL.svg', 'nfl.gif', 'nfl', '.svg', 'a%00.svg', '%2E%2E.svg']) {
      const reply = await logo(name);
      expect(reply.status, name).toBe(400);
      expect(reply.body.error.code).toBe('invalid_request');
    }
    // An HTTP API decodes %2F before routing: these paths have more segments, so no logo route matches them.
    for (const name of ['..%2F..%2Fpackage.json', '%2E%2E%2Fseed.ts']) {
      const reply = await logo(name);
      expect(reply.status, name).toBe(404);
      expect(reply.body.error.code).toBe('not_found');
    }
  });
});
