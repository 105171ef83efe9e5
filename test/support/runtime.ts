import { randomUUID } from 'node:crypto';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { appKeys } from '#data/apps';
import { counterKeys, rateWindow } from '#data/rate-counters';
import * as oauth from 'openid-client';
import { expect } from 'vitest';
import { expectContract } from './openapi.js';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '#local/runtime';
import type { Producer } from '#lambdas/producers/routes';
import { createApp } from '#lambdas/admin/apps';
import type { AppInput } from '#domain/inputs';
import type { Clock } from '#platform/deps';

/** A clock tests move by hand. */
export function manualClock(start = Date.UTC(2026, 10, 22, 12, 0, 10)): Clock & { set(ms: number): void; advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    set: (ms) => {
      now = ms;
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/**
 * The DynamoDB engine under test: dynalite in-process by default, or the
 * external engine TEST_DYNAMODB_ENDPOINT names (DynamoDB Local in CI), where
 * every runtime gets a table of its own that is dropped when it stops.
 */
export const TEST_DYNAMODB_ENDPOINT = process.env.TEST_DYNAMODB_ENDPOINT || undefined;
export const ENGINE_NAME = TEST_DYNAMODB_ENDPOINT ? 'DynamoDB Local' : 'dynalite';

/** A real local runtime on a free port, in memory, seeded with the demo group. */
export async function startTestRuntime(options: Partial<LocalRuntimeOptions> = {}): Promise<LocalRuntime> {
  if (!TEST_DYNAMODB_ENDPOINT || options.dynamoEndpoint) {
    return startLocalRuntime({ port: 0, dataDir: null, seed: true, logLevel: 'SILENT', ...options });
  }
  const tableName = options.tableName ?? `customer-api-test-${randomUUID().slice(0, 8)}`;
  const runtime = await startLocalRuntime({
    port: 0,
    dataDir: null,
    seed: true,
    logLevel: 'SILENT',
    dynamoEndpoint: TEST_DYNAMODB_ENDPOINT,
    ...options,
    tableName,
  });
  const stop = runtime.stop;
  runtime.stop = async () => {
    await runtime.dynamo.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    await stop();
  };
  return runtime;
}

/** Creates an application straight in the store (as the admin CLI does) and returns its credentials. */
export async function newApp(runtime: LocalRuntime, input: Partial<AppInput> = {}) {
  const created = await createApp(
    runtime.store,
    { groupId: 'demo-group', name: 'Test app', scopes: ['locations:read'], ...input },
    runtime.deps.clock.now(),
  );
  return { clientId: created.app.clientId, clientSecret: created.clientSecret!, app: created.app };
}

/** Token exchange through a real OAuth 2.0 client library, as a customer backend would do it. */
export async function exchange(runtime: LocalRuntime, clientId: string, clientSecret: string, auth: 'post' | 'basic' = 'post') {
  const config = new oauth.Configuration(
    { issuer: runtime.url, token_endpoint: `${runtime.url}/oauth/token` },
    clientId,
    undefined,
    auth === 'basic' ? oauth.ClientSecretBasic(clientSecret) : oauth.ClientSecretPost(clientSecret),
  );
  oauth.allowInsecureRequests(config);
  return oauth.clientCredentialsGrant(config);
}

export async function tokenFor(runtime: LocalRuntime, input: Partial<AppInput> = {}) {
  const app = await newApp(runtime, input);
  const { access_token } = await exchange(runtime, app.clientId, app.clientSecret);
  return { ...app, token: access_token };
}

export type Reply = { status: number; headers: Headers; body: any; text: string };

/**
 * One HTTP request to the runtime. Every reply is checked against the
 * OpenAPI document, so no end-to-end test can pass with an undocumented shape.
 */
export async function call(runtime: LocalRuntime, path: string, init: RequestInit & { token?: string } = {}): Promise<Reply> {
  const { token, headers, ...rest } = init;
  const response = await fetch(`${runtime.url}${path}`, {
    ...rest,
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...(headers as Record<string, string>) },
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  const reply = { status: response.status, headers: response.headers, body, text };
  expectContract(rest.method ?? 'GET', path, reply);
  return reply;
}

/**
 * One admin API request with the runtime's admin key (the local gateway's stand-in for IAM), as an operator's
 * script sends it: a JSON body (a string is sent as it is, to send malformed JSON), the answer's status, text and
 * parsed body.
 */
export async function adminCall(
  runtime: LocalRuntime,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(`${runtime.url}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${runtime.adminKey}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

/**
 * One producer API request with a producer's key (the local gateway's stand-in for its IAM principal), as a
 * platform's system sends it: a JSON body (a string is sent as it is), the answer's status and parsed body.
 */
export async function producerCall(
  runtime: LocalRuntime,
  producer: Producer | { key: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; text: string }> {
  const key = typeof producer === 'string' ? runtime.producerKeys[producer] : producer.key;
  const response = await fetch(`${runtime.url}/producer/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null, text };
}

/**
 * Waits, if need be, until at least `spanMs` are left in the clock minute: limits counted per fixed UTC minute (the
 * token attempts, an application's rate) then see a test's requests in one window, however busy the machine.
 */
export async function withinOneClockMinute(spanMs = 30_000): Promise<void> {
  const msLeft = 60_000 - (Date.now() % 60_000);
  if (msLeft < spanMs) await new Promise((resolve) => setTimeout(resolve, msLeft + 100));
}

/** Every e-mail the local SES v2 has accepted. */
export async function sentMail(runtime: LocalRuntime): Promise<{ subject: string; to: string[]; text: string }[]> {
  const response = await fetch(`${runtime.engines.sesEndpoint}/store`);
  const { emails } = (await response.json()) as {
    emails: { subject: string; destination: { to: string[] }; body: { text?: string } }[];
  };
  return emails.map((e) => ({ subject: e.subject, to: e.destination.to, text: e.body.text ?? '' }));
}

/** Runs `run` while every DynamoDB command the runtime sends is shown to `see` (its input), then stops watching. */
export async function watchingDynamo<T>(
  runtime: LocalRuntime,
  see: (input: Record<string, any>) => void,
  run: () => Promise<T>,
): Promise<T> {
  const name = `watch-${randomUUID()}`;
  runtime.dynamo.middlewareStack.add((next) => async (args) => (see(args.input as Record<string, any>), next(args)), {
    step: 'initialize',
    name,
  });
  try {
    return await run();
  } finally {
    runtime.dynamo.middlewareStack.remove(name);
  }
}

/** Every item in the runtime's table (test tables are small). */
export async function scanTable(runtime: LocalRuntime): Promise<Record<string, any>[]> {
  // The runtime's own client: DynamoDB Local keeps one database per access key.
  const doc = DynamoDBDocumentClient.from(runtime.dynamo);
  const items: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: runtime.tableName, ExclusiveStartKey }));
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

/**
 * Asserts what a test read back is what it read before (a table, or part of one). Compared as JSON first: vitest's
 * deep equality over a whole table costs seconds of CPU, so it runs only when the two differ, to show how.
 */
export function expectUnchanged(after: unknown, before: unknown): void {
  if (JSON.stringify(after) !== JSON.stringify(before)) expect(after).toEqual(before);
}

/** An application's count in the runtime clock's current window, read straight from the table. */
export async function rateCount(runtime: LocalRuntime, clientId: string): Promise<number> {
  const key = counterKeys.counter('API', clientId, rateWindow(runtime.deps.clock.now()).start);
  const { Item } = await DynamoDBDocumentClient.from(runtime.dynamo).send(
    new GetCommand({ TableName: runtime.tableName, Key: key, ConsistentRead: true }),
  );
  return Number(Item?.count ?? 0);
}

/** An operator changing an application's limit (as the admin API's edit would), straight in the table. */
export async function setRateLimit(runtime: LocalRuntime, clientId: string, limit: number): Promise<void> {
  await DynamoDBDocumentClient.from(runtime.dynamo).send(
    new UpdateCommand({
      TableName: runtime.tableName,
      Key: appKeys.app(clientId),
      UpdateExpression: 'SET rateLimitPerMinute = :l',
      ExpressionAttributeValues: { ':l': limit },
    }),
  );
}
