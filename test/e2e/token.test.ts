import { request } from 'node:http';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '#domain/crypto';
import { TOKEN_ADMITTED_ATTEMPTS_PER_MINUTE, TOKEN_ATTEMPTS_PER_MINUTE, TOKENS_ISSUED_PER_MINUTE } from '#platform/config';
import { attemptSubject } from '#lambdas/token/issue-token';
import type { LocalRuntime } from '#local/runtime';
import { expectContract } from '../support/openapi.js';
import { call, exchange, expectUnchanged, manualClock, newApp, scanTable, startTestRuntime, type Reply } from '../support/runtime.js';

let runtime: LocalRuntime;
const clock = manualClock();

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
});
afterAll(() => runtime?.stop());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

function postToken(body: string, headers: Record<string, string> = FORM) {
  return call(runtime, '/oauth/token', { method: 'POST', body, headers });
}

/**
 * A token request over real HTTP from another source address: the whole of 127.0.0.0/8 is this machine's
 * loopback, so a socket bound to 127.0.0.2 reaches the gateway, which reports 127.0.0.2 as the caller's address.
 */
function postTokenFrom(address: string, body: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${runtime.url}/oauth/token`,
      { method: 'POST', localAddress: address, headers: { ...FORM, 'Content-Length': String(Buffer.byteLength(body)) } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
          const reply = { status: res.statusCode ?? 0, headers, body: text ? JSON.parse(text) : null, text };
          expectContract('POST', '/oauth/token', reply);
          resolve(reply);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tableItems = () => scanTable(runtime);
const tokenItems = async () => (await tableItems()).filter((i) => String(i.PK).startsWith('TOKEN#'));

describe('POST /oauth/token', () => {
  it('issues an opaque 24-hour bearer token to a real OAuth client (secret in the body)', async () => {
    const app = await newApp(runtime, { scopes: ['locations:read', 'bevq:read'] });
    const tokens = await exchange(runtime, app.clientId, app.clientSecret, 'post');
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(86400);
    expect(tokens.scope).toBe('locations:read bevq:read');
    expect(tokens.refresh_token).toBeUndefined();
    // It names its application and expiry, then 32 random bytes (base64url: 256 bits), then a 128-bit tag.
    const [clientId, expiresAt, secret, tag, ...rest] = tokens.access_token.split('.');
    expect([clientId, rest]).toEqual([app.clientId, []]);
    expect(Number(expiresAt) * 1000 - runtime.deps.clock.now()).toBeGreaterThan(86_399_000);
    expect(Number(expiresAt) * 1000 - runtime.deps.clock.now()).toBeLessThanOrEqual(86_400_000);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tag).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('accepts HTTP Basic client authentication and answers no-store, no-cache', async () => {
    const app = await newApp(runtime);
    const basic = Buffer.from(`${app.clientId}:${encodeURIComponent(app.clientSecret)}`).toString('base64');
    const reply = await postToken(form({ grant_type: 'client_credentials' }), { ...FORM, Authorization: `Basic ${basic}` });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('cache-control')).toBe('no-store');
    expect(reply.headers.get('pragma')).toBe('no-cache');
    expect(Object.keys(reply.body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    const viaLibrary = await exchange(runtime, app.clientId, app.clientSecret, 'basic');
    expect(viaLibrary.access_token).not.toBe(reply.body.access_token);
  });

  it('stores tokens and client secrets only as SHA-256 hashes', async () => {
    const app = await newApp(runtime);
    const { access_token } = await exchange(runtime, app.clientId, app.clientSecret);
    const items = await tableItems();
    const everything = JSON.stringify(items);
    expect(everything).not.toContain(access_token);
    expect(everything).not.toContain(app.clientSecret);
    expect(items.some((i) => i.PK === `TOKEN#${sha256Hex(access_token)}`)).toBe(true);
    expect(items.find((i) => i.PK === `APP#${app.clientId}`)?.secretHash).toBe(sha256Hex(app.clientSecret));
  });

  it('refuses bad requests with RFC 6749 codes and issues nothing', async () => {
    const app = await newApp(runtime);
    const good = { grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret };
    const before = (await tokenItems()).length;
    const basic = `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`;
    const cases: [string, Promise<Awaited<ReturnType<typeof postToken>>>, number, string][] = [
      ['JSON body', postToken(JSON.stringify(good), { 'Content-Type': 'application/json' }), 400, 'invalid_request'],
      ['no content type', postToken(form(good), {}), 400, 'invalid_request'],
      ['missing grant_type', postToken(form({ client_id: app.clientId, client_secret: app.clientSecret })), 400, 'invalid_request'],
      ['repeated parameter', postToken(`${form(good)}&grant_type=client_credentials`), 400, 'invalid_request'],
      ['password grant', postToken(form({ ...good, grant_type: 'password' })), 400, 'unsupported_grant_type'],
      ['authorization_code grant', postToken(form({ ...good, grant_type: 'authorization_code' })), 400, 'unsupported_grant_type'],
      ['two client authentication methods', postToken(form(good), { ...FORM, Authorization: basic }), 400, 'invalid_request'],
      [
        'malformed Basic header',
        postToken(form({ grant_type: 'client_credentials' }), { ...FORM, Authorization: 'Basic ###' }),
        400,
        'invalid_request',
      ],
      ['oversized body', postToken(form({ ...good, padding: 'x'.repeat(20_000) })), 400, 'invalid_request'],
      ['no client authentication', postToken(form({ grant_type: 'client_credentials' })), 401, 'invalid_client'],
    ];
    for (const [name, pending, status, code] of cases) {
      const reply = await pending;
      expect({ name, status: reply.status, code: reply.body?.error }).toEqual({ name, status, code });
      expect(reply.headers.get('cache-control'), name).toBe('no-store');
    }
    expect((await tokenItems()).length).toBe(before);
  });

  it('answers invalid_client identically for an unknown client, a wrong secret and a revoked application', async () => {
    const app = await newApp(runtime);
    const revoked = await newApp(runtime);
    await runtime.deps.store.apps.revoke(revoked.clientId, new Date(clock.now()).toISOString());
    const other = await newApp(runtime);
    const replies = await Promise.all([
      postToken(form({ grant_type: 'client_credentials', client_id: 'app_doesnotexist', client_secret: app.clientSecret })),
      postToken(form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: `${app.clientSecret}x` })),
      postToken(form({ grant_type: 'client_credentials', client_id: revoked.clientId, client_secret: revoked.clientSecret })),
      postToken(form({ grant_type: 'client_credentials', client_id: other.clientId, client_secret: 'A'.repeat(43) })),
    ]);
    for (const reply of replies) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual(replies[0].body);
      expect(reply.body.error).toBe('invalid_client');
      // No WWW-Authenticate challenge when the client authenticated in the body.
      expect(reply.headers.get('www-authenticate')).toBeNull();
    }
    expect(replies[0].text).not.toMatch(/secret|unknown|revoked|exist/i);
  });

  it('challenges with WWW-Authenticate: Basic when HTTP Basic authentication fails', async () => {
    const app = await newApp(runtime);
    const basic = Buffer.from(`${app.clientId}:wrong`).toString('base64');
    const reply = await postToken(form({ grant_type: 'client_credentials' }), { ...FORM, Authorization: `Basic ${basic}` });
    expect(reply.status).toBe(401);
    expect(reply.body.error).toBe('invalid_client');
    expect(reply.headers.get('www-authenticate')).toMatch(/^Basic realm="customer-api"/);
  });

  it('limits attempts per client id and address: from an address never admitted even the right secret waits for the next window', async () => {
    clock.set(Date.UTC(2026, 10, 22, 13, 5, 45));
    const app = await newApp(runtime);
    const attempt = () => postToken(form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'wrong' }));
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_MINUTE; i++) expect((await attempt()).status).toBe(401);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    expect(limited.body.error).toBe('temporarily_unavailable');
    expect(limited.headers.get('retry-after')).toBe('15');
    // Guessing stops here: the right secret from this address waits too.
    const right = await postToken(form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret }));
    expect(right.status).toBe(429);
    clock.advance(15_000);
    expect(
      (await postToken(form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret }))).status,
    ).toBe(200);
  });

  it("cannot be used to lock an application out: a stranger's failures shut out only the stranger's address", async () => {
    clock.set(Date.UTC(2026, 10, 22, 13, 7, 50));
    const app = await newApp(runtime);
    const wrong = form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'guess' });
    const right = form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_MINUTE; i++) expect((await postTokenFrom('127.0.0.2', wrong)).status).toBe(401);
    const attacker = await postTokenFrom('127.0.0.2', wrong);
    expect(attacker.status).toBe(429);
    expect(attacker.body.error).toBe('temporarily_unavailable');
    expect(attacker.headers.get('retry-after')).toBe('10');
    expect(attacker.headers.get('cache-control')).toBe('no-store');
    // The owner, calling from its own address in the same minute, still gets its token.
    const owner = await postTokenFrom('127.0.0.1', right);
    expect(owner.status).toBe(200);
    expect(owner.body.token_type).toBe('Bearer');
    // The attacker's address stays shut for the rest of the minute, whatever it sends.
    expect((await postTokenFrom('127.0.0.2', right)).status).toBe(429);

    // What the throttle wrote: counters with a TTL, keyed by a hash of client id and address (never the address).
    const counters = (await tableItems()).filter((i) => String(i.PK).startsWith('RATE#TOKEN_ADDR#'));
    expect(counters.length).toBeGreaterThan(0);
    for (const item of counters) {
      expect(item.PK).toMatch(/^RATE#TOKEN_ADDR#[0-9a-f]{64}$/);
      expect(item.ttl).toEqual(expect.any(Number));
      expect(JSON.stringify(item)).not.toMatch(/127\.0\.0\.|app_/);
    }
  });

  it('writes no counter for a client id that names no application by its form', async () => {
    const before = (await tableItems()).filter((i) => String(i.PK).startsWith('RATE#')).length;
    for (const clientId of ['not an id', 'x'.repeat(300), 'app_\u0000']) {
      const reply = await postTokenFrom(
        '127.0.0.3',
        form({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'guess' }),
      );
      expect(reply.status).toBe(401);
      expect(reply.body.error).toBe('invalid_client');
    }
    expect((await tableItems()).filter((i) => String(i.PK).startsWith('RATE#')).length).toBe(before);
  });

  it('still limits the tokens issued to one client id per minute, from every address together', async () => {
    clock.set(Date.UTC(2026, 10, 22, 13, 9, 30));
    const app = await newApp(runtime);
    const right = form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
    const addresses = ['127.0.0.4', '127.0.0.5'];
    for (let i = 0; i < TOKENS_ISSUED_PER_MINUTE; i++) expect((await postTokenFrom(addresses[i % 2]!, right)).status).toBe(200);
    const over = await postTokenFrom('127.0.0.6', right);
    expect(over.status).toBe(429);
    expect(over.body.error).toBe('temporarily_unavailable');
    expect(over.headers.get('retry-after')).toBe('30');
    clock.advance(30_000);
    expect((await postTokenFrom('127.0.0.6', right)).status).toBe(200);
  });

  it("admits the owner's right secret from its own address where strangers' failures pile up; guessing there stays bounded", async () => {
    clock.set(Date.UTC(2026, 10, 22, 13, 11, 40));
    const app = await newApp(runtime);
    const wrong = form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'guess' });
    const right = form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
    // The owner's backend got a token from this address (a NAT it shares with the attacker): admitted there.
    const shared = '127.0.0.7';
    expect((await postTokenFrom(shared, right)).status).toBe(200);
    for (let i = 1; i < TOKEN_ATTEMPTS_PER_MINUTE; i++) expect((await postTokenFrom(shared, wrong)).status).toBe(401);
    const attacker = await postTokenFrom(shared, wrong);
    expect(attacker.status).toBe(429);
    expect(attacker.body.error).toBe('temporarily_unavailable');
    expect(attacker.headers.get('retry-after')).toBe('20');
    // The pair's budget is spent, yet the owner's right secret from that very address gets its token.
    expect((await postTokenFrom(shared, right)).status).toBe(200);

    // Another address has a budget of its own, and is not admitted: spent, even the right secret waits there.
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_MINUTE; i++) expect((await postTokenFrom('127.0.0.8', wrong)).status).toBe(401);
    expect((await postTokenFrom('127.0.0.8', right)).status).toBe(429);

    // Guesses from the admitted address are bounded too: the attacker's attempts up to the admitted cap (counted
    // here in one write, as the counter's ADD would), and past it every attempt waits for the window.
    await DynamoDBDocumentClient.from(runtime.dynamo).send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: { PK: `RATE#TOKEN_ADDR#${attemptSubject(app.clientId, shared)}`, SK: '2026-11-22T13:11' },
        UpdateExpression: 'ADD #count :more',
        ExpressionAttributeNames: { '#count': 'count' },
        ExpressionAttributeValues: { ':more': TOKEN_ADMITTED_ATTEMPTS_PER_MINUTE - (TOKEN_ATTEMPTS_PER_MINUTE + 2) - 1 },
      }),
    );
    expect((await postTokenFrom(shared, right)).status).toBe(200);
    expect((await postTokenFrom(shared, right)).status).toBe(429);
    clock.advance(20_000);
    expect((await postTokenFrom(shared, right)).status).toBe(200);
  });

  it('admits an address for a week after its last token there; then its right secret waits like any other', async () => {
    clock.set(Date.UTC(2026, 10, 22, 13, 12, 10));
    const app = await newApp(runtime);
    const wrong = form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'guess' });
    const right = form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
    expect((await postTokenFrom('127.0.0.9', right)).status).toBe(200);
    // What admission wrote: an item keyed by a hash of client id and address, with a TTL a week on.
    const admitted = (await tableItems()).find((i) => i.PK === `RATE#TOKEN_ADMITTED#${attemptSubject(app.clientId, '127.0.0.9')}`);
    expect(admitted?.ttl).toBe(clock.now() / 1000 + 7 * 86_400);
    expect(JSON.stringify(admitted)).not.toMatch(/127\.0\.0\.|app_/);

    clock.advance(7 * 86_400_000);
    for (let i = 0; i < TOKEN_ATTEMPTS_PER_MINUTE; i++) expect((await postTokenFrom('127.0.0.9', wrong)).status).toBe(401);
    expect((await postTokenFrom('127.0.0.9', right)).status).toBe(429);
  });

  it('counts a made-up client id within the id rule exactly as a known one: the same answer at every step, one counter with a TTL', async () => {
    clock.set(Date.UTC(2026, 10, 29, 13, 14, 5));
    const known = await newApp(runtime);
    const madeUp = `app_${'f'.repeat(20)}`;
    const before = new Set((await tableItems()).map((i) => `${i.PK} ${i.SK}`));
    const attempt = (clientId: string) =>
      postTokenFrom('127.0.0.10', form({ grant_type: 'client_credentials', client_id: clientId, client_secret: 'guess' }));
    for (let i = 0; i <= TOKEN_ATTEMPTS_PER_MINUTE; i++) {
      const [k, m] = [await attempt(known.clientId), await attempt(madeUp)];
      expect(k.status).toBe(i < TOKEN_ATTEMPTS_PER_MINUTE ? 401 : 429);
      expect({ status: m.status, body: m.body, retryAfter: m.headers.get('retry-after') }).toEqual({
        status: k.status,
        body: k.body,
        retryAfter: k.headers.get('retry-after'),
      });
    }
    // Each wrote one counter item for the minute, with a TTL an hour past it; nothing else.
    const written = (await tableItems()).filter((i) => !before.has(`${i.PK} ${i.SK}`) && String(i.PK).startsWith('RATE#'));
    expect(written.map((i) => i.PK).sort()).toEqual(
      [known.clientId, madeUp].map((id) => `RATE#TOKEN_ADDR#${attemptSubject(id, '127.0.0.10')}`).sort(),
    );
    for (const item of written) {
      expect(item.count).toBe(TOKEN_ATTEMPTS_PER_MINUTE + 1);
      expect(item.ttl).toBe(Date.UTC(2026, 10, 29, 13, 15) / 1000 + 3600);
    }
  });

  it('issues the requested scopes the application holds (RFC 6749 3.3), names them, and the token can do only those', async () => {
    const app = await newApp(runtime, { scopes: ['locations:read', 'bevq:read', 'shiftq:read'] });
    const reply = await postToken(
      form({
        grant_type: 'client_credentials',
        client_id: app.clientId,
        client_secret: app.clientSecret,
        scope: 'bevq:read  locations:read nosuch:scope',
      }),
    );
    expect(reply.status).toBe(200);
    expect(reply.body.scope).toBe('locations:read bevq:read');
    const token = reply.body.access_token as string;
    const stored = (await tokenItems()).find((item) => item.PK === `TOKEN#${sha256Hex(token)}`);
    expect(stored?.scopes).toEqual(['locations:read', 'bevq:read']);

    const locations = await call(runtime, '/v1/demo-group/locations', { token });
    expect(locations.status).toBe(200);
    expect(locations.body.data.token.scopes).toEqual(['locations:read', 'bevq:read']);
    expect((await call(runtime, '/v1/demo-group/bevq', { token })).status).toBe(200);
    const outside = await call(runtime, '/v1/demo-group/nyc-midtown/shiftq/sales', { token });
    expect(outside.status).toBe(403);
    expect(outside.body.error.code).toBe('insufficient_scope');

    // Without scope the token carries every scope of the application, and stores no narrowing.
    const all = await postToken(form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret }));
    expect(all.body.scope).toBe('locations:read bevq:read shiftq:read');
    expect((await tokenItems()).find((item) => item.PK === `TOKEN#${sha256Hex(all.body.access_token)}`)?.scopes).toBeUndefined();
    expect((await call(runtime, '/v1/demo-group/nyc-midtown/shiftq/sales', { token: all.body.access_token })).status).toBe(200);
  });

  it('refuses a scope request none of whose scopes the application holds with invalid_request, issuing nothing', async () => {
    const app = await newApp(runtime, { scopes: ['locations:read'] });
    const before = await tokenItems();
    for (const scope of ['matriq:read', 'nosuch:scope', '', ' ']) {
      const reply = await postToken(
        form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret, scope }),
      );
      expect(reply.status, JSON.stringify(scope)).toBe(400);
      expect(reply.body.error, JSON.stringify(scope)).toBe('invalid_request');
      expect(reply.body.error_description).toMatch(/none of the requested scopes/);
    }
    // A wrong secret is told nothing about the application's scopes: the client is refused first.
    const stranger = await postToken(
      form({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'wrong', scope: 'matriq:read' }),
    );
    expect(stranger.body.error).toBe('invalid_client');
    expectUnchanged(await tokenItems(), before);
  });

  it('answers another method than POST with 405, Allow: POST and an OAuth error body (invalid_request), writing nothing', async () => {
    const before = await tableItems();
    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
      const reply = await call(runtime, '/oauth/token', {
        method,
        ...(method === 'GET' ? {} : { body: form({ grant_type: 'client_credentials' }), headers: FORM }),
      });
      expect(reply.status, method).toBe(405);
      expect(reply.headers.get('allow'), method).toBe('POST');
      expect(reply.headers.get('cache-control'), method).toBe('no-store');
      expect(reply.body, method).toEqual({ error: 'invalid_request', error_description: 'Use POST to request a token.' });
    }
    expectUnchanged(await tableItems(), before);
  });
});
