import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIGNING_DELAY_MS, VERIFIERS_CACHE_MS, VERIFIERS_REFRESH_MS } from '#data/token-keys';
import type { LocalRuntime } from '#local/runtime';
import { admin as adminCli, runtimeFileFor } from '../fixtures/admin-cli.js';
import { call, ENGINE_NAME, manualClock, newApp, scanTable, startTestRuntime, adminCall } from '../support/runtime.js';

/**
 * The access-token key's versions over real HTTP: the admin API rotates and revokes, the token endpoint signs
 * with the newest version at once, every function accepts the versions still verifying (reading them at most
 * every VERIFIERS_CACHE_MS), and the sweeper rotates on the stage's schedule. The clock is moved by hand.
 */
const DAY = 86_400_000;
const ROTATION_DAYS = 30;
const clock = manualClock(Date.now());
let runtime: LocalRuntime;
let dir: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ clock, config: { tokenKeyRotationDays: ROTATION_DAYS }, sweepEveryMs: 3_600_000 });
  dir = mkdtempSync(join(tmpdir(), 'token-keys-'));
});
afterAll(async () => {
  await runtime?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const adminApi = (method: string, path: string, body?: unknown) => adminCall(runtime, method, path, body);

let app: { clientId: string; clientSecret: string };
async function token(): Promise<string> {
  const response = await fetch(`${runtime.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}
const read = async (t: string) => (await call(runtime, '/v1/demo-group/locations', { token: t })).status;
/** Past every function's cached view of the versions: what the table says from here on. */
const pastCache = () => clock.advance(VERIFIERS_CACHE_MS);
const states = async () =>
  (await adminApi('GET', '/token-keys')).body.versions.map((v: { version: number; state: string }) => `${v.version}:${v.state}`);

describe(`access-token key rotation (${ENGINE_NAME})`, () => {
  beforeAll(async () => {
    app = await newApp(runtime, { scopes: ['locations:read'] });
  });

  it('a new version verifies at once and signs once every function knows it; tokens of the replaced one keep working; no key is ever shown', async () => {
    const first = await token();
    expect(await read(first)).toBe(200); // every function that served it now holds [v1] for up to VERIFIERS_CACHE_MS
    expect(await states()).toEqual(['1:signing']);
    const rotated = await adminApi('POST', '/token-keys/rotate', {});
    expect(rotated.status).toBe(200);
    expect(rotated.body.versions.map((v: { version: number; state: string }) => `${v.version}:${v.state}`)).toEqual([
      '2:next',
      '1:signing',
    ]);
    expect(rotated.body.versions[0].signsFrom).toBe(new Date(clock.now() + SIGNING_DELAY_MS).toISOString());
    // The replaced version verifies until its last token has expired: 24 hours (and five minutes) after it stops signing.
    expect(rotated.body.versions[1].retiresAt).toBe(new Date(clock.now() + SIGNING_DELAY_MS + DAY + 300_000).toISOString());
    const stored = (await scanTable(runtime)).find((i) => i.PK === 'TOKEN_KEY')!;
    for (const v of stored.versions as { key: string }[]) expect(rotated.text).not.toContain(v.key);
    expect((await adminApi('GET', '/token-keys')).text).not.toMatch(/"key"/);

    // Signed by v1 until every function's cached view holds v2; then by v2, which every function accepts.
    clock.advance(SIGNING_DELAY_MS);
    expect(await states()).toEqual(['2:signing', '1:verifying']);
    const second = await token();
    expect(await read(second)).toBe(200);
    expect(await read(first)).toBe(200);

    // Revoking the replaced version refuses its tokens (every function within the cache's bound), not the new one's.
    expect((await adminApi('POST', '/token-keys/1/revoke', {})).status).toBe(200);
    pastCache();
    expect(await read(first)).toBe(401);
    expect(await read(second)).toBe(200);
    expect(await states()).toEqual(['2:signing', '1:revoked']);
  });

  it('revoking the signing version: its successor signs at once and is known everywhere within a second; the revoked one is refused within the cache bound', async () => {
    const before = await token();
    expect(await read(before)).toBe(200);
    const signing = (await adminApi('GET', '/token-keys')).body.versions.find((v: { state: string }) => v.state === 'signing')
      .version as number;
    const revoked = await adminApi('POST', `/token-keys/${signing}/revoke`, {});
    expect(revoked.status).toBe(200);
    expect(revoked.body.versions.find((v: { state: string }) => v.state === 'signing').version).toBe(signing + 1);
    const after = await token();
    clock.advance(VERIFIERS_REFRESH_MS);
    expect(await read(after)).toBe(200);
    pastCache();
    expect(await read(before)).toBe(401);
    expect(await read(after)).toBe(200);
  });

  it('refuses a bad version with 400, an unknown one with 404, a revoked one again with 409, and changes nothing', async () => {
    const before = JSON.stringify((await scanTable(runtime)).find((i) => i.PK === 'TOKEN_KEY'));
    expect((await adminApi('POST', '/token-keys/0/revoke', {})).status).toBe(400);
    expect((await adminApi('POST', '/token-keys/one/revoke', {})).status).toBe(400);
    expect((await adminApi('POST', '/token-keys/99999/revoke', {})).status).toBe(404);
    expect((await adminApi('POST', '/token-keys/1/revoke', {})).status).toBe(409);
    expect((await adminApi('POST', '/token-keys/rotate', { now: true })).status).toBe(400);
    expect(JSON.stringify((await scanTable(runtime)).find((i) => i.PK === 'TOKEN_KEY'))).toBe(before);
  });

  it('removes a replaced version once the tokens it signed have expired', async () => {
    await adminApi('POST', '/token-keys/rotate', {});
    clock.advance(SIGNING_DELAY_MS);
    const verifying = (await adminApi('GET', '/token-keys')).body.versions.filter((v: { state: string }) => v.state === 'verifying');
    expect(verifying).toHaveLength(1);
    clock.set(Date.parse(verifying[0].retiresAt));
    expect((await adminApi('GET', '/token-keys')).body.versions.some((v: { version: number }) => v.version === verifying[0].version)).toBe(
      false,
    );
    // The next rotation drops it from the table too.
    await adminApi('POST', '/token-keys/rotate', {});
    const stored = (await scanTable(runtime)).find((i) => i.PK === 'TOKEN_KEY')!;
    expect((stored.versions as { version: number }[]).map((v) => v.version)).not.toContain(verifying[0].version);
  });

  it('the sweeper rotates when the newest version has signed for as many days as the stage says, once', async () => {
    clock.advance(SIGNING_DELAY_MS);
    const newest = async () =>
      (await adminApi('GET', '/token-keys')).body.versions[0] as { version: number; state: string; signsFrom: string };
    const signing = await newest();
    expect(signing.state).toBe('signing');
    clock.set(Date.parse(signing.signsFrom) + ROTATION_DAYS * DAY - 1);
    await runtime.sweep();
    expect((await newest()).version).toBe(signing.version);
    clock.advance(1);
    await runtime.sweep();
    expect(await newest()).toMatchObject({ version: signing.version + 1, state: 'next' });
    // Due no more: a second sweep (or a second instance) adds nothing.
    await runtime.sweep();
    expect((await newest()).version).toBe(signing.version + 1);
    clock.advance(SIGNING_DELAY_MS);
    expect((await newest()).state).toBe('signing');
    expect(await read(await token())).toBe(200);
  });

  it('audits rotations and revocations, and the CLI lists, rotates and revokes', async () => {
    const audit = (await adminApi('GET', '/audit?limit=1000')).body.entries.map((e: { operation: string }) => e.operation);
    expect(audit).toEqual(expect.arrayContaining(['rotateTokenKey', 'revokeTokenKey']));
    const file = runtimeFileFor(runtime, dir, 'runtime.json');
    const rotated = await adminCli(file, ['token-keys', 'rotate', '--json']);
    expect(rotated.code, rotated.stderr).toBe(0);
    const signing = rotated.json.versions[0];
    expect(signing.state).toBe('next');
    expect(rotated.stdout).not.toMatch(/"key"/);
    const revoked = await adminCli(file, ['token-keys', 'revoke', String(signing.version), '--json']);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.json.versions.find((v: { version: number }) => v.version === signing.version).state).toBe('revoked');
    const listed = await adminCli(file, ['token-keys', 'list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/VERSION +STATE/);
    expect((await adminCli(file, ['token-keys', 'revoke', 'x'])).code).toBe(2);
  });
});
