import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteMessageBatchCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOP_COMMAND_MAX_SENDS } from '#data/matriq';
import { publishStopCommand, STOP_COMMAND_SEND_GRACE_MS, sweepStopCommands } from '#lambdas/matriq/stop-commands';
import {
  parseStopCommandMessage,
  STOP_COMMAND_RESEND_AFTER_MS,
  stopCommandMessage,
  type StopCommandMessage,
} from '#lambdas/matriq/stop-queue';
import { signedSendingQueue } from '#platform/signed-queue';
import type { LocalRuntime } from '#local/runtime';
import { eventually } from '../support/eventually.js';
import { call, ENGINE_NAME, manualClock, producerCall, startTestRuntime, tokenFor } from '../support/runtime.js';

/**
 * An emergency stop's way to the gateway and back (docs/decisions/matriq.md, "How a stop reaches the gateway"), over
 * the real interfaces: the POST, the stop-command queue the device platform consumes, the device platform's producer
 * route, the sweeper, and the customer's reads.
 */

const iso = (ms: number) => new Date(ms).toISOString();
const STOP = (location: string) => `/v1/demo-group/${location}/matriq/aiScheduler/emergency-stop`;

/** The customer's stop; with its Idempotency-Key again, the command as it is now. */
const stopAt = (runtime: LocalRuntime, token: string, location: string, key?: string) =>
  call(runtime, STOP(location), {
    method: 'POST',
    token,
    headers: { 'Content-Type': 'application/json', ...(key ? { 'Idempotency-Key': key } : {}) },
    body: JSON.stringify({ reason: 'Fire alarm' }),
  });

/** Every message waiting on the stop-command queue, received and deleted as the device platform would. */
async function drain(runtime: LocalRuntime): Promise<StopCommandMessage[]> {
  const QueueUrl = runtime.queues.stopCommandQueueUrl;
  const received: StopCommandMessage[] = [];
  for (;;) {
    const { Messages = [] } = await runtime.sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (Messages.length === 0) return received;
    received.push(...Messages.map((m) => parseStopCommandMessage(m.Body ?? '')!));
    await runtime.sqs.send(
      new DeleteMessageBatchCommand({ QueueUrl, Entries: Messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })) }),
    );
  }
}
const sentFor = (messages: StopCommandMessage[], commandId: string) => messages.filter((m) => m.commandId === commandId);

