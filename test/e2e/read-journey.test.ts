import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHandler, operations, repositories } from '#lambdas/bevq/bevq';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { publishMenu } from '#lambdas/webhooks/publish';
import { authorize } from '#platform/auth';
import { rateLeases } from '#data/rate-counters';
import { createDb, storeOf } from '#data/store';
import { BEVQ_ROUTES } from '#lambdas/bevq/routes';
import { apiGatewayEvent } from '../support/api-gateway.js';
import { ownFunctions, type ScriptCoverage } from '../support/coverage.js';
import { startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * How many project files one /v1 read runs, measured rather than argued: V8's
 * precise coverage counts every call of every function in this process while
 * the bevq function answers `GET /v1/{g}/{l}/bevq/menu` once, in-process,
 * over the test runtime's engine (dynalite, or DynamoDB Local under
 * test:aws-engine) with a valid token.
 *
 * What is counted: files under lambdas/ with a function other than the
 * module's top level called at least once. The first call warms the process
 * (module top levels, the token key cache, the location's zone) and its
 * counts are discarded, so what remains is what a warm Lambda runs per read.
 *
 * Two numbers, from two measurements: the auth path is every file a call of
 * authorize() alone runs with the same token, path and read-ahead; the read
 * is every file that runs a function more often in the whole request than in
 * authorize() alone (the entry, the shell, the pipeline, the operation, the
 * store and the DynamoDB call and back). A file both use is in both.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PATH = '/v1/demo-group/denver-union/bevq/menu';
const TEMPLATE = '/v1/{group_id}/{location_id}/bevq/menu';
const PARAMS = { group_id: 'demo-group', location_id: 'denver-union' };
/** The journey's ceilings: a reader follows the read through at most this many files, and authorization through these. */
const MAX_READ_FILES = 8;
const MAX_AUTH_FILES = 9;

let runtime: LocalRuntime;
let token: string;
const session = new Session();

beforeAll(async () => {
  // No webhook event source and no sweep while measuring: nothing else of lambdas/ runs in this process meanwhile.
  runtime = await startTestRuntime({ deliverWebhooks: false, sweepEveryMs: 3_600_000 });
  ({ token } = await tokenFor(runtime, { scopes: ['bevq:read'] }));
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

describe('the read journey of GET /v1/{group_id}/{location_id}/bevq/menu', () => {
  it(`runs at most ${MAX_READ_FILES} files for the read and ${MAX_AUTH_FILES} for its authorization`, async () => {
    // The store the bevq Lambda builds (its repositories only), over the runtime's table.
    const deps = { ...runtime.deps, store: storeOf(createDb(runtime.tableName, runtime.dynamo), repositories) as typeof runtime.store };
    const handler = createHandler(deps);
    expect((await handler(event(), context)).statusCode).toBe(200);
    await takeCalls();

    const reply = await handler(event(), context);
    expect(reply.statusCode).toBe(200);
    const whole = await takeCalls();

    // authorize() as the pipeline calls it: the function's store, the route, the operation's read-ahead.
    const route = BEVQ_ROUTES.find((r) => r.path === TEMPLATE)!;
    const now = deps.clock.now();
    const ahead = operations.bevqMenu!.reads!({ params: PARAMS, query: {}, now, timezone: 'America/Denver', header: () => undefined });
    // A function instance's leases, in the state the handler's were at its second request: one request before.
    const leases = rateLeases();
    await authorize(deps, leases, route, PARAMS, `Bearer ${token}`, now, ahead);
    await takeCalls();
    await authorize(deps, leases, route, PARAMS, `Bearer ${token}`, now, ahead);
    const auth = await takeCalls();

    const read = filesOf([...whole].filter(([key, count]) => count > (auth.get(key) ?? 0)).map(([key]) => key));
    const authPath = filesOf(auth.keys());
    console.log(`read (${read.length}):\n  ${read.join('\n  ')}\nauth path (${authPath.length}):\n  ${authPath.join('\n  ')}`);
    expect(read.length).toBeLessThanOrEqual(MAX_READ_FILES);
    expect(authPath.length).toBeLessThanOrEqual(MAX_AUTH_FILES);
  });
});
