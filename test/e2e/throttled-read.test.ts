import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngines, type Engines } from '#local/engines';
import type { LocalRuntime } from '#local/runtime';
import { startThrottleProxy, type ThrottleProxy } from '../fixtures/throttle-proxy.js';
import { call, ENGINE_NAME, startTestRuntime, TEST_DYNAMODB_ENDPOINT, tokenFor } from '../support/runtime.js';

/**
 * A read DynamoDB throttles past the SDK's retries answers 503 with Retry-After, never a 500
 * (docs/decisions/throttled-reads.md). The engines never throttle, so a proxy answers as DynamoDB does.
 */

let engines: Engines;
let proxy: ThrottleProxy;
let runtime: LocalRuntime;
let token: string;

beforeAll(async () => {
  engines = await startEngines({ dataDir: null, dynamoEndpoint: TEST_DYNAMODB_ENDPOINT });
  proxy = await startThrottleProxy(engines.dynamoEndpoint);
  runtime = await startTestRuntime({
    engines: { ...engines, dynamoEndpoint: proxy.url },
    sweepEveryMs: 24 * 3_600_000,
    deliverWebhooks: false,
    logLevel: 'SILENT',
  });
  ({ token } = await tokenFor(runtime, { scopes: ['locations:read'] }));
});
afterAll(async () => {
  await runtime?.stop();
  await proxy?.close();
  await engines?.stop();
});

describe(`a throttled table (${ENGINE_NAME})`, () => {
  it('answers a read whose authorization batch stays throttled with 503 service_unavailable and Retry-After, then serves the next', async () => {
    const path = '/v1/demo-group/locations';
    expect((await call(runtime, path, { token })).status).toBe(200);

    proxy.throttled.add('BatchGetItem');
    const refusedBefore = proxy.refusals;
    const throttled = await call(runtime, path, { token });
    proxy.throttled.clear();
    expect(throttled.status).toBe(503);
    expect(throttled.body.error).toMatchObject({ code: 'service_unavailable' });
    expect(throttled.headers.get('retry-after')).toBe('1');
    // The SDK retried before giving up: DynamoDB's advice for a throttle.
    expect(proxy.refusals - refusedBefore).toBeGreaterThan(1);

    expect((await call(runtime, path, { token })).status).toBe(200);
  });

  it('answers the token endpoint the same way when the table throttles every read', async () => {
    proxy.throttled.add('GetItem').add('BatchGetItem').add('Query');
    try {
      const reply = await fetch(`${runtime.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=demo-app&client_secret=wrong',
      });
      expect(reply.status).toBe(503);
      expect(reply.headers.get('retry-after')).toBe('1');
    } finally {
      proxy.throttled.clear();
    }
  });
});
