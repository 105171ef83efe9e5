import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordStopResult } from '#lambdas/producers/matriq';
import { AdminInputError } from '#domain/inputs';
import type { LocalRuntime } from '#local/runtime';
import { call, manualClock, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';

const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
let runtime: LocalRuntime;
let reader: string;
let stopper: string;

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
  ({ token: reader } = await tokenFor(runtime, { scopes: ['matriq:read'] }));
  ({ token: stopper } = await tokenFor(runtime, { scopes: ['matriq:read', 'matriq:ai-scheduler:stop'] }));
});
afterAll(() => runtime?.stop());

const get = (path: string, token = reader) => call(runtime, `/v1/demo-group/${path}`, { token });
const STOP = '/v1/demo-group/nyc-midtown/matriq/aiScheduler/emergency-stop';
function stop(init: { token?: string; body?: string; key?: string; contentType?: string | null; path?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.contentType !== null) headers['Content-Type'] = init.contentType ?? 'application/json';
  if (init.key) headers['Idempotency-Key'] = init.key;
  return call(runtime, init.path ?? STOP, { method: 'POST', token: init.token ?? stopper, headers, body: init.body });
}
/** A stop's result as the operator reports it (`matriq stop-result`): observed when it runs. */
const stopResult = async (input: Parameters<typeof recordStopResult>[1]) =>
  (await recordStopResult(runtime.store, input, { sourceMs: clock.now(), sequence: 0 })).command;
const commands = async () => (await scanTable(runtime)).filter((i) => String(i.PK).startsWith('MATRIQ_COMMAND#'));

