import { type ChildProcess } from 'node:child_process';
import { overrunsOf } from '../fixtures/wait-for-delivery.js';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMenu } from '#local/demo-menu';
import type { RuntimeFile } from '#local/runtime-file';
import { LISTEN_INBOX_TLS } from '#local/listen-inbox';
import { verifyWebhook } from '#kit';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDb, storeOf } from '#data/store';
import { localEndpoint } from '#local/endpoints';
import { WEBHOOK_REPOSITORIES } from '#lambdas/webhooks/deps';
import { admin } from '../fixtures/admin-cli.js';
import { startListen, type ListenProcess } from '../fixtures/listen-process.js';
import { startNpmStart, type NpmStart } from '../fixtures/npm-start.js';
import { TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';
import { eventually } from '../support/eventually.js';

/**
 * `npm start`, then `npm run listen`, as a new user runs them: the runtime is bin/local.ts started with no switch
 * about loopback or trust (WEBHOOK_ALLOW_LOOPBACK and NODE_EXTRA_CA_CERTS are taken out of its environment); only
 * WEBHOOK_TIME_SCALE shortens the delivery policy's waits so a retry fits in the test. A second runtime, given the
 * tests' WEBHOOK_ALLOW_LOOPBACK=1, shows the inbox's certificate is trusted at the inbox's origin only.
 */

// Backoffs of 3–4.5 s and a 1 s attempt timeout: one retry inside the test, with room for a loaded machine.
const SCALE = '0.1';
const ADMIN_KEY = 'listen-test-admin-key';

type Forwarded = { headers: IncomingHttpHeaders; body: string };

const scratch = mkdtempSync(join(tmpdir(), 'listen-'));
const runtimeFile = join(scratch, 'runtime.json');
let runtimeInfo: RuntimeFile;
let apiUrl: string;
let clientId: string;
let endpoint: Server;
let endpointUrl: string;
const forwarded: Forwarded[] = [];
/** The endpoint's answers in order: the first delivery fails once, everything after succeeds. */
const answers = [500];

/** The environment of this test run without the switches `npm start` no longer needs. */
function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _ca, WEBHOOK_ALLOW_LOOPBACK: _loopback, ...env } = process.env;
  return { ...env, ...extra };
}

type Runtime = NpmStart;
/** Every runtime started, stopped after the tests. */
const children: ChildProcess[] = [];
/** Runtimes asked for so far: each gets a table of its own on DynamoDB Local, also when started together. */
let starts = 0;

/** bin/local.ts as `npm start` runs it, in memory, in the environment given, once its banner is out. */
async function startRuntime(file: string, env: NodeJS.ProcessEnv): Promise<Runtime> {
  const engine: Record<string, string> = TEST_DYNAMODB_ENDPOINT
    ? { DYNAMODB_ENDPOINT: TEST_DYNAMODB_ENDPOINT, TABLE_NAME: `customer-api-listen-${process.pid}-${starts++}` }
    : {};
  const runtime = await startNpmStart(['--in-memory'], {
    ...env,
    PORT: '0',
    LOG_LEVEL: 'SILENT',
    CUSTOMER_API_RUNTIME_FILE: file,
    ADMIN_API_KEY: ADMIN_KEY,
    WEBHOOK_TIME_SCALE: SCALE,
    ...engine,
  });
  children.push(runtime.child);
  return runtime;
}

let loopbackRuntime: Runtime;

beforeAll(async () => {
  let plain: Runtime;
  // The tests' own switch WEBHOOK_ALLOW_LOOPBACK=1 opens all of 127.0.0.0/8, still without the test CA in the process.
  [plain, loopbackRuntime] = await Promise.all([
    startRuntime(runtimeFile, plainEnv()),
    startRuntime(join(scratch, 'loopback-runtime.json'), plainEnv({ WEBHOOK_ALLOW_LOOPBACK: '1' })),
  ]);
  ({ info: runtimeInfo, apiUrl, clientId } = plain);

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
  for (const child of children) {
    if (child.exitCode !== null) continue;
    child.kill('SIGINT');
    await once(child, 'exit');
  }
  rmSync(scratch, { recursive: true, force: true });
});

