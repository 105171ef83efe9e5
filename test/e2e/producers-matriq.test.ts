import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalRuntime } from '#local/runtime';
import { demoMatriqFile, demoSportsFile } from '#local/seed-venue-modules';
import {
  call,
  ENGINE_NAME,
  expectUnchanged,
  manualClock,
  producerCall,
  scanTable,
  startTestRuntime,
  tokenFor,
} from '../support/runtime.js';

/**
 * The device platform's routes over HTTP (docs/decisions/producers.md): a location's device state, the gateway's
 * emergency-stop results and its providers' availability, in the source's order, as the customer reads then show them.
 */

let runtime: LocalRuntime;
let token: string;
/** When the demo seed loads: its data's source time. */
const SEEDED = Date.UTC(2026, 10, 22, 12, 0, 10);
const NOW = SEEDED + 60 * 60_000;
const clock = manualClock(SEEDED);
const LOCATION = 'demo-group/nyc-midtown';
const iso = (ms: number) => new Date(ms).toISOString();

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  clock.set(NOW);
  ({ token } = await tokenFor(runtime, { scopes: ['matriq:read', 'matriq:ai-scheduler:stop', 'sportsq:read'] }));
});
afterAll(() => runtime?.stop());

const { groupId: _g, locationId: _l, ...seeded } = demoMatriqFile(SEEDED).locations[0]!;
/** The seeded state with the gateway seen a minute ago at another firmware, and the scheduler running or not. */
const state = (firmwareVersion: string, running = true) => ({
  ...seeded,
  gateway: { ...seeded.gateway, firmwareVersion, lastSeenAt: iso(NOW - 60_000) },
  scheduler: { ...seeded.scheduler, running, emergencyStopActive: false },
});
const putState = (sourceMs: number, data: unknown, at = LOCATION, producer: 'device-platform' | 'pos-sync' = 'device-platform') =>
  producerCall(runtime, producer, 'PUT', `/matriq/${at}/state`, { sourceTime: iso(sourceMs), data });
const putResult = (commandId: string, sourceMs: number, status: string) =>
  producerCall(runtime, 'device-platform', 'PUT', `/matriq/commands/${commandId}/result`, { sourceTime: iso(sourceMs), data: { status } });

