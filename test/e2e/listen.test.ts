import { mkdtempSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { sampleMenu } from '#local/demo-menu';
import { verifyWebhook } from '#kit';
import { adminCall, newApp, startTestRuntime } from '../support/runtime.js';
import { runtimeFileFor } from '../fixtures/admin-cli.js';
import { startListen, type ListenProcess } from '../fixtures/listen-process.js';

// Backoffs of 3–4.5 s and a 1 s attempt timeout: one retry inside the test, with room for a loaded machine.
const SCALE = 0.1;

type Forwarded = { headers: IncomingHttpHeaders; body: string };

let runtime: LocalRuntime;
let runtimeFile: string;
let endpoint: Server;
let endpointUrl: string;
const forwarded: Forwarded[] = [];
/** The endpoint's answers in order: the first delivery fails once, everything after succeeds. */
const answers = [500];

beforeAll(async () => {
  runtime = await startTestRuntime({ config: { webhookAllowLoopback: true, webhookTimeScale: SCALE } });
  runtimeFile = runtimeFileFor(runtime, mkdtempSync(join(tmpdir(), 'listen-')), 'runtime.json');
  endpoint = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      forwarded.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise((resolve) => endpoint?.close(resolve));
  await runtime?.stop();
});

async function waitForForwarded(count: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (forwarded.length < count) {
    if (Date.now() > deadline) throw new Error(`endpoint got ${forwarded.length} of ${count} requests`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('npm run listen', () => {
  let listen: ListenProcess;
  let clientId: string;

  it('registers a loopback destination for the application and prints its secret once', async () => {
    ({ clientId } = await newApp(runtime, { scopes: ['bevq:read'] }));
    listen = await startListen(runtimeFile, ['--app', clientId, '--forward-to', endpointUrl]);
    const { body } = await adminCall(runtime, 'GET', `/destinations?clientId=${clientId}`);
    expect(body.destinations.map((d: { destinationId: string; url: string }) => [d.destinationId, new URL(d.url).hostname])).toEqual([
      [listen.destinationId, '127.0.0.1'],
    ]);
    expect(listen.stdout().split(listen.secret)).toHaveLength(2);
  });

  it("forwards a published menu's delivery with its exact body and signature headers; the endpoint's 500 makes the service retry", async () => {
    expect((await adminCall(runtime, 'PUT', '/menus/demo-group/nyc-midtown', sampleMenu())).status).toBe(200);
    await waitForForwarded(2);
    const [failed, retried] = forwarded as [Forwarded, Forwarded];
    for (const { headers, body } of [failed, retried]) {
      expect(headers['x-service-event']).toBe('bevq.menu.updated');
      expect(headers['content-type']).toBe('application/json; charset=utf-8');
      // The exact bytes the service signed: the signature verifies over the forwarded body.
      expect((await verifyWebhook(listen.secret, headers, body)).ok).toBe(true);
      expect(JSON.parse(body)).toMatchObject({ eventType: 'bevq.menu.updated', groupId: 'demo-group', locationId: 'nyc-midtown' });
    }
    const eventId = failed.headers['x-service-event-id'] as string;
    expect(retried.headers['x-service-event-id']).toBe(eventId);
    expect(retried.body).toBe(failed.body);
    await listen.waitForLine(
      new RegExp(`${eventId}  bevq\\.menu\\.updated  demo-group/nyc-midtown  verified yes  -> 200$`),
      "the retry's line",
    );
    expect(listen.stdout()).toMatch(new RegExp(`${eventId}  bevq\\.menu\\.updated  demo-group/nyc-midtown  verified yes  -> 500\\n`));
    const { body } = await adminCall(runtime, 'GET', `/destinations/${listen.destinationId}/deliveries`);
    expect(body.deliveries.map((d: { eventId: string; status: string; attempts: number }) => [d.eventId, d.status, d.attempts])).toEqual([
      [eventId, 'SUCCEEDED', 2],
    ]);
  });

  it('answers 502 while the endpoint is unreachable, so the service records a failed attempt', async () => {
    await new Promise((resolve) => endpoint.close(resolve));
    expect((await adminCall(runtime, 'PUT', '/menus/demo-group/nyc-midtown', sampleMenu({ price: 12 }))).status).toBe(200);
    await listen.waitForLine(/  -> 502 \(endpoint unreachable\)$/, 'a 502 line');
    await new Promise<void>((resolve) => endpoint.listen(Number(new URL(endpointUrl).port), '127.0.0.1', resolve));
  });

  it('removes its destination when it exits on SIGTERM', async () => {
    expect(await listen.stop()).toBe(0);
    expect(listen.stdout()).toContain(`Removed destination ${listen.destinationId}.`);
    const { body } = await adminCall(runtime, 'GET', `/destinations?clientId=${clientId}`);
    expect(body.destinations).toEqual([]);
  });

  it('refuses a runtime that does not allow loopback destinations, naming the command that does, and a mistyped flag', async () => {
    const closed = runtimeFileFor(runtime, mkdtempSync(join(tmpdir(), 'listen-')), 'runtime.json', { webhookAllowLoopback: false });
    await expect(startListen(closed, ['--app', clientId, '--forward-to', endpointUrl])).rejects.toThrow(/npm run start:listen/);
    await expect(startListen(runtimeFile, ['--app', clientId, '--forward-too', endpointUrl])).rejects.toThrow(
      /Unknown option '--forward-too'\nusage: npm run listen/,
    );
  });
});
