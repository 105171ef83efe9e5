import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { adminCall, newApp, startTestRuntime } from '../../../test/support/runtime.js';
import { menuWebhookHandler } from '../examples/node-http.js';
import { createCustomerApiClient, memoryDedupe, memoryMenuStore, signTestPayload, type WebhookEvent } from '../src/index.js';

let runtime: LocalRuntime;
let receiver: Server;
let url: string;
const store = memoryMenuStore();
const SECRET = 'whsec-example';

beforeAll(async () => {
  runtime = await startTestRuntime();
  expect((await adminCall(runtime, 'PUT', '/menus/demo-group/nyc-midtown', sampleMenu())).status).toBe(200);
  const { clientId, clientSecret } = await newApp(runtime, { scopes: ['bevq:read'] });
  const client = createCustomerApiClient({ baseUrl: runtime.url, clientId, clientSecret });
  receiver = createServer(menuWebhookHandler({ secret: SECRET, scope: { groupId: 'demo-group' }, dedupe: memoryDedupe(), client, store }));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/menu`;
});
afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  await runtime?.stop();
});

const EVENT: WebhookEvent = {
  eventId: 'evt_example',
  eventType: 'bevq.menu.updated',
  occurredAt: new Date().toISOString(),
  groupId: 'demo-group',
  locationId: 'nyc-midtown',
  revision: 'r1',
  resource: '/v1/demo-group/nyc-midtown/bevq/menu',
};

describe('examples/node-http.ts', () => {
  it('answers a signed delivery 200 after syncing the menu, the same event again 200 without a read, a tampered one 401', async () => {
    const delivery = await signTestPayload(SECRET, EVENT);
    const post = (body: string) => fetch(url, { method: 'POST', headers: delivery.headers, body });
    expect((await post(delivery.body)).status).toBe(200);
    const copy = await store.get('demo-group', 'nyc-midtown');
    expect(copy?.menu.revision).toBe(copy?.revision);
    expect((await post(delivery.body)).status).toBe(200);
    expect(await store.get('demo-group', 'nyc-midtown')).toBe(copy);
    const tampered = await post(delivery.body.replace('r1', 'r2'));
    expect([tampered.status, await tampered.json()]).toEqual([401, { ok: false }]);
  });

  it('refuses other methods and oversized bodies without reading them as events', async () => {
    expect((await fetch(url)).status).toBe(405);
    expect((await fetch(url, { method: 'POST', body: 'x'.repeat(100_000) })).status).toBe(413);
  });
});