/** What a customer reads of the location's devices. */
async function shown(resource: 'gateway' | 'devices' | 'aiScheduler') {
  const reply = await call(runtime, `/v1/${LOCATION}/matriq/${resource}`, { token });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.data;
}
/** The customer reads and the table's display-device items (states, commands), for "changes nothing". */
const everything = async () => ({
  gateway: await shown('gateway'),
  scheduler: await shown('aiScheduler'),
  items: (await scanTable(runtime)).filter((i) => /^MATRIQ/.test(String(i.SK)) || /^MATRIQ_COMMAND#/.test(String(i.PK))),
});

describe(`the device platform writes device state (${ENGINE_NAME})`, () => {
  it('applies a newer state, acknowledges a replay and an older one, and the customer reads show the newest', async () => {
    const t = NOW - 10 * 60_000;
    expect((await putState(t, state('5.0.0'))).body).toEqual({ outcome: 'applied', records: 1, sourceTime: iso(t), sequence: 0 });
    expect((await putState(t, state('5.0.1'))).body.outcome).toBe('duplicate');
    expect((await putState(t - 1, state('4.9.9'))).body.outcome).toBe('stale');
    expect((await shown('gateway')).gateway).toMatchObject({ id: 'gw-nyc-1', firmwareVersion: '5.0.0', health: 'healthy' });
    expect((await shown('devices')).devices.map((d: { id: string }) => d.id)).toEqual(seeded.devices.map((d) => d.id));
    expect(await shown('aiScheduler')).toMatchObject({ statusUpdatedAt: iso(t), status: { running: true } });

    // Another class's key reaches none of these routes, as API Gateway holds its policy.
    const before = await everything();
    expect((await putState(NOW, state('6.0.0'), LOCATION, 'pos-sync')).status).toBe(403);
    expectUnchanged(await everything(), before);
  });

  it('refuses a state that breaks a rule, or of an unknown location, changing nothing', async () => {
    const before = await everything();
    const [device] = seeded.devices;
    const refusals: [unknown, number, RegExp, string?][] = [
      [{ ...state('6.0.0'), extra: true }, 400, /extra/],
      [{ ...state('6.0.0'), groupId: 'demo-group' }, 400, /groupId/],
      [{ ...state('6.0.0'), devices: 'tv' }, 400, /devices/],
      [{ ...state('6.0.0'), scheduler: { ...seeded.scheduler, running: 'yes' } }, 400, /running/],
      [{ ...state('6.0.0'), devices: [device, device] }, 400, /must not repeat a device id/],
      [{ ...state('6.0.0'), scheduler: { ...seeded.scheduler, deviceIds: ['tv-elsewhere'] } }, 400, /not among devices: tv-elsewhere/],
      [state('6.0.0'), 404, /demo-group\/nowhere/, 'demo-group/nowhere'],
    ];
    for (const [data, status, message, at] of refusals) {
      const reply = await putState(NOW, data, at);
      expect([reply.status, reply.body.error?.message], reply.text).toEqual([status, expect.stringMatching(message)]);
    }
    expectUnchanged(await everything(), before);
  });
});

describe(`the device platform reports emergency-stop results (${ENGINE_NAME})`, () => {
  const STOP = `/v1/${LOCATION}/matriq/aiScheduler/emergency-stop`;
  /** The customer's stop; with its Idempotency-Key again, the command as it is now. */
  const stop = (key: string) =>
    call(runtime, STOP, { method: 'POST', token, headers: { 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: '{}' });

  it('an applied stop stops the scheduler in its order: a replay changes nothing, a contradiction and an older state are refused', async () => {
    clock.set(NOW + 60_000);
    const { commandId, requestedAt } = (await stop('producer-stop-01')).body.data;
    const applied = NOW + 61_000;
    expect((await putResult(commandId, applied, 'applied')).body).toEqual({
      outcome: 'applied',
      records: 1,
      sourceTime: iso(applied),
      sequence: 0,
    });
    const stopped = await shown('aiScheduler');
    expect(stopped).toMatchObject({
      statusUpdatedAt: iso(applied),
      status: { running: false, runtime: { emergencyStopActive: true, lastStopAt: iso(applied) } },
    });
    expect((await stop('producer-stop-01')).body.data).toMatchObject({
      commandId,
      requestedAt,
      status: 'applied',
      completedAt: iso(applied),
    });

    const before = await everything();
    expect((await putResult(commandId, applied, 'applied')).body.outcome).toBe('duplicate');
    const contradiction = await putResult(commandId, applied + 1, 'failed');
    expect([contradiction.status, contradiction.body.error.message]).toEqual([400, expect.stringMatching(/already applied/)]);
    // A state the gateway observed before the stop arrives late: it never starts the scheduler again.
    expect((await putState(applied - 1, state('5.0.0'))).body.outcome).toBe('stale');
    expectUnchanged(await everything(), before);

    // One observed after it stands.
    expect((await putState(applied + 1000, state('5.0.0', true))).body.outcome).toBe('applied');
    expect((await shown('aiScheduler')).status).toMatchObject({ running: true, runtime: { emergencyStopActive: false } });
  });

  it('a failed stop leaves the scheduler, dated no earlier than its request; an unknown command is 404', async () => {
    clock.set(NOW + 120_000);
    const { commandId, requestedAt } = (await stop('producer-stop-02')).body.data;
    const before = await shown('aiScheduler');
    // The gateway's clock runs behind the service's.
    expect((await putResult(commandId, NOW + 100_000, 'failed')).body.outcome).toBe('applied');
    expect((await stop('producer-stop-02')).body.data).toMatchObject({ status: 'failed', completedAt: requestedAt });
    expectUnchanged(await shown('aiScheduler'), before);

    const unknown = await putResult(`cmd_${'0'.repeat(32)}`, NOW, 'applied');
    expect([unknown.status, unknown.body.error.message]).toEqual([404, expect.stringMatching(/does not exist/)]);
    const queued = await putResult(commandId, NOW, 'queued');
    expect([queued.status, queued.body.error.message]).toEqual([400, expect.stringMatching(/status/)]);
  });
});

describe(`the device platform reports provider availability (${ENGINE_NAME})`, () => {
  const putProviders = (
    sourceMs: number,
    providers: unknown,
    at = LOCATION,
    producer: 'device-platform' | 'sports-sync' = 'device-platform',
  ) => producerCall(runtime, producer, 'PUT', `/matriq/${at}/providers`, { sourceTime: iso(sourceMs), data: { providers } });
  const feed = (id: string, available: boolean) => ({ id, available, availabilityState: available ? 'ACTIVE' : 'OUTAGE' });
  /** What a customer reads of the location's providers. */
  async function providers() {
    const reply = await call(runtime, `/v1/${LOCATION}/sportsq/provider`, { token });
    expect(reply.status, reply.text).toBe(200);
    const { availability, providers } = reply.body.data;
    return {
      status: availability.status,
      providers: providers.map(({ id, available, availabilityState }: Record<string, unknown>) => ({ id, available, availabilityState })),
    };
  }

  it("overlays the device platform's word on the lineup, in its order, whichever source wrote last", async () => {
    const before = await providers();
    expect(before.providers).toEqual([feed('directv', true)]);
    // A provider the lineup does not list is not shown: the lineup says which providers there are.
    const down = [feed('directv', false), feed('not-in-lineup', true)];
    expect((await putProviders(NOW - 1000, down)).body).toEqual({
      outcome: 'applied',
      records: 2,
      sourceTime: iso(NOW - 1000),
      sequence: 0,
    });
    expect(await providers()).toEqual({ status: 'PROVIDER_DATA_PARTIAL', providers: [feed('directv', false)] });
    expect((await putProviders(NOW - 1000, [feed('directv', true)])).body.outcome).toBe('duplicate');
    expect((await putProviders(NOW - 2000, [feed('directv', true)])).body.outcome).toBe('stale');
    // The sports sync's later lineup lists the provider as available: the device platform's word on its feed stands.
    const { groupId: _g, locationId: _l, ...lineup } = demoSportsFile(SEEDED).environments![0]!;
    const environment = await producerCall(runtime, 'sports-sync', 'PUT', `/sports/${LOCATION}/environment`, {
      sourceTime: iso(NOW),
      data: lineup,
    });
    expect(environment.body.outcome).toBe('applied');
    expect((await providers()).providers).toEqual([feed('directv', false)]);

    const unchanged = await providers();
    for (const [reply, status] of [
      [await putProviders(NOW, [feed('directv', true), feed('directv', true)]), 400],
      [await putProviders(NOW, [{ ...feed('directv', true), available: 'yes' }]), 400],
      [await putProviders(NOW, [feed('directv', true)], 'demo-group/nowhere'), 404],
      [await putProviders(NOW, [feed('directv', true)], LOCATION, 'sports-sync'), 403],
    ] as const)
      expect(reply.status, reply.text).toBe(status);
    expect(await providers()).toEqual(unchanged);

    expect((await putProviders(NOW, [feed('directv', true)])).body.outcome).toBe('applied');
    // (The new lineup is newer than the day's viewing data: stale, as 2.8 has it.)
    expect(await providers()).toEqual({ status: 'PROVIDER_DATA_STALE', providers: before.providers });
  });
});
