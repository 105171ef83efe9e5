import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAMILIES, type Family } from '#contract/routes';
import type { ProxyHandler } from '#local/families';
import { createGateway, MAX_BODY_BYTES, MAX_EVENT_BYTES } from '#local/gateway';
import type { LocalRuntime } from '#local/runtime';
import { admin as runAdmin, runtimeFileFor } from '../fixtures/admin-cli.js';
import { call, manualClock, scanTable, startTestRuntime, tokenFor, withinOneClockMinute } from '../support/runtime.js';

/**
 * The rules of an API Gateway HTTP API (Lambda proxy, payload 1.0) that a
 * client can see, one test each, over real HTTP against the local gateway.
 * Sources: docs/decisions/api-gateway.md.
 */

const ADMIN_KEY = 'gateway-rules-admin-key-0123';
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** What Firefox sends for an <img>: the PNG type is not first, and not even named. */
const BROWSER_IMG_ACCEPT = 'image/avif,image/webp,image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5';
const BROWSER_PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let runtime: LocalRuntime;
let token: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ adminKey: ADMIN_KEY });
  ({ token } = await tokenFor(runtime));
});
afterAll(() => runtime?.stop());

const raw = (path: string, init: RequestInit = {}) => fetch(`${runtime.url}${path}`, init);
const json = (response: Response): Promise<any> => response.json();
const adminAuth = { Authorization: `Bearer ${ADMIN_KEY}` };
/** The header every answer carries, the functions' and the gateway's own alike. */
const sniffing = (response: { headers: Headers }) => response.headers.get('x-content-type-options');

describe('binary bodies', () => {
  it('decodes a base64 body for every Accept: the logo arrives as PNG bytes', async () => {
    for (const accept of [undefined, '*/*', 'image/*', BROWSER_IMG_ACCEPT, BROWSER_PAGE_ACCEPT, 'application/json']) {
      const response = await raw('/v1/assets/sports-logo/team-badge.png', { headers: accept ? { Accept: accept } : {} });
      expect(response.status, String(accept)).toBe(200);
      expect(response.headers.get('content-type')).toBe('image/png');
      expect(Buffer.from(await response.arrayBuffer()).subarray(0, 8), String(accept)).toEqual(PNG_SIGNATURE);
    }
  });
});

