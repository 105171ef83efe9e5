import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { adminCall, newApp, startTestRuntime } from '../../../test/support/runtime.js';
import { menuWebhookApp } from '../examples/express.js';
import { menuWebhooks } from '../examples/fastify.js';
import { menuWebhookHandler } from '../examples/node-http.js';
import {
  createCustomerApiClient,
  memoryDedupe,
  memoryMenuStore,
  signTestPayload,
  type CustomerApiClient,
  type MenuStore,
  type WebhookEvent,
} from '../src/index.js';

/**
 * The three receiver examples, each a real server on an ephemeral port, sent what the service sends (signed with
 * signTestPayload) and syncing the menu from a real local runtime.
 */

type Options = Parameters<typeof menuWebhookHandler>[0];
type Started = { url: string; close(): Promise<void> };

const SECRET = 'whsec-example';
const listening = async (server: Server): Promise<Started> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/menu`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

/** Each example, and how it answers a GET (node:http's handler serves every path; the frameworks route POST only). */
const FRAMEWORKS: [name: string, start: (options: Options) => Promise<Started>, getStatus: number][] = [
  ['node-http.ts', (options) => listening(createServer(menuWebhookHandler(options))), 405],
  ['express.ts', (options) => listening(createServer(menuWebhookApp(options))), 404],
  [
    'fastify.ts',
    async (options) => {
      const app = Fastify();
      await app.register(menuWebhooks(options));
      const address = await app.listen({ port: 0, host: '127.0.0.1' });
      return { url: `${address}/hooks/menu`, close: () => app.close() };
    },
    404,
  ],
];

let runtime: LocalRuntime;
let client: CustomerApiClient;

beforeAll(async () => {
  runtime = await startTestRuntime();
  expect((await adminCall(runtime, 'PUT', '/menus/demo-group/nyc-midtown', sampleMenu())).status).toBe(200);
  const { clientId, clientSecret } = await newApp(runtime, { scopes: ['bevq:read'] });
  client = createCustomerApiClient({ baseUrl: runtime.url, clientId, clientSecret });
});
afterAll(async () => {
  await runtime?.stop();
});

const event = (eventId: string, groupId = 'demo-group'): WebhookEvent => ({
  eventId,
  eventType: 'bevq.menu.updated',
  occurredAt: new Date().toISOString(),
  groupId,
  locationId: 'nyc-midtown',
  revision: 'r1',
  resource: `/v1/${groupId}/nyc-midtown/bevq/menu`,
});

/**
 * The same event as another sender's JSON encoder might write it: indented, keys in another order, `/` and `-`
 * escaped. A parser reads the same object from it, but re-serialised it is other bytes, which the signature is not over.
 */
const escapedText = ({ resource, ...rest }: WebhookEvent) =>
  JSON.stringify({ resource, ...rest }, null, 2)
    .replaceAll('/', '\\/')
    .replaceAll('-', '\\u002d');

describe.each(FRAMEWORKS)('examples/%s', (_name, start, getStatus) => {
  let server: Started;
  let store: MenuStore;
  const post = (headers: Record<string, string>, body: string) => fetch(server.url, { method: 'POST', headers, body });

  beforeAll(async () => {
    store = memoryMenuStore();
    server = await start({ secret: SECRET, scope: { groupId: 'demo-group' }, dedupe: memoryDedupe(), client, store });
  });
  afterAll(() => server?.close());

  it('answers a signed delivery 200 after syncing the menu, the same event again 200 without a read', async () => {
    const delivery = await signTestPayload(SECRET, event('evt_example'));
    const first = await post(delivery.headers, delivery.body);
    expect([first.status, await first.json()]).toEqual([200, { ok: true }]);
    const copy = await store.get('demo-group', 'nyc-midtown');
    expect(copy?.menu.revision).toBe(copy?.revision);
    expect((await post(delivery.headers, delivery.body)).status).toBe(200);
    expect(await store.get('demo-group', 'nyc-midtown')).toBe(copy);
  });

  it('verifies the bytes received: a body a JSON parser would rewrite is accepted as sent, and refused once rewritten', async () => {
    const text = escapedText(event('evt_escaped'));
    const rewritten = JSON.stringify(JSON.parse(text));
    expect(rewritten).not.toBe(text);
    const delivery = await signTestPayload(SECRET, text);
    const refused = await post(delivery.headers, rewritten);
    expect([refused.status, await refused.json()]).toEqual([401, { ok: false }]);
    expect((await post(delivery.headers, delivery.body)).status).toBe(200);
  });

  it('refuses a tampered body, another secret and an old timestamp with 401, and another group with 403', async () => {
    const delivery = await signTestPayload(SECRET, event('evt_refused'));
    const old = await signTestPayload(SECRET, event('evt_refused'), { timestamp: Math.floor(Date.now() / 1000) - 301 });
    const other = await signTestPayload('another-secret', event('evt_refused'));
    const statuses = [
      (await post(delivery.headers, delivery.body.replace('r1', 'r2'))).status,
      (await post(other.headers, other.body)).status,
      (await post(old.headers, old.body)).status,
    ];
    expect(statuses).toEqual([401, 401, 401]);
    const foreign = await signTestPayload(SECRET, event('evt_foreign', 'other-group'));
    expect((await post(foreign.headers, foreign.body)).status).toBe(403);
    // None of them was claimed: the genuine delivery of that event still goes through.
    expect((await post(delivery.headers, delivery.body)).status).toBe(200);
  });

  it('refuses an oversized body with 413 and another method, without reading either as an event', async () => {
    const delivery = await signTestPayload(SECRET, event('evt_large'));
    expect((await post(delivery.headers, 'x'.repeat(100_000))).status).toBe(413);
    expect((await fetch(server.url)).status).toBe(getStatus);
  });
});
