import { readdirSync, readFileSync } from 'node:fs';
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { newApp, startTestRuntime } from '../../../test/support/runtime.js';
import type * as Kit from '../src/index.js';
import { vector } from './vectors.js';

const SRC = new URL('../src/', import.meta.url);

/** The kit as one IIFE string, bundled for no platform in particular: a `node:` import would not resolve. */
async function platformNeutralBundle(): Promise<string> {
  const result = await build({
    entryPoints: [new URL('index.ts', SRC).pathname],
    bundle: true,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    format: 'iife',
    globalName: 'CustomerApiKit',
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** A context with the web platform's globals only: no process, Buffer or require. */
function webContext(fetched: string[]) {
  return createContext({
    fetch: (request: Request) => (fetched.push(new URL(request.url).pathname), fetch(request)),
    crypto: { subtle: crypto.subtle },
    TextEncoder,
    TextDecoder,
    URL,
    Headers,
    Request,
    Response,
    setTimeout,
    clearTimeout,
  });
}

let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

describe('the platform-neutral build', () => {
  it('has no node: import in src', () => {
    const sources = readdirSync(SRC).filter((name) => name.endsWith('.ts'));
    expect(sources.length).toBeGreaterThan(5);
    for (const name of sources) expect(readFileSync(new URL(name, SRC), 'utf8'), name).not.toMatch(/from ['"]node:/);
  });

  it('runs with fetch and WebCrypto only: verifies a vector and exchanges a token through the context fetch', async () => {
    const fetched: string[] = [];
    const context = webContext(fetched);
    const kit = runInContext(`${await platformNeutralBundle()}; CustomerApiKit`, context) as typeof Kit;
    expect(runInContext('[typeof process, typeof Buffer, typeof require]', context)).toEqual(['undefined', 'undefined', 'undefined']);

    const v = vector('utf8');
    const headers = { 'x-service-timestamp': v.timestamp, 'x-service-signature': v.header };
    const verified = await kit.verifyWebhook(v.secret, headers, v.body, { now: () => Number(v.timestamp) * 1000 });
    expect(verified.ok).toBe(true);
    const tampered = await kit.verifyWebhook(v.secret, headers, `${v.body} `, { now: () => Number(v.timestamp) * 1000 });
    expect(tampered).toEqual({ ok: false, reason: 'signature_mismatch' });

    const app = await newApp(runtime);
    const client = kit.createCustomerApiClient({ baseUrl: runtime.url, clientId: app.clientId, clientSecret: app.clientSecret });
    expect(await client.token()).toMatch(new RegExp(`^${app.clientId}\\.`));
    const { data } = await client.api.GET('/v1/{group_id}/locations', { params: { path: { group_id: 'demo-group' } } });
    expect(data?.ok).toBe(true);
    expect(fetched).toEqual(['/oauth/token', '/v1/demo-group/locations']);
  });
});
