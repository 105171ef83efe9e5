import { mkdtempSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { addDestination } from '#lambdas/webhooks/destination-operations';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '#local/runtime';
import { waitForStatus } from '../fixtures/wait-for-delivery.js';
import { publishFor } from '../fixtures/menu-event.js';
import { controlledResolver, startReceiver } from '../fixtures/webhook-receiver.js';
import { ENGINE_NAME, newApp, TEST_DYNAMODB_ENDPOINT } from '../support/runtime.js';

/**
 * `npm start` on a data folder, stopped while a delivery waits for its retry, then started again: the embedded
 * queue starts empty, and the runtime queues the waiting delivery again at start, so it ends SUCCEEDED without
 * waiting for the sweeper. Time scale 0.1: the retry is 3–4.5 s after the first failure, after the restart.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'customer-api-restart-'));
const tableName = `customer-api-restart-${randomUUID().slice(0, 8)}`;
const options: Partial<LocalRuntimeOptions> = {
  port: 0,
  dataDir,
  seed: true,
  logLevel: 'SILENT',
  resolver: controlledResolver({ 'hooks.example.test': ['127.0.0.1'] }).resolver,
  config: { webhookAllowLoopback: true, webhookTimeScale: 0.1 },
  // No sweep during the test: only the start-up requeue can carry the delivery on.
  sweepEveryMs: 24 * 3_600_000,
  ...(TEST_DYNAMODB_ENDPOINT ? { dynamoEndpoint: TEST_DYNAMODB_ENDPOINT, tableName } : {}),
};
let runtime: LocalRuntime | undefined;

afterAll(async () => {
  if (runtime && TEST_DYNAMODB_ENDPOINT) await runtime.dynamo.send(new DeleteTableCommand({ TableName: tableName }));
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`a restart of the local runtime (${ENGINE_NAME})`, () => {
  it('loses no delivery waiting for its retry: it is queued again at start and ends SUCCEEDED', async () => {
    const holder = { secret: '' };
    let requests = 0;
    const receiver = await startReceiver({ secret: () => holder.secret, behave: () => (++requests === 1 ? 503 : 200) });
    try {
      runtime = await startLocalRuntime(options);
      const app = await newApp(runtime, { scopes: ['bevq:read'] });
      const created = await addDestination(runtime.deps, { clientId: app.clientId, name: 'Hook', url: receiver.url, locationIds: null });
      holder.secret = created.signingSecret;
      const { deliveryId } = await publishFor(runtime.deps, created.destination.destinationId, 'nyc-midtown', 31);
      await waitForStatus(runtime, deliveryId, ['RETRY_PENDING']);
      await runtime.stop();
      runtime = undefined;

      runtime = await startLocalRuntime(options);
      const done = await waitForStatus(runtime, deliveryId, ['SUCCEEDED']);
      expect(done.attempts).toBe(2);
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received.every((r) => r.verified)).toBe(true);
    } finally {
      await receiver.stop();
    }
  });
});