describe('response headers', () => {
  it('forwards WWW-Authenticate as the function set it: the Bearer and Basic challenges reach the client', async () => {
    const bearer = await call(runtime, '/v1/demo-group/locations');
    expect(bearer.status).toBe(401);
    expect(bearer.headers.get('www-authenticate')).toBe('Bearer realm="customer-api"');
    const basic = await raw('/oauth/token', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from('app_unknown:wrong').toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toMatch(/^Basic realm="customer-api"/);
    for (const reply of [bearer.headers, basic.headers]) expect(reply.get('x-amzn-remapped-www-authenticate')).toBeNull();
  });
});

describe('X-Content-Type-Options: nosniff', () => {
  it('is on every answer of the functions: /v1, token, admin, assets and discovery (the OpenAPI document), success and refusal alike', async () => {
    const limited = await tokenFor(runtime, { rateLimitPerMinute: 1 });
    await withinOneClockMinute();
    const tokenForm = (secret: string) =>
      raw('/oauth/token', {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', client_id: limited.clientId, client_secret: secret }).toString(),
      });
    await call(runtime, '/v1/demo-group/locations', { token: limited.token });
    const answers: [string, number, { headers: Headers; status: number }][] = [
      ['/v1 read', 200, await call(runtime, '/v1/demo-group/locations', { token, headers: { 'Accept-Encoding': 'gzip' } })],
      ['/v1 without a token', 401, await call(runtime, '/v1/demo-group/locations')],
      ['/v1 over its rate limit', 429, await call(runtime, '/v1/demo-group/locations', { token: limited.token })],
      ['an unknown route', 404, await call(runtime, '/v2/anything', { token })],
      ['a wrong method', 405, await call(runtime, '/v1/demo-group/locations', { method: 'DELETE', token })],
      ['the OpenAPI document', 200, await call(runtime, '/v1/openapi.json')],
      ['a logo', 200, await raw('/v1/assets/sports-logo/nfl.svg')],
      ['an unknown logo', 404, await raw('/v1/assets/sports-logo/none.svg')],
      ['a token', 200, await tokenForm(limited.clientSecret)],
      ['a wrong secret', 401, await tokenForm('wrong')],
      ['the token endpoint, read', 405, await raw('/oauth/token')],
      ['an admin list', 200, await raw('/admin/v1/apps?limit=1', { headers: adminAuth })],
      ['an unknown admin path', 404, await raw('/admin/v1/nothing-here', { headers: adminAuth })],
      [
        'an admin body that breaks a rule',
        400,
        await raw('/admin/v1/apps', { method: 'POST', headers: { ...adminAuth, 'Content-Type': 'application/json' }, body: '{}' }),
      ],
    ];
    for (const [what, status, reply] of answers) {
      expect(reply.status, what).toBe(status);
      expect(sniffing(reply), what).toBe('nosniff');
    }
  });
});

describe('paths', () => {
  it('routes and hands over the decoded path: an encoded id is the id', async () => {
    const reply = await call(runtime, '/v1/demo-group/nyc%2Dmidtown', { token });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual((await call(runtime, '/v1/demo-group/nyc-midtown', { token })).body.data);
  });

  it('splits a segment at a decoded %2F, so no route matches, and refuses a malformed escape itself', async () => {
    const split = await call(runtime, '/v1/demo-group/nyc%2Fmidtown/modules', { token });
    expect(split.status).toBe(404);
    expect(split.body.error.code).toBe('not_found');
    for (const path of ['/v1/demo-group/100%25/modules', '/v1/demo-group/%E0%A4%A/modules']) {
      const reply = await raw(path, { headers: { Authorization: `Bearer ${token}` } });
      expect(reply.status, path).toBe(400);
      expect(await reply.json()).toEqual({ message: 'Bad Request' });
      expect(sniffing(reply), path).toBe('nosniff');
    }
  });

  it('answers ids outside the id alphabet, decoded, with a 4xx and never a 5xx', async () => {
    for (const id of ['nyc%20midtown', '%C3%A9t%C3%A9', 'a'.repeat(65), '__proto__', 'constructor']) {
      const reply = await call(runtime, `/v1/demo-group/${id}/modules`, { token });
      expect(reply.status, id).toBeGreaterThanOrEqual(400);
      expect(reply.status, id).toBeLessThan(500);
    }
  });
});

describe('unknown paths and methods', () => {
  it("answers an unknown path with the service's 404 and a wrong method with its 405 and Allow", async () => {
    const unknown = await call(runtime, '/v2/anything', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
    const wrong = await call(runtime, '/v1/demo-group/locations', { method: 'DELETE', token });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET');
  });

  it('answers a wrong method on an admin resource with 405 and Allow, an unknown admin path with 404, once signed', async () => {
    const wrong = await raw('/admin/v1/apps', { method: 'DELETE', headers: adminAuth });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('GET, POST');
    expect((await json(wrong)).error.code).toBe('method_not_allowed');
    const unknown = await raw('/admin/v1/nothing-here', { headers: adminAuth });
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe('not_found');
  });

  it("refuses an unsigned admin request with API Gateway's own 403, whatever the path below /admin/", async () => {
    for (const [method, path] of [
      ['GET', '/admin/v1/apps'],
      ['DELETE', '/admin/v1/apps'],
      ['GET', '/admin/v1/nothing-here'],
    ] as const) {
      const reply = await raw(path, { method });
      expect(reply.status, `${method} ${path}`).toBe(403);
      expect(await reply.json()).toEqual({ message: 'Forbidden' });
      expect(sniffing(reply), `${method} ${path}`).toBe('nosniff');
    }
    // `/admin` itself is below no admin route: the $default route's 404.
    expect((await call(runtime, '/admin')).status).toBe(404);
  });
});

describe('payload limits', () => {
  const form = (bytes: number) => `grant_type=client_credentials&pad=${'x'.repeat(bytes)}`;
  const post = (body: string | Buffer, contentType = 'application/x-www-form-urlencoded') =>
    raw('/oauth/token', { method: 'POST', headers: { 'Content-Type': contentType }, body });

  it("refuses a body over 10 MB with the gateway's 413", async () => {
    const reply = await post(form(MAX_BODY_BYTES));
    expect(reply.status).toBe(413);
    expect(await reply.json()).toEqual({ message: 'Request Entity Too Large' });
    expect(sniffing(reply)).toBe('nosniff');
  });

  it("answers an event over Lambda's 6 MB invoke limit as API Gateway answers a failed invocation", async () => {
    // 6.5 MB of text, and 4.8 MB of binary that base64 makes 6.4 MB: neither reaches the function.
    for (const body of [form(6.5 * 1024 * 1024), Buffer.alloc(4.8 * 1024 * 1024, 1)]) {
      const reply = await post(body, typeof body === 'string' ? 'text/plain' : 'application/octet-stream');
      expect(reply.status).toBe(500);
      expect(await reply.json()).toEqual({ message: 'Internal Server Error' });
      expect(sniffing(reply)).toBe('nosniff');
    }
    expect(MAX_EVENT_BYTES).toBe(6 * 1024 * 1024);
  });

  it("lets a large body the function can receive reach it, and the function refuses it in the contract's terms", async () => {
    const reply = await post(form(4 * 1024 * 1024));
    expect(reply.status).toBe(400);
    expect((await json(reply)).error).toBe('invalid_request');
  });
});

describe('events pass through JSON, as Lambda hands them over', () => {
  it('serves a query or header named __proto__ or constructor like any other name', async () => {
    for (const query of ['__proto__=x', 'constructor=x', '__proto__[a]=1&constructor=2&hasOwnProperty=3']) {
      const headers = new Headers([
        ['Authorization', `Bearer ${token}`],
        ['constructor', 'x'],
        ['__proto__', 'y'],
      ]);
      const reply = await raw(`/v1/demo-group/locations?${query}`, { headers });
      expect(reply.status, query).toBe(200);
    }
  });

  it('issues a token for a form carrying unknown parameters named constructor or hasOwnProperty (RFC 6749 3.2)', async () => {
    const { clientId, clientSecret } = await tokenFor(runtime);
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
    body.append('constructor', '1');
    body.append('hasOwnProperty', '2');
    body.append('hasOwnProperty', '3');
    const reply = await raw('/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    expect(reply.status).toBe(200);
    // A known parameter given twice is still refused.
    body.append('grant_type', 'client_credentials');
    const twice = await raw('/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body });
    expect(twice.status).toBe(400);
  });
});

describe('the event a function receives', () => {
  let server: Server;
  let url: string;
  let last: APIGatewayProxyEvent;
  beforeAll(async () => {
    const echo: ProxyHandler = async (event) => {
      last = event;
      return { statusCode: 200, body: '' };
    };
    const handlers = Object.fromEntries(FAMILIES.map((f) => [f, echo])) as Record<Family, ProxyHandler>;
    server = createGateway(handlers, { handler: echo, key: ADMIN_KEY });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('is payload 1.0: the matched template, decoded parameters, text or base64 bodies, own keys only, forwarding headers of its own', async () => {
    await fetch(`${url}/v1/demo-group/caf%C3%A9/modules?__proto__=a&constructor=b&x=1&x=2`, {
      headers: new Headers([
        ['X-Forwarded-Proto', 'https'],
        ['constructor', 'c'],
      ]),
    });
    expect(last).toMatchObject({
      version: '1.0',
      resource: '/v1/{group_id}/{location_id}/modules',
      path: '/v1/demo-group/café/modules',
      pathParameters: { group_id: 'demo-group', location_id: 'café' },
      multiValueQueryStringParameters: { x: ['1', '2'] },
      requestContext: { stage: '$default', resourcePath: '/v1/{group_id}/{location_id}/modules' },
    });
    // Plain JSON objects, as Lambda parses them: prototype-named keys are own data, nothing inherited shows through.
    const query = last.queryStringParameters!;
    expect(Object.getOwnPropertyDescriptor(query, '__proto__')?.value).toBe('a');
    expect([query.constructor, query.x, query.hasOwnProperty]).toEqual(['b', '2', Object.prototype.hasOwnProperty]);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
    expect(last.headers.constructor).toBe('c');
    // The client's forwarding headers never arrive as sent; API Gateway sets its own.
    expect(Object.entries(last.headers).filter(([name]) => /^x-forwarded-proto$/i.test(name))).toEqual([['X-Forwarded-Proto', 'http']]);

    await fetch(`${url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"a":1}' });
    expect(last).toMatchObject({ body: '{"a":1}', isBase64Encoded: false });
    await fetch(`${url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: Buffer.from([0, 255]),
    });
    expect(last).toMatchObject({ body: Buffer.from([0, 255]).toString('base64'), isBase64Encoded: true });

    await fetch(`${url}/v1/nowhere`, { method: 'PUT' });
    expect(last).toMatchObject({ resource: '$default', path: '/v1/nowhere', pathParameters: null, httpMethod: 'PUT' });
  });
});

describe('stage throttling', () => {
  let tight: LocalRuntime;
  beforeAll(async () => {
    tight = await startTestRuntime({ adminKey: ADMIN_KEY, throttle: { rateLimit: 1, burstLimit: 3 } });
  });
  afterAll(() => tight?.stop());

  it("refuses a route's requests past its bucket with the gateway's 429; other routes keep their own; tokens come back at the rate", async () => {
    // The gateway alone, its buckets on a clock of the test's: a token comes back only when the clock says a second passed.
    const clock = manualClock();
    const served: ProxyHandler = async () => ({ statusCode: 200, body: '' });
    const handlers = Object.fromEntries(FAMILIES.map((f) => [f, served])) as Record<Family, ProxyHandler>;
    const server = createGateway(handlers, { handler: served, key: ADMIN_KEY }, { rateLimit: 1, burstLimit: 3 }, undefined, {
      now: clock.now,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const get = (path: string) => fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
    try {
      const logo = '/v1/assets/sports-logo/nfl.svg';
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await get(logo)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await get(logo);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ message: 'Too Many Requests' });
      expect(sniffing(refused)).toBe('nosniff');
      expect((await get('/v1/openapi.json')).status).toBe(200);
      // Half a second brings half a token back: still refused.
      clock.advance(500);
      expect((await get(logo)).status).toBe(429);
      // A second in all: one token, one request.
      clock.advance(500);
      expect((await get(logo)).status).toBe(200);
      expect((await get(logo)).status).toBe(429);
      // However long the wait, the bucket holds no more than its burst.
      clock.advance(60_000);
      const after = [];
      for (let i = 0; i < 4; i++) after.push((await get(logo)).status);
      expect(after).toEqual([200, 200, 200, 429]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("refuses an application limit above what the stage's throttle serves (60 × its rate), writing nothing", async () => {
    const create = (rateLimitPerMinute: number) =>
      fetch(`${tight.url}/admin/v1/apps`, {
        method: 'POST',
        headers: { ...adminAuth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ groupId: 'demo-group', name: 'Throttled', scopes: ['bevq:read'], rateLimitPerMinute }),
      });
    const before = (await scanTable(tight)).length;
    const over = await create(61);
    expect(over.status).toBe(400);
    expect((await json(over)).error.message).toMatch(/rateLimitPerMinute: at most 60/);
    expect((await scanTable(tight)).length).toBe(before);
    expect((await create(60)).status).toBe(201);
  });
});

describe('the per-application ceiling of the data design', () => {
  it('is refused by the admin CLI with exit 2: one counter item per minute takes at most 60,000 writes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-rules-'));
    try {
      const file = runtimeFileFor(runtime, dir, 'runtime.json');
      const run = await runAdmin(file, ['apps', 'create', '--group', 'demo-group', '--scopes', 'bevq:read', '--rate-limit', '60001']);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/rateLimitPerMinute/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("an answer over Lambda's 6 MB response limit", () => {
  it('is measured as the JSON Lambda hands over, escapes and all: past it API Gateway answers 500, below it the body arrives whole', async () => {
    // 2 MB of quotes are 4 MB as JSON (`\"`), 1.1 MB of control characters 6.6 MB (`\u0001`); 5.9 MB of letters stay 5.9 MB.
    const bodies: Record<string, string> = {
      quotes: '"'.repeat(2 * 1024 * 1024),
      controls: '\u0001'.repeat(1.1 * 1024 * 1024),
      letters: 'a'.repeat(5.9 * 1024 * 1024),
    };
    const answer: ProxyHandler = async (event) => ({ statusCode: 200, body: bodies[event.queryStringParameters?.body ?? ''] ?? '' });
    const handlers = Object.fromEntries(FAMILIES.map((f) => [f, answer])) as Record<Family, ProxyHandler>;
    const server = createGateway(handlers, { handler: answer, key: ADMIN_KEY });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const get = (body: string) =>
      fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/assets/sports-logo/nfl.svg?body=${body}`);
    try {
      const quotes = await get('quotes');
      expect(quotes.status).toBe(200);
      expect((await quotes.text()).length).toBe(bodies.quotes!.length);
      const controls = await get('controls');
      expect(controls.status).toBe(500);
      expect(await controls.json()).toEqual({ message: 'Internal Server Error' });
      expect(sniffing(controls)).toBe('nosniff');
      const letters = await get('letters');
      expect(letters.status).toBe(200);
      expect((await letters.text()).length).toBe(bodies.letters!.length);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
