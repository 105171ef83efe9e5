import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleMenu } from '#local/demo-menu';
import { verifyWebhook } from '#kit';
import { startListen, type ListenProcess } from '../fixtures/listen-process.js';
import { startNpmStart, type NpmStart } from '../fixtures/npm-start.js';
import { TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';
import { eventually } from '../support/eventually.js';

/**
 * `npm run listen` left running while `npm start` restarts under it: a data folder keeps its destination (same id,
 * same secret); a runtime in memory loses it, and the listen registers a new one for the new demo application and
 * says so in one line with the new secret. Either way the next delivery reaches the endpoint, verified.
 */
const ADMIN_KEY = 'listen-restart-admin-key';
const scratch = mkdtempSync(join(tmpdir(), 'listen-restart-'));
const started: NpmStart[] = [];
const listens: ListenProcess[] = [];
type Forwarded = { headers: IncomingHttpHeaders; body: string };
const forwarded: Forwarded[] = [];
let endpoint: Server;
let endpointUrl: string;

/** The environment of this run without the tests' switches, which `npm start` and `npm run listen` do not need. */
function plainEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _ca, WEBHOOK_ALLOW_LOOPBACK: _loopback, ...env } = process.env;
  return { ...env, PORT: '0', LOG_LEVEL: 'SILENT', ADMIN_API_KEY: ADMIN_KEY, ...extra };
}

/** `npm start` with its runtime file; on DynamoDB Local `table` plays the engine's storage (kept or new). */
async function npmStart(args: string[], runtimeFile: string, table: string): Promise<NpmStart> {
  const engine: Record<string, string> = TEST_DYNAMODB_ENDPOINT
    ? { DYNAMODB_ENDPOINT: TEST_DYNAMODB_ENDPOINT, TABLE_NAME: `customer-api-${table}-${process.pid}` }
    : {};
  const runtime = await startNpmStart(args, plainEnv({ CUSTOMER_API_RUNTIME_FILE: runtimeFile, ...engine }));
  started.push(runtime);
  return runtime;
}

beforeAll(async () => {
  endpoint = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      forwarded.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  endpointUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/hook`;
});

afterAll(async () => {
  for (const listen of listens) await listen.stop();
  for (const runtime of started) await runtime.stop();
  await new Promise((resolve) => endpoint?.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

/** Publishes a new menu revision at the demo's New York location; resolves with the delivery the endpoint got. */
async function publishAndReceive(apiUrl: string, price: number): Promise<Forwarded> {
  const before = forwarded.length;
  const put = await fetch(`${apiUrl}/admin/v1/menus/demo-group/nyc-midtown`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(sampleMenu({ price })),
  });
  expect(put.status).toBe(200);
  return eventually(
    () => forwarded[before],
    () => 'no delivery forwarded',
  );
}

async function listenTo(runtime: NpmStart, runtimeFile: string): Promise<ListenProcess> {
  const listen = await startListen(runtimeFile, ['--app', runtime.clientId, '--forward-to', endpointUrl], plainEnv({}));
  listens.push(listen);
  return listen;
}

describe('npm run listen across a restart of npm start', () => {
  it('keeps its destination and secret when the data folder kept them', async () => {
    const runtimeFile = join(scratch, 'data-runtime.json');
    const args = ['--data', join(scratch, 'data')];
    const first = await npmStart(args, runtimeFile, 'kept');
    const listen = await listenTo(first, runtimeFile);
    await first.stop();
    await listen.waitForLine(/^The local runtime stopped; waiting for `npm start` to come back\.$/, 'the stop');
    const second = await npmStart(args, runtimeFile, 'kept');
    await listen.waitForLine(
      new RegExp(
        `^The local runtime restarted \\(pid ${second.child.pid}\\); destination ${listen.destinationId} is still there, with the same secret\\.$`,
      ),
      'the destination kept',
    );
    expect(listen.stdout()).not.toContain('registered');
    const { headers, body } = await publishAndReceive(second.apiUrl, 31);
    expect((await verifyWebhook(listen.secret, headers, body)).ok).toBe(true);
  });

  it('registers a new destination, in one line with its new secret, when a runtime in memory lost it', async () => {
    const runtimeFile = join(scratch, 'memory-runtime.json');
    const first = await npmStart(['--in-memory'], runtimeFile, 'first');
    const listen = await listenTo(first, runtimeFile);
    await first.stop();
    const second = await npmStart(['--in-memory'], runtimeFile, 'second');
    const line = await listen.waitForLine(/^The local runtime restarted without destination /, 'the new registration');
    const [, lost, registered, app, url, secret] =
      /^The local runtime restarted without destination (\S+): registered (\S+) of (\S+) at (\S+); signing secret \(new\): (\S+)$/.exec(
        line,
      )!;
    expect([lost, app, new URL(url!).origin]).toEqual([listen.destinationId, second.clientId, second.info.webhookListenInbox]);
    expect([registered, secret]).toEqual([expect.not.stringMatching(listen.destinationId), expect.not.stringMatching(listen.secret)]);
    const { headers, body } = await publishAndReceive(second.apiUrl, 32);
    expect((await verifyWebhook(secret!, headers, body)).ok).toBe(true);
    expect(await listen.stop()).toBe(0);
    expect(listen.stdout()).toContain(`Removed destination ${registered}.`);
  });
});
