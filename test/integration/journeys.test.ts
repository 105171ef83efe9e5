import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATUS } from '#lambdas/webhooks/delivery-policy';
import { sampleMenu } from '#local/demo-menu';
import type { LocalRuntime } from '#local/runtime';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { publishMenu } from '#lambdas/webhooks/publish';
import { deliveryIdOf } from '#lambdas/webhooks/messages';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { SEQUENCE_SCALE } from '../fixtures/webhook-scale.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ownFunctions, type ScriptCoverage } from '../support/coverage.js';
import { eventually } from '../support/eventually.js';
import { ENGINE_NAME, newApp, startTestRuntime } from '../support/runtime.js';

/**
 * How many of the project's files one webhook journey runs: a menu publish
 * (the dispatcher function), its fan-out and queue, the deliverer's signed
 * POST that succeeds, and one that is retried until it is a dead letter and
 * its owner's notice is queued.
 * Read from V8's precise coverage in this process: warm once (module loading
 * and first-time paths), reset, run the journey again, and count the files
 * under lambdas/ where a function other than the module's top level ran.
 * Fewer files is a journey a reader can follow; the bound keeps it so, and the journey stays in two rooms: the
 * webhook room and the kernel.
 */
const JOURNEY_FILE_BOUND = 22;
const JOURNEY_ROOMS = /^lambdas\/(webhooks|contract|data|domain|platform)\//;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let runtime: LocalRuntime;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const session = new Session();
let price = 0;

beforeAll(async () => {
  runtime = await startTestRuntime({
    resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
    config: { webhookAllowLoopback: true, webhookTimeScale: SEQUENCE_SCALE },
    // Not part of the journey: the sweeper runs on its schedule only.
    sweepEveryMs: 3_600_000,
  });
  receiver = await startReceiver({ secret: () => '', behave: (_n, request) => (request.path.includes('/ok-') ? 200 : 503) });
  session.connect();
  await session.post('Profiler.enable');
  // Keeps every script's source, to tell a module's export getters from its code.
  await session.post('Debugger.enable');
  await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
});
afterAll(async () => {
  session.disconnect();
  await receiver?.stop();
  await runtime?.stop();
});

/** A destination the receiver answers 200 and one it answers 503 (signatures are the webhook suites' concern). */
async function destinations(): Promise<{ ok: string; failing: string }> {
  const { clientId } = await newApp(runtime, { scopes: ['bevq:read'], ownerEmail: 'journey@example.test' });
  const add = async (path: string) => {
    const created = await addDestination(runtime.deps, {
      clientId,
      name: path,
      url: `${receiver.url}${path}`,
      locationIds: ['nyc-midtown'],
    });
    return created.destination.destinationId;
  };
  return { ok: await add(`/ok-${price}`), failing: await add(`/failing-${price}`) };
}

/** One publish, to a delivered POST and to a dead letter. */
async function journey(targets: { ok: string; failing: string }): Promise<void> {
  const published = await publishMenu(runtime.deps, {
    groupId: 'demo-group',
    locationId: 'nyc-midtown',
    menu: sampleMenu({ price: 2_000 + ++price }),
  });
  const eventId = published.eventId!;
  await Promise.all([
    waitForStatus(runtime, deliveryIdOf(eventId, targets.ok), [STATUS.SUCCEEDED]),
    waitForStatus(runtime, deliveryIdOf(eventId, targets.failing), [STATUS.DEAD_LETTER]),
  ]);
  // The journey ends with the owner's notice queued, just after the record turns DEAD_LETTER.
  const notice = `destination-failing#${targets.failing}#`;
  await eventually(
    async () => ((await runtime.deps.store.mailOutbox.pending(100)).some((m) => m.key.startsWith(notice)) ? true : undefined),
    () => `no owner's notice ${notice}… queued`,
  );
}

/** Files under lambdas/ where a function other than the module's top level (the outermost function) ran. */
async function filesRun(result: ScriptCoverage[]): Promise<string[]> {
  const files: string[] = [];
  for (const script of result) {
    const path = script.url.startsWith('file:') ? fileURLToPath(script.url) : script.url;
    const file = relative(ROOT, path);
    if (!file.startsWith('lambdas/')) continue;
    if ((await ownFunctions(session, script)).some((f) => f.count > 0)) files.push(file);
  }
  return files.sort();
}

describe(`the webhook journey (${ENGINE_NAME})`, () => {
  it(`publish → fan-out → queue → deliverer → signed POST → retry → dead letter runs at most ${JOURNEY_FILE_BOUND} files of lambdas/, in the webhook room and the kernel only`, async () => {
    // Warm: every module loaded, every first-time path taken; the measured run gets destinations of its own.
    await journey(await destinations());
    const measured = await destinations();
    await session.post('Profiler.takePreciseCoverage');
    await journey(measured);
    const { result } = (await session.post('Profiler.takePreciseCoverage')) as unknown as { result: ScriptCoverage[] };
    const files = await filesRun(result);
    console.log(`webhook journey: ${files.length} files\n  ${files.join('\n  ')}`);
    expect(files.length).toBeGreaterThan(5);
    expect(files.length).toBeLessThanOrEqual(JOURNEY_FILE_BOUND);
    expect(files.filter((f) => !JOURNEY_ROOMS.test(f))).toEqual([]);
  });
});
