import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { LocalRuntime } from '#local/runtime';
import { launchChromium } from '../support/browser.js';
import { ENGINE_NAME, startTestRuntime } from '../support/runtime.js';

/**
 * The engines the runtime starts answer the runtime alone: a page on another loopback origin (headless Chromium)
 * cannot read the table, the queues or the sent mail, not even with the engines' access key id; a request naming
 * another host (DNS rebinding) or signed with another key is refused. On both engines: dynalite in-process, and
 * DynamoDB Local behind the door local/dynamodb-local.ts puts before it.
 */
let runtime: LocalRuntime;
let browser: Browser;
let page: Page;
let attacker: Server;

type Call = { url: string; method: 'GET' | 'POST'; headers: Record<string, string>; body?: string };
type Answer = { status: number; text: string } | { error: string };

/** Headers of a SigV4-signed call by `keyId`, whose signature no engine checks (see local/engine-door.ts). */
const signed = (keyId: string, service: string) => ({
  'x-amz-date': '20260101T000000Z',
  authorization: `AWS4-HMAC-SHA256 Credential=${keyId}/20260101/us-east-1/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'0'.repeat(64)}`,
});

/** The key id each engine admits: DynamoDB Local's comes to the runtime through the environment (its SDK chain). */
const engineKey = () => runtime.engines.credentials.accessKeyId;
const dynamoKey = () => (runtime.engines.externalDynamo ? process.env.AWS_ACCESS_KEY_ID! : engineKey());

/** DynamoDB's Scan of the runtime's table, signed (but not verifiably) with `keyId`: what the page tried. */
function scan(keyId: string): Call {
  return {
    url: runtime.engines.dynamoEndpoint,
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': 'DynamoDB_20120810.Scan',
      ...signed(keyId, 'dynamodb'),
    },
    body: JSON.stringify({ TableName: runtime.tableName, Limit: 5 }),
  };
}

function listQueues(keyId: string): Call {
  return {
    url: runtime.engines.sqsEndpoint,
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.ListQueues', ...signed(keyId, 'sqs') },
    body: '{}',
  };
}

const sentMail = (): Call => ({ url: `${runtime.engines.sesEndpoint}/store`, method: 'GET', headers: {} });

/** The call from Node, with the Host and other headers given (node:http sends them as they are). */
function fromNode(
  call: Call,
  host?: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: string[] }> {
  return new Promise((resolve, reject) => {
    const url = new URL(call.url);
    const headers = { ...call.headers, ...(host ? { host: `${host}:${url.port}` } : {}), ...extra };
    const req = request(url, { method: call.method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode!, text, headers: Object.keys(res.headers) }));
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

/** The call from the attacker's page, with the browser's fetch: what a script on another origin gets to read. */
function fromPage(call: Call): Promise<Answer> {
  return page.evaluate(async ({ url, method, headers, body }) => {
    try {
      const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
      return { status: response.status, text: await response.text() };
    } catch (err) {
      return { error: String(err) };
    }
  }, call);
}

beforeAll(async () => {
  runtime = await startTestRuntime();
  attacker = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>another app</title>'),
  );
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`);
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => attacker?.close(resolve));
  await runtime?.stop();
});

describe(`the local engines admit the runtime alone (${ENGINE_NAME})`, () => {
  it('answers the calls below from the runtime side: the same Scan, queue list and mailbox read succeed from Node', async () => {
    const table = await fromNode(scan(dynamoKey()));
    expect([table.status, JSON.parse(table.text).Count]).toEqual([200, expect.any(Number)]);
    expect(JSON.parse(table.text).Count).toBeGreaterThan(0);
    expect((await fromNode(listQueues(engineKey()))).status).toBe(200);
    expect((await fromNode(sentMail())).status).toBe(200);
  });

  it('a page on another loopback origin reads nothing: not the table (with any key id, or the real one), the queues or the sent mail', async () => {
    for (const call of [scan('AKIDANYTHING'), scan(dynamoKey()), listQueues(engineKey()), sentMail()]) {
      expect(await fromPage(call), call.url).toEqual({ error: 'TypeError: Failed to fetch' });
    }
  });

  it('answers no call that carries another origin, even with the right key: 403, no Access-Control header', async () => {
    const origin = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    for (const call of [scan(dynamoKey()), listQueues(engineKey()), sentMail()]) {
      const refused = await fromNode(call, undefined, { origin });
      expect([refused.status, JSON.parse(refused.text).message], call.url).toEqual([403, 'Cross-origin requests are refused']);
      expect(
        refused.headers.filter((name) => name.startsWith('access-control-')),
        call.url,
      ).toEqual([]);
      // The engine's own origin, as its own page (the mailbox) sends it, passes.
      expect((await fromNode(call, undefined, { origin: new URL(call.url).origin })).status, call.url).toBe(200);
    }
  });

  it('refuses a request whose Host is not a loopback address with its own port (DNS rebinding), with the right key', async () => {
    for (const call of [scan(dynamoKey()), listQueues(engineKey()), sentMail()]) {
      const refused = await fromNode(call, 'attacker.example');
      expect([refused.status, JSON.parse(refused.text)], call.url).toEqual([
        403,
        { __type: 'AccessDeniedException', message: 'Host must be this engine on a loopback address' },
      ]);
      expect((await fromNode(call, 'localhost')).status, call.url).toBe(200);
    }
  });

  it('refuses a call signed with any other access key id, and sending mail unsigned', async () => {
    const sendMail: Call = {
      url: `${runtime.engines.sesEndpoint}/v2/email/outbound-emails`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ FromEmailAddress: 'a@example.com', Destination: { ToAddresses: ['b@example.com'] }, Content: {} }),
    };
    for (const call of [scan('AKIDANYTHING'), listQueues('AKIDANYTHING'), sendMail]) {
      const refused = await fromNode(call);
      expect([refused.status, JSON.parse(refused.text).message], call.url).toEqual([
        403,
        "The request is not signed with the local runtime's credential",
      ]);
    }
  });
});