describe('matriq reads', () => {
  it('overview: summary, endpoints and the composite refresh', async () => {
    const reply = await get('nyc-midtown/matriq');
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toBe('matriq');
    expect(reply.body.data.summary).toEqual({
      deviceIds: ['tv-nyc-bar-1', 'tv-nyc-bar-2', 'tv-nyc-patio-1'],
      providerCount: 1,
      aiSchedulerPublished: true,
      aiSchedulerRunning: true,
    });
    expect(Object.keys(reply.body.data.refresh).sort()).toEqual(['aiScheduler', 'devices', 'gateway', 'providerAvailable']);
    expect(reply.body.data.endpoints.aiScheduler).toBe(`${runtime.url}/v1/demo-group/nyc-midtown/matriq/aiScheduler`);
  });

  it('gateway and devices carry computed health', async () => {
    const gateway = await get('nyc-midtown/matriq/gateway');
    expect(gateway.body.data.gateway).toMatchObject({ id: 'gw-nyc-1', health: 'healthy' });
    const devices = await get('nyc-midtown/matriq/devices');
    expect(devices.body.data.devices.map((d: { health: string }) => d.health)).toEqual(['healthy', 'warning', 'offline']);
    expect(devices.body.data.deviceStatus).toEqual({ healthy: 1, warning: 1, offline: 1 });
  });

  it('providerAvailable: legacy shape for the active business date; the alias equals it but for resource', async () => {
    const main = await get('nyc-midtown/matriq/providerAvailable');
    const alias = await get('nyc-midtown/providerAvailable');
    expect(main.status).toBe(200);
    expect(main.body.resource).toBe('matriq/providerAvailable');
    expect(alias.body.resource).toBe('providerAvailable');
    const { resource: _a, ...mainRest } = main.body;
    const { resource: _b, ...aliasRest } = alias.body;
    expect(aliasRest).toEqual(mainRest);
    const data = main.body.data;
    expect(data.businessDate).toEqual({ active: '20261122', calendarDate: '2026-11-22', timezone: 'America/New_York' });
    expect(data.providers).toEqual([
      { providerKey: 'directv', providerLabel: 'DIRECTV', providerLogo: `${runtime.url}/v1/assets/sports-logo/directv.svg` },
    ]);
    expect(data.providersAvailable).toContainEqual({
      eventId: '20261122-nfl-nyg-dal',
      title: 'Dallas Cowboys at New York Giants',
      league: 'NFL',
      leagueLogo: `${runtime.url}/v1/assets/sports-logo/nfl.svg`,
      homeTeam: 'New York Giants',
      awayTeam: 'Dallas Cowboys',
      homeLogo: `${runtime.url}/v1/assets/sports-logo/team-badge.png`,
      awayLogo: `${runtime.url}/v1/assets/sports-logo/team-badge.png`,
      providerLabel: 'DIRECTV',
      providerLogo: `${runtime.url}/v1/assets/sports-logo/directv.svg`,
      channelNumber: '5',
    });
    expect(JSON.stringify(data)).not.toMatch(/"PK"|"SK"|lineupId|lastSeenAt/);
  });

  it('providerAvailable follows the 04:01 business day (03:30 local is still the previous day)', async () => {
    const saved = clock.now();
    clock.set(Date.UTC(2026, 10, 23, 8, 30)); // 03:30 in New York on 11-23
    try {
      const reply = await get('nyc-midtown/providerAvailable');
      expect(reply.body.data.businessDate.active).toBe('20261122');
    } finally {
      clock.set(saved);
    }
  });

  it('aiScheduler: state, current draft and the stop action with an absolute URL', async () => {
    const reply = await get('nyc-midtown/matriq/aiScheduler');
    const data = reply.body.data;
    expect(data.businessDay).toBe('20261122');
    expect(data.deviceIds).toEqual(['tv-nyc-bar-1', 'tv-nyc-bar-2']);
    expect(data.status).toMatchObject({
      running: true,
      published: true,
      draftExists: true,
      runtime: { emergencyStopActive: false, lastStopAt: null },
    });
    expect(data.currentPublishedDraft.draft.items[0]).toEqual({
      id: 'slot-1',
      start: '13:00',
      end: '16:00',
      eventTitle: 'Dallas Cowboys at New York Giants',
    });
    expect(data.actions).toEqual([
      expect.objectContaining({ method: 'POST', endpoint: `${runtime.url}${STOP}`, scope: 'matriq:ai-scheduler:stop' }),
    ]);
  });

  it("never shows another day's draft as current", async () => {
    const data = (await get('denver-union/matriq/aiScheduler')).body.data;
    expect(data.currentPublishedDraft).toBeNull();
    expect(data.status).toMatchObject({ published: false, draftExists: false });
  });

  it('refuses a location with the module disabled, and 404s a location without devices', async () => {
    expect((await get('sydney-harbour/matriq')).body.error.code).toBe('module_not_enabled');
    expect((await get('nowhere/matriq')).status).toBe(404);
  });
});

