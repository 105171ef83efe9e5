import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { controlledResolver } from '../../../test/fixtures/webhook-receiver.js';
import { adminCall, newApp, startTestRuntime } from '../../../test/support/runtime.js';
import { menuWebhookHandler } from '../examples/node-http.js';
import { createCustomerApiClient, memoryDedupe, memoryMenuStore, type MenuCopy } from '../src/index.js';

/**
 * The service's own deliveries, signed by its deliverer, received by the kit: the Node example behind HTTPS (the
 * test certificate for hooks.example.test, trusted through NODE_EXTRA_CA_CERTS) verifies each and syncs the menu.
 */
const TLS = {
  key: readFileSync(new URL('../../../test/fixtures/tls/server-key.pem', import.meta.url)),
  cert: readFileSync(new URL('../../../test/fixtures/tls/server.pem', import.meta.url)),
};
const dns = controlledResolver({ 'hooks.example.test': ['127.0.0.1'] });

let runtime: LocalRuntime;
let server: Server;
let handle: RequestListener = (_req, res) => void res.writeHead(503).end();
const answered: number[] = [];

beforeAll(async () => {
  runtime = await startTestRuntime({ resolver: dns.resolver, config: { webhookAllowLoopback: true, webhookTimeScale: 0.2 } });
  server = createServer(TLS, (req, res) => {
    res.on('finish', () => answered.push(res.statusCode));
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await runtime?.stop();
});

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a real delivery from the local runtime to the kit', () => {
  it('verifies the service signature, syncs the published revision, and takes a Send test without a read', async () => {
    const { clientId, clientSecret } = await newApp(runtime, { scopes: ['bevq:read'] });
    const url = `https://hooks.example.test:${(server.address() as AddressInfo).port}/hooks/menu`;
    const added = await adminCall(runtime, 'POST', '/destinations', { clientId, name: 'Kit receiver', url, locationIds: ['denver-union'] });
    expect(added.status).toBe(201);
    const created = added.body as { signingSecret: string; destination: { destinationId: string } };
    const store = memoryMenuStore();
    const client = createCustomerApiClient({ baseUrl: runtime.url, clientId, clientSecret });
    handle = menuWebhookHandler({
      secret: created.signingSecret,
      scope: { groupId: 'demo-group', locationIds: ['denver-union'] },
      dedupe: memoryDedupe(),
      client,
      store,
    });

    expect((await adminCall(runtime, 'PUT', '/menus/demo-group/denver-union', sampleMenu())).status).toBe(200);
    const copy = await until<MenuCopy>('the menu synced', () => store.get('demo-group', 'denver-union'));
    const published = await adminCall(runtime, 'GET', '/menus?groupId=demo-group');
    expect(JSON.stringify(published.body)).toContain(copy.revision);
    expect(answered).toEqual([200]);

    const tested = await adminCall(runtime, 'POST', `/destinations/${created.destination.destinationId}/test`, {
      locationId: 'denver-union',
    });
    expect(tested.status).toBe(202);
    await until('the test delivery answered', async () => (answered.length === 2 ? true : undefined));
    expect(answered).toEqual([200, 200]);
    expect(await store.get('demo-group', 'denver-union')).toBe(copy);
  });
});