describe(`emergency stops reach the gateway (${ENGINE_NAME})`, () => {
  const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
  let runtime: LocalRuntime;
  let token: string;
  beforeAll(async () => {
    // No scheduled sweep: each sweep here is the test's (its DLQ pass's long poll on the shortest time scale).
    runtime = await startTestRuntime({ clock, sweepEveryMs: 3_600_000, config: { webhookTimeScale: 0.01 } });
    // Stops and reports come after the seeded device state.
    clock.advance(60_000);
    ({ token } = await tokenFor(runtime, { scopes: ['matriq:read', 'matriq:ai-scheduler:stop'] }));
  });
  afterAll(() => runtime?.stop());

  const command = async (commandId: string) => (await runtime.store.matriq.getCommand(commandId))!;
  const report = (commandId: string, status: string) =>
    producerCall(runtime, 'device-platform', 'PUT', `/matriq/commands/${commandId}/result`, {
      sourceTime: iso(clock.now()),
      data: { status },
    });
  /** The sweeper's stop-command job alone, with the sweeper's deps (runtime.sweep() runs it among the others). */
  const sweepStops = () => sweepStopCommands(runtime.functionDeps('webhook-sweeper'));
  const scheduler = async (location: string) =>
    (await call(runtime, `/v1/demo-group/${location}/matriq/aiScheduler`, { token })).body.data.status;

  it('publishes each stop once, after its write; one whose send was lost is sent once by the sweeper', async () => {
    const sent = await stopAt(runtime, token, 'nyc-midtown', 'stop-once-0001');
    expect(sent.status).toBe(200);
    const { commandId, requestedAt } = sent.body.data;
    expect(sent.body.data).toMatchObject({ status: 'queued', completedAt: null });
    expect(sentFor(await drain(runtime), commandId)).toEqual([
      {
        commandId,
        groupId: 'demo-group',
        locationId: 'nyc-midtown',
        deviceId: 'tv-nyc-bar-1',
        requestedAt,
        expiresAt: iso(Date.parse(requestedAt) + 10 * 60_000),
        reason: 'Fire alarm',
      },
    ]);
    expect(await command(commandId)).toMatchObject({ sends: 1, publishedAt: requestedAt, status: 'queued' });
    // A replay finds the command and sends nothing.
    const replay = await stopAt(runtime, token, 'nyc-midtown', 'stop-once-0001');
    expect([replay.headers.get('idempotent-replayed'), replay.body.data.commandId]).toEqual(['true', commandId]);
    expect(await drain(runtime)).toEqual([]);

    // The function dies between the write and the send: the customer never hears back, the command is stored unsent.
    const queue = runtime.functionDeps('matriq').stopCommands!;
    const send = queue.send;
    queue.send = () => Promise.reject(new Error('the function died here'));
    let lost: string;
    try {
      lost = (await stopAt(runtime, token, 'london-soho')).body.data.commandId;
    } finally {
      queue.send = send;
    }
    expect(await drain(runtime)).toEqual([]);
    expect(await command(lost)).toMatchObject({ sends: 0, publishedAt: null, status: 'queued' });
    // Not while a POST may still be sending it; then once, and once only.
    await runtime.sweep();
    expect(await drain(runtime)).toEqual([]);
    clock.advance(STOP_COMMAND_SEND_GRACE_MS);
    await runtime.sweep();
    const swept = await drain(runtime);
    expect(swept.map((m) => m.commandId)).toEqual([lost]);
    await runtime.sweep();
    expect(await drain(runtime)).toEqual([]);
    expect(await command(lost)).toMatchObject({ sends: 1, publishedAt: iso(clock.now()) });

    for (const id of [commandId, lost]) expect((await report(id, 'applied')).body.outcome).toBe('applied');
  });

  it("moves the command and the Auto Scheduler on the gateway's report; a duplicate changes nothing, a contradiction is refused", async () => {
    const { commandId } = (await stopAt(runtime, token, 'nyc-midtown', 'stop-report-01')).body.data;
    clock.advance(1_000);
    expect((await report(commandId, 'applied')).body.outcome).toBe('applied');
    const stoppedAt = iso(clock.now());
    expect(await scheduler('nyc-midtown')).toMatchObject({
      running: false,
      runtime: { emergencyStopActive: true, lastStopAt: stoppedAt },
    });
    expect((await stopAt(runtime, token, 'nyc-midtown', 'stop-report-01')).body.data).toMatchObject({
      status: 'applied',
      completedAt: stoppedAt,
    });
    const before = { command: await command(commandId), scheduler: await scheduler('nyc-midtown') };
    clock.advance(1_000);
    expect((await report(commandId, 'applied')).body.outcome).toBe('duplicate');
    const contradiction = await report(commandId, 'failed');
    expect([contradiction.status, contradiction.body.error.message]).toEqual([400, expect.stringMatching(/already applied/)]);
    expect({ command: await command(commandId), scheduler: await scheduler('nyc-midtown') }).toEqual(before);
    // Reported: never sent again.
    await drain(runtime);
    clock.advance(STOP_COMMAND_RESEND_AFTER_MS);
    await sweepStops();
    expect(sentFor(await drain(runtime), commandId)).toEqual([]);
  });

  it('sends a queued command again until its expiry, a bounded number of times; then it is failed and never sent again', async () => {
    const before = await scheduler('london-soho');
    const { commandId, requestedAt } = (await stopAt(runtime, token, 'london-soho', 'stop-expire-01')).body.data;
    const sends = sentFor(await drain(runtime), commandId);
    for (let minute = 2; minute < 10; minute += 2) {
      clock.set(Date.parse(requestedAt) + minute * 60_000);
      await sweepStops();
      sends.push(...sentFor(await drain(runtime), commandId));
    }
    // The same message each time, as many times as allowed, and the command still queued.
    expect(sends).toHaveLength(STOP_COMMAND_MAX_SENDS);
    expect(new Set(sends.map((m) => JSON.stringify(m))).size).toBe(1);
    expect((await command(commandId)).status).toBe('queued');

    clock.set(Date.parse(requestedAt) + 10 * 60_000);
    await runtime.sweep();
    const expiredAt = iso(clock.now());
    expect(await command(commandId)).toMatchObject({ status: 'failed', failure: 'expired', completedAt: expiredAt });
    clock.advance(STOP_COMMAND_RESEND_AFTER_MS);
    await sweepStops();
    expect(sentFor(await drain(runtime), commandId)).toEqual([]);
    // The customer sees it failed; the scheduler is as it was; a late report of it applied is refused.
    expect((await stopAt(runtime, token, 'london-soho', 'stop-expire-01')).body.data).toMatchObject({
      status: 'failed',
      completedAt: expiredAt,
    });
    expect(await scheduler('london-soho')).toEqual(before);
    expect((await report(commandId, 'applied')).status).toBe(400);
  });

  it("sends as the Lambda functions do: one SendMessage signed with the function's credentials, a refusal thrown", async () => {
    const region = process.env.AWS_REGION ?? 'us-east-1';
    const url = runtime.queues.stopCommandQueueUrl;
    const message: StopCommandMessage = {
      commandId: `cmd_${'a'.repeat(32)}`,
      groupId: 'demo-group',
      locationId: 'nyc-midtown',
      deviceId: 'tv-nyc-bar-1',
      requestedAt: iso(clock.now()),
      expiresAt: iso(clock.now() + 600_000),
      reason: 'Signed',
    };
    await drain(runtime);
    // The local queue URL's host names no server (fauxqs's form): the engine's endpoint stands for SQS's.
    const send = (credentials: { accessKeyId: string; secretAccessKey: string }, body: string) =>
      signedSendingQueue(new DynamoDBClient({ region, credentials }), url, runtime.engines.sqsEndpoint).send(body);
    await send(runtime.engines.credentials, stopCommandMessage(message));
    expect(await drain(runtime)).toEqual([message]);
    await expect(send({ accessKeyId: 'LOCALstranger', secretAccessKey: 'x' }, '{}')).rejects.toThrow(/^SendMessage: 403/);
  });

  it('refuses a location-scoped token at another location: nothing is stored or sent', async () => {
    const { token: denverOnly } = await tokenFor(runtime, { scopes: ['matriq:ai-scheduler:stop'], allowedLocationIds: ['denver-union'] });
    await drain(runtime);
    const refused = await stopAt(runtime, denverOnly, 'nyc-midtown', 'stop-scoped-01');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'location_not_allowed']);
    expect(await drain(runtime)).toEqual([]);
    const own = await stopAt(runtime, denverOnly, 'denver-union');
    expect((await drain(runtime)).map((m) => [m.commandId, m.locationId])).toEqual([[own.body.data.commandId, 'denver-union']]);
  });
});

