import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '#lambdas/admin/apps';
import { startEngines, type Engines } from '#local/engines';
import type { LocalRuntime } from '#local/runtime';
import { admin as adminCli, runtimeFileFor } from '../fixtures/admin-cli.js';
import { startThrottleProxy, type ThrottleProxy } from '../fixtures/throttle-proxy.js';
import { call, ENGINE_NAME, manualClock, scanTable, startTestRuntime, adminCall, TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';

/**
 * Client-secret rotation with an overlap, and legacy credentials' last use, over real HTTP: the admin API (and its
 * CLI) rotates, the token endpoint decides. The runtime's clock is moved by hand, from the real time (the CLI's
 * process reads the real clock), forward only. The table is reached through a proxy that can hold a request, to
 * place a rotation inside an exchange.
 */
const HOUR = 3_600_000;
const clock = manualClock(Date.now());
let engines: Engines;
let proxy: ThrottleProxy;
let runtime: LocalRuntime;
let dir: string;

beforeAll(async () => {
  engines = await startEngines({ dataDir: null, dynamoEndpoint: TEST_DYNAMODB_ENDPOINT });
  proxy = await startThrottleProxy(engines.dynamoEndpoint);
  runtime = await startTestRuntime({ clock, engines: { ...engines, dynamoEndpoint: proxy.url } });
  dir = mkdtempSync(join(tmpdir(), 'rotation-'));
});
afterAll(async () => {
  await runtime?.stop();
  await proxy?.close();
  await engines?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const adminApi = (method: string, path: string, body?: unknown) => adminCall(runtime, method, path, body);

/** A token exchange from one address (the attempt throttle is per client id and address: a test stays far below it). */
async function exchange(clientId: string, clientSecret: string) {
  const response = await fetch(`${runtime.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

async function newApplication() {
  const created = await adminApi('POST', '/apps', { groupId: 'demo-group', name: 'Rotating', scopes: ['locations:read'] });
  expect(created.status).toBe(201);
  return { clientId: created.body.app.clientId as string, secret: created.body.clientSecret as string };
}

const rotate = (clientId: string, body: unknown) => adminApi('POST', `/apps/${clientId}/rotate-secret`, body);

/** A read of data with a token: its status and, when refused, the error code and challenge. */
async function read(token: string) {
  const reply = await call(runtime, '/v1/demo-group/locations', { token });
  return { status: reply.status, code: reply.body.error?.code, challenge: reply.headers.get('www-authenticate') };
}
const READS = { status: 200, code: undefined, challenge: null };
/** What a token a rotation ended gets: 401 invalid_token, the signal on which clients (and the kit) exchange again. */
const ENDED = { status: 401, code: 'invalid_token', challenge: 'Bearer realm="customer-api", error="invalid_token"' };

describe(`client secret rotation with an overlap (${ENGINE_NAME})`, () => {
  it('both secrets work during the overlap, only the new one after it; tokens already issued keep their 24 hours', async () => {
    const { clientId, secret: first } = await newApplication();
    const before = await exchange(clientId, first);
    expect(before.status).toBe(200);

    const rotated = await rotate(clientId, { overlapHours: 2 });
    expect(rotated.status).toBe(200);
    const second = rotated.body.clientSecret as string;
    expect(second).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second).not.toBe(first);
    expect(rotated.body.app.previousSecretExpiresAt).toBe(new Date(clock.now() + 2 * HOUR).toISOString());
    // Shown once: never again, and no hash of either secret in any answer.
    const shown = await adminApi('GET', `/apps/${clientId}`);
    for (const text of [shown.text, rotated.text.replace(second, '')]) {
      expect(text).not.toContain(first);
      expect(text).not.toContain(second);
      expect(text).not.toMatch(/secretHash/i);
    }

    expect((await exchange(clientId, first)).status).toBe(200);
    expect((await exchange(clientId, second)).status).toBe(200);

    clock.advance(2 * HOUR);
    // The overlap ends at its instant: the replaced secret is refused as any wrong secret is (contract 7.2).
    expect(await exchange(clientId, first)).toEqual({
      status: 401,
      body: { error: 'invalid_client', error_description: 'Client authentication failed.' },
    });
    expect((await exchange(clientId, second)).status).toBe(200);
    // The token the first secret earned still reads.
    expect((await call(runtime, '/v1/demo-group/locations', { token: before.body.access_token })).status).toBe(200);
  });

  it('overlap 0 (a leaked secret): the replaced secret stops at once', async () => {
    const { clientId, secret: first } = await newApplication();
    const rotated = await rotate(clientId, { overlapHours: 0 });
    expect(rotated.status).toBe(200);
    expect((await exchange(clientId, first)).status).toBe(401);
    expect((await exchange(clientId, rotated.body.clientSecret)).status).toBe(200);
  });

  it("overlap 0 ends every token the replaced secret minted, on its next use; the new secret's and other applications' tokens live", async () => {
    const { clientId, secret: first } = await newApplication();
    const old = [(await exchange(clientId, first)).body.access_token!, (await exchange(clientId, first)).body.access_token!];
    const other = await newApplication();
    const othersToken = (await exchange(other.clientId, other.secret)).body.access_token!;
    expect(await read(old[0]!)).toEqual(READS);

    const rotated = await rotate(clientId, { overlapHours: 0 });
    expect(rotated.status).toBe(200);
    expect(rotated.body.oldTokensEndAt).toBe(new Date(clock.now()).toISOString());
    for (const token of old) expect(await read(token)).toEqual(ENDED);
    const fresh = (await exchange(clientId, rotated.body.clientSecret)).body.access_token!;
    expect(await read(fresh)).toEqual(READS);
    expect(await read(othersToken)).toEqual(READS);
  });

  it('an exchange in flight while an overlap-0 rotation happens: the token it returns is already ended', async () => {
    const { clientId, secret: first } = await newApplication();
    let reached!: () => void;
    const atWrite = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    // The exchange has read the application and matched the first secret; its token's item waits for the rotation.
    proxy.hold = (action, body) => {
      if (action !== 'PutItem' || !body.includes('"TOKEN#')) return undefined;
      reached();
      return released;
    };
    try {
      const inFlight = exchange(clientId, first);
      await atWrite;
      expect((await rotate(clientId, { overlapHours: 0 })).status).toBe(200);
      release();
      const minted = await inFlight;
      expect(minted.status).toBe(200);
      expect(await read(minted.body.access_token!)).toEqual(ENDED);
    } finally {
      proxy.hold = null;
      release();
    }
    expect((await exchange(clientId, first)).status).toBe(401);
  });

  it("endOldTokens with an overlap: the older secrets' tokens live until the overlap ends, then end; without it they keep their 24 hours", async () => {
    const { clientId, secret: first } = await newApplication();
    const before = (await exchange(clientId, first)).body.access_token!;
    const rotated = await rotate(clientId, { overlapHours: 2, endOldTokens: true });
    expect(rotated.status).toBe(200);
    expect(rotated.body.oldTokensEndAt).toBe(new Date(clock.now() + 2 * HOUR).toISOString());
    // Minted by the replaced secret during its overlap: ends with it too.
    const during = (await exchange(clientId, first)).body.access_token!;
    const current = (await exchange(clientId, rotated.body.clientSecret)).body.access_token!;
    clock.advance(2 * HOUR - 1);
    for (const token of [before, during, current]) expect(await read(token)).toEqual(READS);
    clock.advance(1);
    for (const token of [before, during]) expect(await read(token)).toEqual(ENDED);
    expect(await read(current)).toEqual(READS);

    // Without the option, a token of the replaced secret outlives the overlap (its own 24 hours).
    const kept = (await exchange(clientId, rotated.body.clientSecret)).body.access_token!;
    const plain = await rotate(clientId, { overlapHours: 1 });
    expect(plain.body.oldTokensEndAt).toBeNull();
    clock.advance(2 * HOUR);
    expect(await read(kept)).toEqual(READS);
  });

  it('a rotation that cuts an overlap short ends the tokens that were to end with it at once', async () => {
    const { clientId, secret: first } = await newApplication();
    const firsts = (await exchange(clientId, first)).body.access_token!;
    const second = (await rotate(clientId, { overlapHours: 24, endOldTokens: true })).body.clientSecret as string;
    const seconds = (await exchange(clientId, second)).body.access_token!;
    expect(await read(firsts)).toEqual(READS);
    // The first secret stops now, so its tokens do; the second secret's tokens keep theirs (no option this time).
    const third = await rotate(clientId, { overlapHours: 24 });
    expect(await read(firsts)).toEqual(ENDED);
    expect(await read(seconds)).toEqual(READS);
    expect(third.body.oldTokensEndAt).toBeNull();
  });

  it('a second rotation ends the first overlap: only the newest two secrets, and of them the replaced one only in its overlap', async () => {
    const { clientId, secret: first } = await newApplication();
    const second = (await rotate(clientId, { overlapHours: 24 })).body.clientSecret as string;
    const third = (await rotate(clientId, {})).body.clientSecret as string;
    expect((await exchange(clientId, first)).status).toBe(401);
    expect((await exchange(clientId, second)).status).toBe(200);
    expect((await exchange(clientId, third)).status).toBe(200);
    // No body field: the default overlap of 24 hours.
    clock.advance(24 * HOUR);
    expect((await exchange(clientId, second)).status).toBe(401);
    expect((await exchange(clientId, third)).status).toBe(200);
  });

  it('revoking the application ends every secret and token at once, overlap or not', async () => {
    const { clientId, secret: first } = await newApplication();
    const token = (await exchange(clientId, first)).body.access_token!;
    const second = (await rotate(clientId, { overlapHours: 24 })).body.clientSecret as string;
    expect((await adminApi('POST', `/apps/${clientId}/revoke`, {})).status).toBe(200);
    expect((await exchange(clientId, first)).status).toBe(401);
    expect((await exchange(clientId, second)).status).toBe(401);
    expect((await call(runtime, '/v1/demo-group/locations', { token })).body.error.code).toBe('token_revoked');
    // A revoked application gets no new secret.
    expect((await rotate(clientId, { overlapHours: 1 })).status).toBe(409);
  });

  it('refuses bad input with 400 naming the field, unknown applications with 404, legacy ones with 409, and changes nothing', async () => {
    const { clientId, secret } = await newApplication();
    const stored = async () => JSON.stringify((await scanTable(runtime)).find((i) => i.PK === `APP#${clientId}`));
    const untouched = await stored();
    for (const body of [
      { overlapHours: 169 },
      { overlapHours: -1 },
      { overlapHours: 1.5 },
      { overlapHours: '24' },
      { overlapHours: 1e308 },
      { overlap: 1 },
    ]) {
      const refused = await rotate(clientId, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.message, JSON.stringify(body)).toMatch(/overlap/);
    }
    for (const body of [{ endOldTokens: 'yes' }, { endOldTokens: 1 }, { overlapHours: 0, endOldTokens: false }]) {
      const refused = await rotate(clientId, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.message, JSON.stringify(body)).toMatch(/endOldTokens/);
    }
    expect((await rotate(clientId, '{"overlapHours": 1')).status).toBe(400);
    expect(await stored()).toBe(untouched);
    expect((await exchange(clientId, secret)).status).toBe(200);

    expect((await rotate('app_00000000000000000000', { overlapHours: 1 })).status).toBe(404);
    const legacy = await createApp(
      runtime.store,
      { groupId: 'demo-group', name: 'Old', scopes: ['locations:read'] },
      clock.now(),
      'legacy_bearer',
    );
    const refused = await rotate(legacy.app.clientId, { overlapHours: 1 });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/legacy bearer/);
  });

  it('audits each rotation without the secret', async () => {
    const { clientId } = await newApplication();
    const rotated = await rotate(clientId, { overlapHours: 1 });
    const audit = await adminApi('GET', `/audit?clientId=${clientId}`);
    const entry = audit.body.entries.find((e: { operation: string }) => e.operation === 'rotateClientSecret');
    expect(entry).toMatchObject({ operation: 'rotateClientSecret', clientId });
    expect(audit.text).not.toContain(rotated.body.clientSecret);
  });

  it('the CLI rotates too, printing the new secret once, and refuses an overlap past 7 days', async () => {
    const { clientId, secret: first } = await newApplication();
    const file = runtimeFileFor(runtime, dir, 'runtime.json');
    const tooLong = await adminCli(file, ['apps', 'rotate-secret', clientId, '--overlap-hours', '200']);
    expect(tooLong.code).not.toBe(0);
    expect(tooLong.stderr).toMatch(/overlapHours: a whole number of hours from 0 to 168/);
    const token = (await exchange(clientId, first)).body.access_token!;
    const ending = await adminCli(file, ['apps', 'rotate-secret', clientId, '--overlap-hours', '1', '--end-old-tokens']);
    expect(ending.code, ending.stderr).toBe(0);
    expect(ending.stdout).toMatch(/Tokens of the replaced secrets end at /);
    const run = await adminCli(file, ['apps', 'rotate-secret', clientId, '--overlap-hours', '0', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.app.clientId).toBe(clientId);
    // The second rotation cut the first's overlap short, and with it the first secret's tokens.
    expect(await read(token)).toEqual(ENDED);
    expect((await exchange(clientId, run.json.clientSecret)).status).toBe(200);
    // The CLI took the real time as the rotation's instant; a minute on, the replaced secret is refused.
    clock.advance(60_000);
    expect((await exchange(clientId, first)).status).toBe(401);
  });
});

describe(`legacy bearer credentials' last use (${ENGINE_NAME})`, () => {
  it('records the last use to the hour (one write an hour, not one a request) and reports it with its application, never the credential', async () => {
    const legacy = await createApp(
      runtime.store,
      { groupId: 'demo-group', name: 'Legacy POS', scopes: ['locations:read'] },
      clock.now(),
      'legacy_bearer',
    );
    const credential = legacy.legacyCredential!;
    const report = async () => {
      const page = await adminApi('GET', '/legacy-credentials?limit=1000');
      expect(page.status).toBe(200);
      expect(page.text).not.toContain(credential);
      return page.body.legacyCredentials.find((c: { clientId: string }) => c.clientId === legacy.app.clientId);
    };
    expect(await report()).toMatchObject({
      name: 'Legacy POS',
      groupId: 'demo-group',
      status: 'active',
      tokenPrefix: legacy.app.tokenPrefix,
      lastUsedAt: null,
    });

    const firstUse = clock.now();
    expect((await call(runtime, '/v1/demo-group/locations', { token: credential })).status).toBe(200);
    expect((await report()).lastUsedAt).toBe(new Date(firstUse).toISOString());
    // Within the hour: used again, not written again.
    clock.advance(59 * 60_000);
    expect((await call(runtime, '/v1/demo-group/locations', { token: credential })).status).toBe(200);
    expect((await report()).lastUsedAt).toBe(new Date(firstUse).toISOString());
    // Past the hour: the next use is written.
    clock.advance(2 * 60_000);
    expect((await call(runtime, '/v1/demo-group/locations', { token: credential })).status).toBe(200);
    expect((await report()).lastUsedAt).toBe(new Date(clock.now()).toISOString());

    // Only legacy credentials are listed; revoking one is the existing revoke, and the report shows it.
    const listed = (await adminApi('GET', '/legacy-credentials?limit=1000')).body.legacyCredentials;
    expect(listed.every((c: { tokenPrefix: string }) => c.tokenPrefix.startsWith('lgcy_'))).toBe(true);
    expect((await adminApi('POST', `/apps/${legacy.app.clientId}/revoke`, {})).status).toBe(200);
    expect((await report()).status).toBe('revoked');
  });

  it('pages the report, refuses a bad limit or cursor, and the CLI prints it whole', async () => {
    for (let i = 0; i < 3; i++)
      await createApp(
        runtime.store,
        { groupId: 'demo-group', name: `Paged ${i}`, scopes: ['locations:read'] },
        clock.now(),
        'legacy_bearer',
      );
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await adminApi('GET', `/legacy-credentials?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(page.body.legacyCredentials.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.legacyCredentials.map((c: { clientId: string }) => c.clientId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    const all = (await adminApi('GET', '/legacy-credentials?limit=1000')).body.legacyCredentials.map(
      (c: { clientId: string }) => c.clientId,
    );
    expect(seen).toEqual(all);
    expect((await adminApi('GET', '/legacy-credentials?limit=0')).status).toBe(400);
    expect((await adminApi('GET', '/legacy-credentials?cursor=garbage')).status).toBe(400);

    const run = await adminCli(runtimeFileFor(runtime, dir, 'report.json'), ['apps', 'legacy-report', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.legacyCredentials.map((c: { clientId: string }) => c.clientId)).toEqual(all);
  });
});
