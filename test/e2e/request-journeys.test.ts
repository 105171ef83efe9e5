import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, repositories } from '#lambdas/bevq/bevq';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { publishMenu } from '#lambdas/webhooks/publish';
import { createHandler as createTokenHandler, repositories as tokenRepositories } from '#lambdas/token/token';
import { createDb, storeOf } from '#data/store';
import { TOKEN_PATH } from '#contract/routes';
import { apiGatewayEvent } from '../support/api-gateway.js';
import { ownFunctions, type ScriptCoverage } from '../support/coverage.js';
import { newApp, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * How many project files a warm request runs, measured rather than argued: V8's precise coverage counts every call
 * of every function in this process while a function answers, in-process, over the test runtime's engine
 * (dynalite, or DynamoDB Local under test:aws-engine): the bevq function `GET /v1/{g}/{l}/bevq/menu` with a valid
 * token, and the token function `POST /oauth/token` with a client's credentials.
 *
 * What is counted: files under lambdas/ with a function other than the module's top level called at least once,
 * from the Lambda entry to the answer (authorization included: one union). The first call warms the process (module
 * top levels, the token key cache, the location's zone) and its counts are discarded, so what remains is what a warm
 * Lambda runs per request.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PATH = '/v1/demo-group/denver-union/bevq/menu';
const TEMPLATE = '/v1/{group_id}/{location_id}/bevq/menu';
/** The journeys' ceilings: a reader follows a request through at most this many files (a bound only ever lowered). */
const MAX_READ_FILES = 10;
const MAX_TOKEN_FILES = 9;

let runtime: LocalRuntime;
let token: string;
let client: { clientId: string; clientSecret: string };
const session = new Session();

beforeAll(async () => {
  // No webhook event source and no sweep while measuring: nothing else of lambdas/ runs in this process meanwhile.
  runtime = await startTestRuntime({ deliverWebhooks: false, sweepEveryMs: 3_600_000 });
  ({ token } = await tokenFor(runtime, { scopes: ['bevq:read'] }));
  client = await newApp(runtime);
  await publishMenu(runtime.deps, { groupId: 'demo-group', locationId: 'denver-union', menu: sampleMenu() });
  session.connect();
  await session.post('Profiler.enable');
  // Keeps every script's source, to tell a module's export getters from its code.
  await session.post('Debugger.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
});
afterAll(async () => {
  await session.post('Profiler.stopPreciseCoverage').catch(() => undefined);
  session.disconnect();
  await runtime?.stop();
});

/** As API Gateway (payload 1.0) hands the request to the function: the matched template and its parameters. */
const event = () => apiGatewayEvent('GET', TEMPLATE, PATH, { headers: { Authorization: `Bearer ${token}`, 'X-Forwarded-Proto': 'https' } });
const context = { functionName: 'bevq', awsRequestId: 'journey', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

/** Calls per function (by file and offset) since the last take; the module top levels and export getters left out. */
async function takeCalls(): Promise<Map<string, number>> {
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as unknown as { result: ScriptCoverage[] };
  const calls = new Map<string, number>();
  for (const script of result) {
    const file = script.url.startsWith('file://') ? fileURLToPath(script.url) : script.url;
    const path = relative(ROOT, file.split('?')[0]!);
    if (!path.startsWith('lambdas/')) continue;
    for (const { startOffset, count } of await ownFunctions(session, script)) {
      if (count > 0) calls.set(`${path}#${startOffset}`, (calls.get(`${path}#${startOffset}`) ?? 0) + count);
    }
  }
  return calls;
}
const filesOf = (keys: Iterable<string>) => [...new Set([...keys].map((key) => key.split('#')[0]!))].sort();

/** The files a warm call of `handle` runs, less the module top levels; the first call warms and is discarded. */
async function filesRunBy(handle: () => Promise<{ statusCode: number }>): Promise<string[]> {
  expect((await handle()).statusCode).toBe(200);
  await takeCalls();
  expect((await handle()).statusCode).toBe(200);
  return filesOf((await takeCalls()).keys());
}

describe('the journeys of a read and of a token', () => {
  it(`GET /v1/{group_id}/{location_id}/bevq/menu runs at most ${MAX_READ_FILES} files, authorization included`, async () => {
    // The store the bevq Lambda builds (its repositories only), over the runtime's table.
    const deps = { ...runtime.deps, store: storeOf(createDb(runtime.tableName, runtime.dynamo), repositories) as typeof runtime.store };
    const handler = createHandler(deps);
    const files = await filesRunBy(() => handler(event(), context));
    console.log(`read (${files.length}):\n  ${files.join('\n  ')}`);
    expect(files).toContain('lambdas/platform/auth.ts');
    expect(files.length).toBeLessThanOrEqual(MAX_READ_FILES);
  });

  it(`POST /oauth/token runs at most ${MAX_TOKEN_FILES} files`, async () => {
    const deps = {
      ...runtime.deps,
      store: storeOf(createDb(runtime.tableName, runtime.dynamo), tokenRepositories) as typeof runtime.store,
    };
    const handler = createTokenHandler(deps);
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const tokenEvent = () =>
      apiGatewayEvent('POST', TOKEN_PATH, TOKEN_PATH, {
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-Proto': 'https' },
        body: 'grant_type=client_credentials',
      });
    const files = await filesRunBy(() => handler(tokenEvent(), { ...context, functionName: 'token' }));
    console.log(`token (${files.length}):\n  ${files.join('\n  ')}`);
    expect(files).toContain('lambdas/token/token.ts');
    expect(files.length).toBeLessThanOrEqual(MAX_TOKEN_FILES);
  });
});