describe('POST emergency-stop', () => {
  it('queues a durable command at once and answers queued', async () => {
    const before = (await commands()).length;
    const reply = await stop({ body: JSON.stringify({ reason: 'Fire alarm' }) });
    expect(reply.status).toBe(200);
    expect(reply.body.resource).toBe('matriq/aiScheduler/emergency-stop');
    expect(reply.body.data).toEqual({
      status: 'queued',
      deviceId: 'tv-nyc-bar-1',
      commandId: expect.stringMatching(/^cmd_[0-9a-f]{32}$/),
      requestedAt: new Date(clock.now()).toISOString(),
      reason: 'Fire alarm',
      completedAt: null,
      refresh: expect.objectContaining({ cadence: 'on_product_events' }),
    });
    const stored = await commands();
    expect(stored).toHaveLength(before + 1);
    expect(stored.find((c) => c.commandId === reply.body.data.commandId)).toMatchObject({ status: 'queued', locationId: 'nyc-midtown' });
  });

  it('accepts an empty body with the default device and reason, and a named device', async () => {
    const empty = await stop({ contentType: null });
    expect(empty.status).toBe(200);
    expect(empty.body.data).toMatchObject({ status: 'queued', deviceId: 'tv-nyc-bar-1', reason: expect.any(String) });
    const named = await stop({ body: JSON.stringify({ deviceId: 'tv-nyc-bar-2' }) });
    expect(named.body.data.deviceId).toBe('tv-nyc-bar-2');
  });

  it.each([
    ['malformed JSON', '{"reason":', 'application/json', 400, 'invalid_request'],
    ['an array', '[]', 'application/json', 400, 'invalid_request'],
    ['an unknown field', '{"reason":"x","force":true}', 'application/json', 400, 'invalid_request'],
    ['a wrong type', '{"reason":42}', 'application/json', 400, 'invalid_request'],
    ['an empty reason', '{"reason":"   "}', 'application/json', 400, 'invalid_request'],
    ['a too long reason', JSON.stringify({ reason: 'x'.repeat(501) }), 'application/json', 400, 'invalid_request'],
    ['an unknown device', '{"deviceId":"tv-nyc-patio-1"}', 'application/json', 400, 'invalid_request'],
    ['a form body', 'reason=x', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ['a non-UTF-8 charset', '{}', 'application/json; charset=latin1', 415, 'unsupported_media_type'],
    ['an oversized body', JSON.stringify({ reason: 'x', pad: 'y'.repeat(17 * 1024) }), 'application/json', 413, 'payload_too_large'],
  ])('refuses %s and writes nothing', async (_name, body, contentType, status, code) => {
    const before = (await commands()).length;
    const reply = await stop({ body, contentType });
    expect(reply.status).toBe(status);
    expect(reply.body.error.code).toBe(code);
    expect(await commands()).toHaveLength(before);
  });

  it.each([
    ['a line break', 'Fire\nalarm', /\(U\+000A\)/],
    ['BEL', 'Fire\u0007', /\(U\+0007\)/],
    ['a bidi override', 'Fire \u202Emrala', /bidirectional.*\(U\+202E\)/],
    ['two zero-width spaces', '\u200b\u200b', /invisible characters \(U\+200B\)/],
    ['a Hangul filler', '\u3164', /invisible characters \(U\+3164\)/],
  ])('refuses a reason with %s, naming the field and the character, and queues nothing', async (_name, reason, character) => {
    const before = (await commands()).length;
    const reply = await stop({ body: JSON.stringify({ reason }) });
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('invalid_request');
    expect(reply.body.error.message).toMatch(/^Body field reason must not contain /);
    expect(reply.body.error.message).toMatch(character);
    expect(await commands()).toHaveLength(before);
  });

  it('stores the reason trimmed and NFC, joiners between letters kept', async () => {
    const reply = await stop({ body: JSON.stringify({ reason: '  Cafe\u0301 fire: \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 ' }) });
    expect(reply.status).toBe(200);
    const reason = 'Caf\u00e9 fire: \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645';
    expect(reply.body.data.reason).toBe(reason);
    expect((await commands()).find((c) => c.commandId === reply.body.data.commandId)).toMatchObject({ reason });
  });

  it('refuses a malformed Idempotency-Key', async () => {
    const reply = await stop({ body: '{}', key: 'short' });
    expect(reply.status).toBe(400);
  });

  it('needs matriq:ai-scheduler:stop, and a token covering the location', async () => {
    const before = (await commands()).length;
    expect((await stop({ token: reader })).body.error.code).toBe('insufficient_scope');
    const { token: denverOnly } = await tokenFor(runtime, { scopes: ['matriq:ai-scheduler:stop'], allowedLocationIds: ['denver-union'] });
    expect((await stop({ token: denverOnly })).body.error.code).toBe('location_not_allowed');
    const ok = await stop({ token: denverOnly, path: '/v1/demo-group/denver-union/matriq/aiScheduler/emergency-stop' });
    expect(ok.status).toBe(200);
    expect(ok.body.data.deviceId).toBe('tv-den-1');
    expect((await call(runtime, STOP, { method: 'POST' })).status).toBe(401);
    expect((await commands()).length).toBe(before + 1);
  });

  it('an Idempotency-Key retry returns the same command; a different body with it is refused (422)', async () => {
    const body = JSON.stringify({ reason: 'Retry me' });
    const first = await stop({ body, key: 'retry-key-0001' });
    const before = (await commands()).length;
    const second = await stop({ body, key: 'retry-key-0001' });
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.data).toEqual(first.body.data);
    expect(await commands()).toHaveLength(before);
    const other = await stop({ body: JSON.stringify({ reason: 'Something else' }), key: 'retry-key-0001' });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect(await commands()).toHaveLength(before);
    // Another application's identical key is its own command.
    const { token: otherApp } = await tokenFor(runtime, { scopes: ['matriq:ai-scheduler:stop'] });
    const theirs = await stop({ token: otherApp, body, key: 'retry-key-0001' });
    expect(theirs.body.data.commandId).not.toBe(first.body.data.commandId);
  });

  it('parallel POSTs with one Idempotency-Key queue exactly one command', async () => {
    const before = (await commands()).length;
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => stop({ body: JSON.stringify({ reason: 'Concurrent' }), key: 'concurrent-key-01' })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(200));
    expect(new Set(replies.map((r) => r.body.data.commandId)).size).toBe(1);
    expect(await commands()).toHaveLength(before + 1);
  });

  it('applied: the command and the Auto Scheduler state follow; a replay shows the result', async () => {
    const queued = await stop({ body: JSON.stringify({ reason: 'Apply me' }), key: 'apply-key-0001' });
    const commandId = queued.body.data.commandId;
    clock.advance(5_000);
    const appliedAt = new Date(clock.now()).toISOString();
    const applied = await stopResult({ commandId, status: 'applied' });
    expect(applied).toMatchObject({ status: 'applied', completedAt: appliedAt });
    const state = (await get('nyc-midtown/matriq/aiScheduler')).body.data;
    expect(state.status.running).toBe(false);
    expect(state.status.runtime).toMatchObject({ emergencyStopActive: true, lastStopAt: appliedAt });
    expect(state.statusUpdatedAt).toBe(appliedAt);
    expect((await get('nyc-midtown/matriq')).body.data.summary.aiSchedulerRunning).toBe(false);
    const replay = await stop({ body: JSON.stringify({ reason: 'Apply me' }), key: 'apply-key-0001' });
    expect(replay.body.data).toMatchObject({ commandId, status: 'applied', completedAt: appliedAt });
    // The same report again is harmless; a contradicting one is refused.
    await expect(stopResult({ commandId, status: 'applied' })).resolves.toMatchObject({
      status: 'applied',
    });
    await expect(stopResult({ commandId, status: 'failed' })).rejects.toThrow(AdminInputError);
  });

  it('failed: the command ends failed and the Auto Scheduler state is untouched', async () => {
    const before = (await get('london-soho/matriq/aiScheduler')).body.data;
    const queued = await stop({ path: '/v1/demo-group/london-soho/matriq/aiScheduler/emergency-stop', body: '{}', key: 'fail-key-00001' });
    const commandId = queued.body.data.commandId;
    const failed = await stopResult({ commandId, status: 'failed' });
    expect(failed.status).toBe('failed');
    const after = (await get('london-soho/matriq/aiScheduler')).body.data;
    expect(after.status).toEqual(before.status);
    const replay = await stop({ path: '/v1/demo-group/london-soho/matriq/aiScheduler/emergency-stop', body: '{}', key: 'fail-key-00001' });
    expect(replay.body.data.status).toBe('failed');
    await expect(stopResult({ commandId, status: 'applied' })).rejects.toThrow(/already failed/);
  });

  it('stop-result refuses unknown and malformed command ids', async () => {
    await expect(stopResult({ commandId: `cmd_${'0'.repeat(32)}`, status: 'applied' })).rejects.toThrow(/does not exist/);
    await expect(stopResult({ commandId: 'nope', status: 'applied' })).rejects.toThrow(AdminInputError);
    await expect(stopResult({ commandId: `cmd_${'0'.repeat(32)}`, status: 'queued' as 'applied' })).rejects.toThrow(AdminInputError);
  });
});
