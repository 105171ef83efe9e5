import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { startLocalRuntime, type LocalRuntime } from '#local/runtime';
import { call, exchange, manualClock, newApp, rateCount, startTestRuntime, TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';
import { PATIENCE_MS } from '../support/eventually.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'customer-api-local-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// On the engine under test: with TEST_DYNAMODB_ENDPOINT, `npm start` runs as `DYNAMODB_ENDPOINT=… npm start`.
const tableName = `customer-api-start-${process.pid}`;
const engineEnv = TEST_DYNAMODB_ENDPOINT ? { DYNAMODB_ENDPOINT: TEST_DYNAMODB_ENDPOINT, TABLE_NAME: tableName } : {};

/** Runs the real `npm start` entry point until it prints its banner. */
function start(dataDir: string, runtimeFile: string): Promise<{ child: ChildProcess; output: () => string; url: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts', '--data', dataDir], {
    cwd: ROOT,
    env: { ...process.env, ...engineEnv, PORT: '0', LOG_LEVEL: 'SILENT', CUSTOMER_API_RUNTIME_FILE: runtimeFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no banner:\n${output}`)), PATIENCE_MS);
    child.stdout.on('data', () => {
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url && output.includes('curl -s')) {
        clearTimeout(timer);
        resolve({ child, output: () => output, url });
      }
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}:\n${output}`)));
  });
}

function interrupt(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (code) => resolve(code));
    child.kill('SIGINT');
  });
}

describe('npm start', () => {
  it('prints working demo credentials, stops cleanly on Ctrl-C and keeps its data across a restart', async () => {
    const dataDir = join(scratch, 'data');
    const runtimeFile = join(scratch, 'runtime.json');
    const first = await start(dataDir, runtimeFile);
    const clientId = /client_id +(\S+)/.exec(first.output())![1]!;
    const clientSecret = /client_secret +(\S+)/.exec(first.output())![1]!;
    expect(existsSync(runtimeFile)).toBe(true);

    // The printed curl line's form post, as a customer would paste it.
    const issued = await fetch(`${first.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    });
    const { access_token } = (await issued.json()) as { access_token: string };
    const listed = await fetch(`${first.url}/v1/demo-group/locations`, { headers: { Authorization: `Bearer ${access_token}` } });
    expect(listed.status).toBe(200);

    expect(await interrupt(first.child)).toBe(0);
    expect(existsSync(runtimeFile)).toBe(false);

    const second = await start(dataDir, runtimeFile);
    try {
      expect(second.output()).toContain(clientId);
      const again = await fetch(`${second.url}/v1/demo-group/locations`, { headers: { Authorization: `Bearer ${access_token}` } });
      expect(again.status).toBe(200);
    } finally {
      expect(await interrupt(second.child)).toBe(0);
    }
  });
});

describe('ready means ready', () => {
  it('holds every request until the runtime is opened (npm start opens once its runtime file is written)', async () => {
    const runtime = await startTestRuntime({ holdRequests: true });
    try {
      let answered = false;
      const reply = fetch(`${runtime.url}/v1/openapi.json`).then((r) => {
        answered = true;
        return r.status;
      });
      await new Promise((r) => setTimeout(r, 300));
      expect(answered).toBe(false);
      runtime.open();
      expect(await reply).toBe(200);
    } finally {
      await runtime.stop();
    }
  });
});

describe('external engines', () => {
  it('creates its table and queues in engines it is pointed at, and serves from them', async () => {
    // The host's own engines on both passes: the guest reaches them as external engines.
    const host = await startLocalRuntime({ port: 0, dataDir: null, logLevel: 'SILENT' });
    // External engines take credentials from the usual AWS chain: here the credential of the host's engines.
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = host.engines.credentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = host.engines.credentials.secretAccessKey;
    const guest = await startLocalRuntime({
      port: 0,
      dataDir: null,
      logLevel: 'SILENT',
      tableName: 'customer-api-guest',
      dynamoEndpoint: host.engines.dynamoEndpoint,
      sqsEndpoint: host.engines.sqsEndpoint,
    });
    try {
      expect(guest.engines.dynamoEndpoint).toBe(host.engines.dynamoEndpoint);
      expect(guest.queues.webhookQueueUrl).toContain('customer-api-guest-webhooks');
      const app = await newApp(guest);
      const { access_token } = await exchange(guest, app.clientId, app.clientSecret);
      expect((await call(guest, '/v1/demo-group/locations', { token: access_token })).status).toBe(200);
      // Same engine, separate table: the host never saw the guest's application.
      expect(await host.store.apps.get(app.clientId)).toBeNull();
    } finally {
      await guest.stop();
      await host.stop();
      restoreEnv('AWS_ACCESS_KEY_ID', saved.id);
      restoreEnv('AWS_SECRET_ACCESS_KEY', saved.secret);
    }
  });
});

function restoreEnv(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

describe('item expiry (TTL)', () => {
  const expiry = async (runtime: LocalRuntime) =>
    (await runtime.dynamo.send(new DescribeTimeToLiveCommand({ TableName: runtime.tableName }))).TimeToLiveDescription?.TimeToLiveStatus;

  it('is on where the runtime keeps real time, as the stack sets it', async () => {
    const runtime = await startTestRuntime();
    try {
      // dynalite answers the question but refuses to turn TTL on (it never deletes).
      expect(await expiry(runtime)).toBe(TEST_DYNAMODB_ENDPOINT ? 'ENABLED' : 'DISABLED');
    } finally {
      await runtime.stop();
    }
  });

  it('is off on a clock moved by hand, so the engine never deletes what that clock says is live', async () => {
    // Two days behind the machine: every TTL written by this runtime (a rate counter keeps 1 h) is past for the engine.
    const clock = manualClock(Date.now() - 2 * 86_400_000);
    const runtime = await startTestRuntime({ clock });
    try {
      expect(await expiry(runtime)).not.toBe('ENABLED');
      const app = await newApp(runtime);
      const { access_token } = await exchange(runtime, app.clientId, app.clientSecret);
      expect((await call(runtime, '/v1/demo-group/locations', { token: access_token })).status).toBe(200);
      // DynamoDB Local deletes an item past its TTL within about a second when TTL is on.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await rateCount(runtime, app.clientId)).toBe(1);
    } finally {
      await runtime.stop();
    }
  });
});