describe(`the simulated gateway (${ENGINE_NAME})`, () => {
  let runtime: LocalRuntime;
  let token: string;
  beforeAll(async () => {
    runtime = await startTestRuntime({ simulatedGateway: { delayMs: 50 }, sweepEveryMs: 3_600_000 });
    ({ token } = await tokenFor(runtime, { scopes: ['matriq:read', 'matriq:ai-scheduler:stop'] }));
  });
  afterAll(() => runtime?.stop());

  it('applies a stop made through the API by itself, and discards one past its expiry', async () => {
    const { commandId } = (await stopAt(runtime, token, 'nyc-midtown', 'stop-simulated-01')).body.data;
    const status = await eventually(
      async () => {
        const data = (await call(runtime, '/v1/demo-group/nyc-midtown/matriq/aiScheduler', { token })).body.data;
        return data.status.runtime.emergencyStopActive ? data.status : undefined;
      },
      () => `the stop ${commandId} is not applied yet`,
    );
    expect(status).toMatchObject({ running: false, runtime: { emergencyStopActive: true } });
    expect((await stopAt(runtime, token, 'nyc-midtown', 'stop-simulated-01')).body.data.status).toBe('applied');
    expect(runtime.simulatedGateway!.reported).toContain(commandId);

    // A stop that reaches the gateway after its expiry is never applied.
    const now = runtime.deps.clock.now();
    const stale = (await runtime.store.matriq.createCommand({
      commandId: `cmd_${'e'.repeat(32)}`,
      groupId: 'demo-group',
      locationId: 'london-soho',
      deviceId: 'tv-lon-1',
      reason: 'Too late',
      requestedAt: iso(now - 11 * 60_000),
      status: 'queued',
      completedAt: null,
      clientId: 'test',
      requestFingerprint: 'test',
    }))!;
    expect(await publishStopCommand(runtime.functionDeps('webhook-sweeper'), stale)).toBe(true);
    await eventually(
      () => (runtime.simulatedGateway!.discarded.includes(stale.commandId) ? true : undefined),
      () => 'the expired stop is not discarded yet',
    );
    expect(runtime.simulatedGateway!.reported).not.toContain(stale.commandId);
    expect((await runtime.store.matriq.getCommand(stale.commandId))!.status).toBe('queued');
  });
});