async function adminCall(method: string, path: string, body?: unknown, url = apiUrl): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

const waitFor = <T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> =>
  eventually(probe, () => `${what}: not seen`);

describe('npm run listen after a plain npm start', () => {
  let listen: ListenProcess;

  it("registers a destination at the inbox the runtime reserved, prints its secret once, and is the inbox's only listener", async () => {
    expect(runtimeInfo.webhookListenInbox).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(runtimeInfo.webhookAllowLoopback).toBe(false);
    listen = await startListen(runtimeFile, ['--app', clientId, '--forward-to', endpointUrl], plainEnv());
    const { body } = await adminCall('GET', `/destinations?clientId=${clientId}`);
    // A path of its own, new for every listen, at the inbox's origin.
    expect(body.destinations.map((d: { destinationId: string; url: string }) => [d.destinationId, d.url])).toEqual([
      [listen.destinationId, expect.stringMatching(new RegExp(`^${runtimeInfo.webhookListenInbox}/listen/[0-9a-f]{24}$`))],
    ]);
    expect(listen.stdout().split(listen.secret)).toHaveLength(2);
    await expect(startListen(runtimeFile, ['--app', clientId, '--forward-to', endpointUrl], plainEnv())).rejects.toThrow(
      /inbox address 127\.0\.0\.1:\d+ is in use/,
    );
  });

  it("forwards a published menu's delivery with its exact body and headers; the endpoint's 500 makes the service retry", async () => {
    expect((await adminCall('PUT', '/menus/demo-group/nyc-midtown', sampleMenu({ price: 11 }))).status).toBe(200);
    await waitFor('two forwarded requests', () => (forwarded.length >= 2 ? true : undefined));
    const [failed, retried] = forwarded as [Forwarded, Forwarded];
    for (const { headers, body } of [failed, retried]) {
      // What the service sent, and only that: its own headers, the hop's Host, Connection and Content-Length.
      expect(Object.keys(headers).sort()).toEqual([
        'connection',
        'content-length',
        'content-type',
        'host',
        'user-agent',
        'x-service-event',
        'x-service-event-id',
        'x-service-signature',
        'x-service-timestamp',
      ]);
      expect(headers['x-service-event']).toBe('bevq.menu.updated');
      expect(headers['content-type']).toBe('application/json; charset=utf-8');
      expect(headers['user-agent']).toBe('Service-Customer-API-Webhooks/1.0');
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
    const delivered = await waitFor('the delivery recorded as succeeded', async () => {
      const { body } = await adminCall('GET', `/destinations/${listen.destinationId}/deliveries`);
      const found = body.deliveries.find((d: { eventId: string }) => d.eventId === eventId);
      return found?.status === 'SUCCEEDED' ? found : undefined;
    });
    expect(delivered.attempts).toBe(2);
  });

  it('answers 502 while the endpoint is unreachable, so the service records a failed attempt', async () => {
    await new Promise((resolve) => endpoint.close(resolve));
    expect((await adminCall('PUT', '/menus/demo-group/nyc-midtown', sampleMenu({ price: 12 }))).status).toBe(200);
    await listen.waitForLine(/  -> 502 \(endpoint unreachable\)$/, 'a 502 line');
    await new Promise<void>((resolve) => endpoint.listen(Number(new URL(endpointUrl).port), '127.0.0.1', resolve));
  });

  it('trusts only its own destination: another path at the inbox gets 404, its own path under another secret 401, neither forwarded', async () => {
    const { body } = await adminCall('GET', `/destinations?clientId=${clientId}`);
    const ownUrl = body.destinations[0].url as string;
    const added = [];
    // Another destination at the inbox, on the path every listen used before; another at this listen's very URL.
    for (const url of [`${runtimeInfo.webhookListenInbox}/listen`, ownUrl]) {
      const saved = await adminCall('POST', '/destinations', { clientId, name: 'not the listen', url });
      expect(saved.status).toBe(201);
      added.push(saved.body.destination.destinationId as string);
    }
    try {
      const [otherPath, sameUrl] = added as [string, string];
      const ownDeliveries = async () =>
        (await adminCall('GET', `/destinations/${listen.destinationId}/deliveries`)).body.deliveries as {
          eventId: string;
          status: string;
        }[];
      const earlier = new Set((await ownDeliveries()).map((d) => d.eventId));
      expect((await adminCall('PUT', '/menus/demo-group/nyc-midtown', sampleMenu({ price: 15 }))).status).toBe(200);
      const eventId = await waitFor(
        "this listen's own delivery, delivered",
        async () => (await ownDeliveries()).find((d) => d.status === 'SUCCEEDED' && !earlier.has(d.eventId))?.eventId,
      );
      for (const [destinationId, errorCode] of [
        [otherPath, 'http_404'],
        [sameUrl, 'http_401'],
      ] as const) {
        const attempt = await waitFor(`the attempt at ${destinationId}`, async () => {
          const { body: listed } = await adminCall('GET', `/destinations/${destinationId}/deliveries`);
          return listed.deliveries.find((d: { errorCode: string | null }) => d.errorCode !== null);
        });
        expect([attempt.eventId, attempt.status, attempt.errorCode]).toEqual([eventId, expect.not.stringMatching(/SUCCEEDED/), errorCode]);
      }
      await listen.waitForLine(
        new RegExp(`${eventId}  bevq\\.menu\\.updated  -  not this listen's destination \\(POST /listen\\)  -> 404 \\(not forwarded\\)$`),
        'the 404 line',
      );
      await listen.waitForLine(
        new RegExp(`${eventId}  bevq\\.menu\\.updated  -  verified no \\([^)]+\\)  -> 401 \\(not forwarded\\)$`),
        'the 401 line',
      );
      // Only what verifies with this listen's secret reached the endpoint.
      for (const { headers, body: sent } of forwarded) expect((await verifyWebhook(listen.secret, headers, sent)).ok).toBe(true);
    } finally {
      for (const destinationId of added) {
        const removed = await fetch(`${apiUrl}/admin/v1/destinations/${destinationId}`, {
          method: 'DELETE',
          headers: { Authorization: `Bearer ${ADMIN_KEY}` },
        });
        expect(removed.status).toBe(204);
      }
    }
  });

  it('leaves every other loopback URL refused: on save through the API and the CLI, and before an attempt', async () => {
    const inbox = new URL(runtimeInfo.webhookListenInbox!);
    for (const url of [`https://127.0.0.1:${new URL(endpointUrl).port}/hook`, `https://localhost:${inbox.port}/listen`]) {
      const saved = await adminCall('POST', '/destinations', { clientId, name: 'plain loopback', url });
      expect([saved.status, saved.body.error?.message], url).toEqual([400, expect.stringMatching(/^url refused: url host is a loopback/)]);
    }
    const cli = await admin(runtimeFile, [
      'destinations',
      'add',
      '--app',
      clientId,
      '--name',
      'x',
      '--url',
      `https://127.0.0.2:${inbox.port}/`,
    ]);
    expect([cli.code, cli.stderr]).toEqual([2, expect.stringContaining('url refused: url host is a loopback address')]);

    // A loopback URL written straight into the table, past the save check, is refused by the deliverer itself.
    const other = `https://127.0.0.1:${new URL(endpointUrl).port}/hook`;
    const info = JSON.parse(readFileSync(runtimeFile, 'utf8')) as RuntimeFile;
    const dynamodb = new DynamoDBClient(localEndpoint(info.dynamoEndpoint, info.region, info.externalDynamo ? null : info.credentials));
    try {
      const store = storeOf(createDb(info.tableName, dynamodb), WEBHOOK_REPOSITORIES);
      expect(await store.destinations.update(listen.destinationId, { url: other, hostname: '127.0.0.1' })).not.toBeNull();
    } finally {
      dynamodb.destroy();
    }
    expect((await adminCall('PUT', '/menus/demo-group/nyc-midtown', sampleMenu({ price: 13 }))).status).toBe(200);
    const refused = await waitFor('an attempt refused for its address', async () => {
      const { body } = await adminCall('GET', `/destinations/${listen.destinationId}/deliveries`);
      return body.deliveries.find((d: { eventId: string; errorCode: string | null }) => d.errorCode === 'blocked_address');
    });
    // Refused for good, without a retry: the address is not one the service will ever connect to. A starved machine can
    // overrun an attempt before the refusal (it times out or its invocation is interrupted); only those add attempts.
    const { body: story } = await adminCall('GET', `/deliveries/${refused.deliveryId}`);
    expect([refused.status, refused.attempts - overrunsOf(story.delivery.timeline)]).toEqual(['FAILED', 1]);
    expect(forwarded.filter((f) => f.headers['x-service-event-id'] === refused.eventId)).toEqual([]);
  });

  it('removes its destination when it exits on SIGTERM', async () => {
    expect(await listen.stop()).toBe(0);
    expect(listen.stdout()).toContain(`Removed destination ${listen.destinationId}.`);
    const { body } = await adminCall('GET', `/destinations?clientId=${clientId}`);
    expect(body.destinations).toEqual([]);
  });

  it('removes the destination a listen killed outright left at the inbox before registering its own', async () => {
    const killed = await startListen(runtimeFile, ['--app', clientId, '--forward-to', endpointUrl], plainEnv());
    killed.child.kill('SIGKILL');
    await once(killed.child, 'exit');
    const next = await startListen(runtimeFile, ['--app', clientId, '--forward-to', endpointUrl], plainEnv());
    try {
      expect(next.stdout()).toContain(`Removed destination ${killed.destinationId}, left at this inbox by an earlier listen`);
      const { body } = await adminCall('GET', `/destinations?clientId=${clientId}`);
      expect(body.destinations.map((d: { destinationId: string }) => d.destinationId)).toEqual([next.destinationId]);
    } finally {
      expect(await next.stop()).toBe(0);
    }
  });

  it('refuses a runtime that reserved no inbox, saying to restart it, and a mistyped flag', async () => {
    const older = join(scratch, 'older-runtime.json');
    const { webhookListenInbox: _inbox, ...rest } = runtimeInfo;
    writeFileSync(older, JSON.stringify(rest));
    await expect(startListen(older, ['--app', clientId, '--forward-to', endpointUrl], plainEnv())).rejects.toThrow(
      /no listen inbox: restart `npm start`/,
    );
    await expect(startListen(runtimeFile, ['--app', clientId, '--forward-too', endpointUrl], plainEnv())).rejects.toThrow(
      /Unknown option '--forward-too'\nusage: npm run listen/,
    );
  });
});

describe("the runtime trusts the inbox's certificate at the inbox alone", () => {
  it('refuses the same certificate at another loopback receiver (a runtime with WEBHOOK_ALLOW_LOOPBACK=1 reaches it)', async () => {
    let requests = 0;
    const receiver = createHttpsServer({ key: LISTEN_INBOX_TLS.key, cert: LISTEN_INBOX_TLS.cert }, (_req, res) => {
      requests++;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { apiUrl: url, clientId: app } = loopbackRuntime;
      const receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const added = await adminCall('POST', '/destinations', { clientId: app, name: 'same certificate', url: receiverUrl }, url);
      expect(added.status).toBe(201);
      expect((await adminCall('PUT', '/menus/demo-group/nyc-midtown', sampleMenu({ price: 14 }), url)).status).toBe(200);
      const failed = await waitFor('a failed TLS handshake', async () => {
        const { body } = await adminCall('GET', `/destinations/${added.body.destination.destinationId}/deliveries`, undefined, url);
        // The first attempt's outcome: an error recorded, or a success the assertion below names.
        return body.deliveries.find((d: { status: string; errorCode: string | null }) => d.errorCode !== null || d.status === 'SUCCEEDED');
      });
      expect([failed.status, failed.errorCode, requests]).toEqual([expect.any(String), 'tls_error', 0]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
