import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { TOKEN_ATTEMPTS_PER_MINUTE } from '#platform/config';
import { ACCESS_LINE_MESSAGE } from '#platform/observability';
import { ORIGIN_REFUSAL, ORIGIN_VERIFY_HEADER, VIEWER_ADDRESS_HEADER } from '#platform/http';
import { call, newApp, startTestRuntime, watchingDynamo, withinOneClockMinute } from '../support/runtime.js';

/**
 * A stage behind its edge, played locally: the runtime is started with an origin secret, and these requests
 * either carry it (as CloudFront does) or not (someone calling the API Gateway URL directly).
 */
const SECRET = 'Origin0Secret0Of0This0Run0aB3dE5gH7jK9mN1pQ3sT5v';
const WRONG = 'Origin0Secret0Of0This0Run0aB3dE5gH7jK9mN1pQ3sT5w';
const SPOOFED = '203.0.113.7';
/** Where a loopback connection comes from, as the local gateway reports it (API Gateway's sourceIp). */
const LOOPBACK = /^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/;

let runtime: LocalRuntime;
let token: string;
let stdout: MockInstance;
let written = '';

/** Every access line written so far (the runtime logs at INFO into the captured stdout). */
function accessLines(): Record<string, unknown>[] {
  return written
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.message === ACCESS_LINE_MESSAGE);
}
const accessLineOf = (requestId: string | null) => accessLines().find((line) => line.requestId === requestId);

beforeAll(async () => {
  stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written += String(chunk);
    return true;
  });
  runtime = await startTestRuntime({ logLevel: 'INFO', config: { originSecret: SECRET } });
  const app = await newApp(runtime, { scopes: ['locations:read'] });
  const response = await fetch(`${runtime.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', [ORIGIN_VERIFY_HEADER]: SECRET },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret }),
  });
  expect(response.status).toBe(200);
  token = ((await response.json()) as { access_token: string }).access_token;
});

afterAll(async () => {
  await runtime?.stop();
  stdout?.mockRestore();
});

const locations = '/v1/demo-group/locations';

describe('a stage behind its edge (the runtime with an origin secret)', () => {
  it('refuses a request without the secret with 403 in the error shape, before reading anything', async () => {
    const commands: string[] = [];
    const reply = await watchingDynamo(
      runtime,
      (input) => commands.push(JSON.stringify(input)),
      () => call(runtime, locations, { token }),
    );
    expect(reply.status).toBe(403);
    expect(reply.body).toMatchObject({ ok: false, version: 'v1', error: { code: 'forbidden', status: 403, message: ORIGIN_REFUSAL } });
    expect(reply.body.error.requestId).toBe(reply.headers.get('x-request-id'));
    // Refused before routing and authorization: no credential, application or counter was read or written.
    expect(commands).toEqual([]);
    expect(accessLineOf(reply.headers.get('x-request-id'))).toMatchObject({ api: 'v1', status: 403, operation: 'unmatched' });
  });

  it('refuses a wrong secret, and an empty one, the same way', async () => {
    for (const value of [WRONG, SECRET.slice(0, 10), '']) {
      const reply = await call(runtime, locations, { token, headers: { [ORIGIN_VERIFY_HEADER]: value } });
      expect(reply.status, JSON.stringify(value)).toBe(403);
      expect(reply.body.error.code).toBe('forbidden');
    }
  });

  it('answers as usual with the secret (any casing of the header name)', async () => {
    for (const name of [ORIGIN_VERIFY_HEADER, 'X-Origin-Verify']) {
      const reply = await call(runtime, locations, { token, headers: { [name]: SECRET } });
      expect(reply.status, name).toBe(200);
      expect(reply.body.data.locations.length).toBeGreaterThan(0);
      expect(reply.headers.get('ratelimit-limit')).not.toBeNull();
    }
  });

  it("guards the token endpoint too, and leaves the admin API (IAM, or the console's own distribution) reachable directly", async () => {
    const form = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=x&client_secret=y',
    };
    const direct = await fetch(`${runtime.url}/oauth/token`, form);
    expect(direct.status).toBe(403);
    expect(((await direct.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const viaEdge = await fetch(`${runtime.url}/oauth/token`, { ...form, headers: { ...form.headers, [ORIGIN_VERIFY_HEADER]: SECRET } });
    expect(viaEdge.status).toBe(401);

    const admin = await fetch(`${runtime.url}/admin/v1/apps`, { headers: { Authorization: `Bearer ${runtime.adminKey}` } });
    expect(admin.status).toBe(200);
  });

  it("logs the edge's viewer address only when the secret matched; a spoofed one without it is ignored", async () => {
    const trusted = await call(runtime, locations, {
      token,
      headers: { [ORIGIN_VERIFY_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: SPOOFED },
    });
    expect(trusted.status).toBe(200);
    expect(accessLineOf(trusted.headers.get('x-request-id'))).toMatchObject({ status: 200, operation: 'listLocations', ip: SPOOFED });

    for (const headers of [{ [VIEWER_ADDRESS_HEADER]: SPOOFED }, { [VIEWER_ADDRESS_HEADER]: SPOOFED, [ORIGIN_VERIFY_HEADER]: WRONG }]) {
      const spoofed = await call(runtime, locations, { token, headers });
      expect(spoofed.status).toBe(403);
      const line = accessLineOf(spoofed.headers.get('x-request-id'))!;
      expect(line.ip).toMatch(LOOPBACK);
      expect(line.ip).not.toBe(SPOOFED);
    }
  });

  it("counts token attempts by the edge's viewer address, not by the address the edge calls from", async () => {
    const attempt = (viewer: string) =>
      fetch(`${runtime.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', [ORIGIN_VERIFY_HEADER]: SECRET, [VIEWER_ADDRESS_HEADER]: viewer },
        body: 'grant_type=client_credentials&client_id=edge-viewer-client&client_secret=wrong',
      });
    const statuses: number[] = [];
    await withinOneClockMinute();
    for (let i = 0; i <= TOKEN_ATTEMPTS_PER_MINUTE; i++) statuses.push((await attempt('198.51.100.10')).status);
    expect(statuses.slice(0, TOKEN_ATTEMPTS_PER_MINUTE).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // Another viewer behind the same edge (every request reaches the API from CloudFront) keeps its own budget.
    expect((await attempt('198.51.100.11')).status).toBe(401);
  });

  it('never writes the secret, or a wrong value sent for it, to any log line', () => {
    expect(accessLines().length).toBeGreaterThan(5);
    expect(written).not.toContain(SECRET);
    expect(written).not.toContain(WRONG);
  });
});
