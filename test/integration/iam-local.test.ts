import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileGuard, compileStatements, guardClient, requestsOf } from '#local/iam-guard';
import { policiesOf, synthesizedPolicies, synthesizeDevTemplate, type RolePolicies } from '#local/iam-policies';
import { localEndpoint } from '#local/endpoints';
import { eventually } from '../support/eventually.js';
import type { LocalRuntime } from '#local/runtime';
import { call, exchange, newApp, producerCall, scanTable, startTestRuntime, tokenFor } from '../support/runtime.js';
import { sampleMenu } from '#local/demo-menu';

const REGION = process.env.AWS_REGION ?? 'us-east-1';
type Call = { function: string; action: string; resource: string; allowed: boolean };

/** `policies` without `action` in `fn`'s role. */
function without(policies: RolePolicies, fn: string, action: string): RolePolicies {
  return {
    ...policies,
    functions: {
      ...policies.functions,
      [fn]: policies.functions[fn]!.map((s) => ({ ...s, actions: s.actions.filter((a) => a !== action) })),
    },
  };
}

/** Every JSON line `run` writes on stdout (the runtime's logger writes there). */
async function stdoutOf(run: () => Promise<unknown>): Promise<Record<string, any>[]> {
  const original = process.stdout.write;
  let out = '';
  process.stdout.write = (chunk: string | Uint8Array) => ((out += chunk.toString()), true);
  try {
    await run();
  } finally {
    process.stdout.write = original;
  }
  return out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, any>);
}

describe('IAM enforced locally: a role narrowed in the synthesized policies', () => {
  let runtime: LocalRuntime;
  beforeAll(async () => {
    const policies = await synthesizedPolicies();
    runtime = await startTestRuntime({ iam: { policies: without(policies, 'bevq', 'dynamodb:UpdateItem') }, logLevel: 'ERROR' });
  });
  afterAll(() => runtime?.stop());

  it('answers 500 where the code calls the missing action, with AccessDeniedException logged, as AWS would', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['bevq:read'] });
    let status = 0;
    const lines = await stdoutOf(async () => {
      // Every /v1 request bumps the rate counter (UpdateItem) before the route runs. (The contract describes no 500.)
      const reply = await fetch(`${runtime.url}/v1/demo-group/nyc-midtown/bevq/menu`, { headers: { Authorization: `Bearer ${token}` } });
      status = reply.status;
      await reply.text();
    });
    expect(status).toBe(500);
    // the HTTP shell's line for anything thrown: the error's name and message.
    const logged = lines.find((l) => l.error === 'AccessDeniedException');
    expect(logged, JSON.stringify(lines)).toMatchObject({ level: 'ERROR', service: 'customer-api' });
    expect(logged!.message).toContain('is not authorized to perform: dynamodb:UpdateItem');
    // Another family, whose role keeps the grant, is unaffected.
    const { token: discovery } = await tokenFor(runtime, { scopes: ['locations:read'] });
    expect((await call(runtime, '/v1/demo-group/locations', { token: discovery })).status).toBe(200);
  });

  it("throws the error DynamoDB returns: AccessDeniedException, HTTP 400, AWS's message", async () => {
    const err = await runtime
      .functionDeps('bevq')
      .store.rateCounters.hit('API', 'app_x', new Date().toISOString(), 60)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DynamoDBServiceException);
    expect(err).toMatchObject({ name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400 } });
    expect((err as Error).message).toMatch(
      new RegExp(
        `^User: arn:aws:sts::\\d{12}:assumed-role/.+/bevq is not authorized to perform: dynamodb:UpdateItem on resource: arn:aws:dynamodb:${REGION}:\\d{12}:table/${runtime.tableName} because no identity-based policy allows the dynamodb:UpdateItem action$`,
      ),
    );
  });

  it("refuses SQS to a role without a queue grant (AccessDenied, 403) and keeps the runtime's own clients unguarded", async () => {
    const err = await runtime
      .functionDeps('bevq')
      .queue.send('{}')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    expect((err as Error).message).toContain('sqs:SendMessage');
    await expect(runtime.deps.queue.dlq.depth()).resolves.toBeDefined();
  });
});

describe('the guard, on the synthesized roles', () => {
  let policies: RolePolicies;
  const local = {
    region: REGION,
    tableName: 't',
    queueUrl: 'http://q/000000000000/t-webhooks',
    dlqUrl: 'http://q/000000000000/t-webhooks-dlq',
    fanOutQueueUrl: 'http://q/000000000000/t-webhooks-fanout',
    stopQueueUrl: 'http://q/000000000000/t-stop-commands',
    mailFrom: 'Alerts <alerts@local.test>',
  };
  beforeAll(async () => {
    policies = await synthesizedPolicies();
  });

  it('maps commands to IAM actions and resources: an index, a batch per table, SQS batches as their single action, SES with ses:FromAddress', () => {
    expect(requestsOf('dynamodb', 'QueryCommand', { TableName: 't', IndexName: 'GSI1' }, local)).toEqual([
      { action: 'dynamodb:Query', resource: `arn:aws:dynamodb:${REGION}:000000000000:table/t/index/GSI1`, context: {} },
    ]);
    expect(requestsOf('dynamodb', 'BatchWriteItemCommand', { RequestItems: { t: [], u: [] } }, local).map((r) => r.resource)).toEqual([
      `arn:aws:dynamodb:${REGION}:000000000000:table/t`,
      `arn:aws:dynamodb:${REGION}:000000000000:table/u`,
    ]);
    expect(requestsOf('sqs', 'DeleteMessageBatchCommand', { QueueUrl: local.dlqUrl }, local)[0]).toMatchObject({
      action: 'sqs:DeleteMessage',
      resource: `arn:aws:sqs:${REGION}:000000000000:t-webhooks-dlq`,
    });
    expect(requestsOf('ses', 'SendEmailCommand', { FromEmailAddress: 'Alerts <alerts@local.test>' }, local)[0]).toMatchObject({
      action: 'ses:SendEmail',
      context: { 'ses:FromAddress': 'alerts@local.test' },
    });
  });

  it('allows each role its grants only: GSI1 for admin, not for bevq; the DLQ for the sweeper, not the deliverer; each queue to its consumer; mail only from MAIL_FROM', () => {
    const allows = (fn: string, service: 'dynamodb' | 'sqs' | 'ses', command: string, input: Record<string, unknown>) =>
      requestsOf(service, command, input, local).every((r) => compileGuard(fn, policies, local).allows(r) === 'allowed');
    expect(allows('admin-api', 'dynamodb', 'QueryCommand', { TableName: 't', IndexName: 'GSI1' })).toBe(true);
    expect(allows('bevq', 'dynamodb', 'QueryCommand', { TableName: 't', IndexName: 'GSI1' })).toBe(false);
    expect(allows('bevq', 'dynamodb', 'QueryCommand', { TableName: 'other' })).toBe(false);
    expect(allows('token', 'dynamodb', 'DeleteItemCommand', { TableName: 't' })).toBe(false);
    expect(allows('webhook-sweeper', 'sqs', 'ReceiveMessageCommand', { QueueUrl: local.dlqUrl })).toBe(true);
    expect(allows('webhook-deliverer', 'sqs', 'ReceiveMessageCommand', { QueueUrl: local.dlqUrl })).toBe(false);
    // Each queue its own consumer: the deliverer sends no delivery and receives no wake-up; it only wakes a release.
    expect(allows('webhook-deliverer', 'sqs', 'SendMessageBatchCommand', { QueueUrl: local.queueUrl })).toBe(false);
    expect(allows('webhook-deliverer', 'sqs', 'SendMessageCommand', { QueueUrl: local.fanOutQueueUrl })).toBe(true);
    expect(allows('webhook-deliverer', 'sqs', 'ReceiveMessageCommand', { QueueUrl: local.fanOutQueueUrl })).toBe(false);
    expect(allows('webhook-dispatcher', 'sqs', 'ReceiveMessageCommand', { QueueUrl: local.fanOutQueueUrl })).toBe(true);
    expect(allows('webhook-dispatcher', 'sqs', 'ReceiveMessageCommand', { QueueUrl: local.queueUrl })).toBe(false);
    expect(allows('webhook-dispatcher', 'sqs', 'SendMessageBatchCommand', { QueueUrl: local.queueUrl })).toBe(true);
    // Stop commands: sent by the matriq function and the sweeper, received by none of them.
    const stops = { QueueUrl: local.stopQueueUrl };
    expect(allows('matriq', 'sqs', 'SendMessageCommand', stops)).toBe(true);
    expect(allows('webhook-sweeper', 'sqs', 'SendMessageCommand', stops)).toBe(true);
    expect(allows('matriq', 'sqs', 'ReceiveMessageCommand', stops)).toBe(false);
    expect(allows('matriq', 'sqs', 'SendMessageCommand', { QueueUrl: local.queueUrl })).toBe(false);
    expect(allows('bevq', 'sqs', 'SendMessageCommand', stops)).toBe(false);
    expect(allows('admin-api', 'ses', 'SendEmailCommand', { FromEmailAddress: 'alerts@local.test' })).toBe(true);
    expect(allows('admin-api', 'ses', 'SendEmailCommand', { FromEmailAddress: 'someone@else.test' })).toBe(false);
    expect(allows('webhook-deliverer', 'ses', 'SendEmailCommand', { FromEmailAddress: 'alerts@local.test' })).toBe(false);
  });

  it("holds the device platform to its policy's queue: it consumes the stop commands, sends none, and touches no other queue", () => {
    const guard = compileStatements('device-platform', policies.producers['device-platform']!, local);
    const may = (command: string, QueueUrl: string) =>
      requestsOf('sqs', command, { QueueUrl }, local).every((r) => guard.allows(r) === 'allowed');
    for (const command of ['ReceiveMessageCommand', 'DeleteMessageCommand', 'ChangeMessageVisibilityCommand', 'GetQueueAttributesCommand'])
      expect(may(command, local.stopQueueUrl), command).toBe(true);
    expect(may('SendMessageCommand', local.stopQueueUrl)).toBe(false);
    expect(may('ReceiveMessageCommand', local.queueUrl)).toBe(false);
    expect(may('ReceiveMessageCommand', local.fanOutQueueUrl)).toBe(false);
    const posSync = compileStatements('pos-sync', policies.producers['pos-sync']!, local);
    expect(
      requestsOf('sqs', 'ReceiveMessageCommand', { QueueUrl: local.stopQueueUrl }, local).every((r) => posSync.allows(r) === 'allowed'),
    ).toBe(false);
  });

  it('refuses SES v2 as AWS does (AccessDeniedException, 403) before anything is sent', async () => {
    const ses = guardClient(
      new SESv2Client(localEndpoint('http://127.0.0.1:9', REGION, null)),
      'ses',
      compileGuard('admin-api', policies, local),
      local,
      { callLog: undefined },
    );
    const err = await ses
      .send(
        new SendEmailCommand({
          FromEmailAddress: 'someone@else.test',
          Destination: { ToAddresses: ['a@b.test'] },
          Content: { Simple: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } } },
        }),
      )
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'AccessDeniedException', $metadata: { httpStatusCode: 403 } });
    ses.destroy();
  });
});

/**
 * Belt and braces: every (function, action, resource) the guard saw in a run (IAM_CALL_LOG) is allowed by the
 * template synthesized afresh here, read by a plain comparison of its statements (no cache, no guard code).
 */
describe('every call recorded (IAM_CALL_LOG) is allowed by the synthesized template', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'iam-calls-')), 'calls.jsonl');
  let runtime: LocalRuntime;
  beforeAll(async () => {
    const previous = process.env.IAM_CALL_LOG;
    process.env.IAM_CALL_LOG = file;
    try {
      runtime = await startTestRuntime();
    } finally {
      if (previous === undefined) delete process.env.IAM_CALL_LOG;
      else process.env.IAM_CALL_LOG = previous;
    }
    // A run through every function: token, the /v1 families, admin (destination, publish), dispatcher, deliverer, sweeper.
    const app = await newApp(runtime, {
      scopes: [
        'locations:read',
        'bevq:read',
        'sportsq:read',
        'campaigns:read',
        'orderboard:read',
        'shiftq:read',
        'matriq:read',
        'matriq:ai-scheduler:stop',
      ],
    });
    const { access_token: token } = await exchange(runtime, app.clientId, app.clientSecret);
    for (const path of [
      '/v1/demo-group/locations',
      '/v1/demo-group/nyc-midtown/bevq/menu',
      '/v1/demo-group/nyc-midtown/campaigns',
      '/v1/demo-group/nyc-midtown/orderboard',
    ]) {
      await fetch(`${runtime.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    }
    // An emergency stop: written and sent on the stop-command queue by the matriq function.
    await fetch(`${runtime.url}/v1/demo-group/nyc-midtown/matriq/aiScheduler/emergency-stop`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    const admin = { Authorization: `Bearer ${runtime.adminKey}`, 'Content-Type': 'application/json' };
    await fetch(`${runtime.url}/admin/v1/apps?limit=5`, { headers: admin });
    await fetch(`${runtime.url}/admin/v1/dead-letters`, { headers: admin });
    // A producer's menu: the producer function publishes it, the dispatcher (woken on the fan-out queue) fans it out.
    await producerCall(runtime, 'pos-sync', 'PUT', '/menus/demo-group/london-soho', {
      sourceTime: new Date(runtime.deps.clock.now()).toISOString(),
      data: { sections: sampleMenu({ price: 9 }).sections },
    });
    await eventually(
      async () => ((await scanTable(runtime)).some((i) => String(i.PK).startsWith('OUTBOX#')) ? undefined : true),
      () => 'the menu event still waits in the outbox',
    );
    await runtime.sweep();
  });
  afterAll(() => runtime?.stop());

  it('records calls of several functions and services, and each is allowed', async () => {
    const calls = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Call);
    const external =
      process.env.IAM_CALL_LOG && existsSync(process.env.IAM_CALL_LOG)
        ? readFileSync(process.env.IAM_CALL_LOG, 'utf8')
            .trim()
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as Call)
        : [];
    const seen = new Set(calls.map((c) => c.function));
    for (const fn of [
      'token',
      'discovery',
      'bevq',
      'matriq',
      'admin-api',
      'producer-api',
      'webhook-dispatcher',
      'webhook-sweeper',
      'webhook-deliverer',
    ])
      expect(seen).toContain(fn);
    expect(new Set(calls.map((c) => c.action.split(':')[0]))).toEqual(new Set(['dynamodb', 'sqs']));

    const { functions } = policiesOf(await synthesizeDevTemplate());
    const grants = (c: Call) =>
      (functions[c.function] ?? []).some(
        (s) =>
          s.effect === 'Allow' &&
          s.actions.includes(c.action) &&
          s.resources.some((r) => r === c.resource || (r.endsWith('*') && c.resource.startsWith(r.slice(0, -1)))),
      );
    const refused = [...calls, ...external].filter((c) => c.allowed && !grants(c));
    expect(refused).toEqual([]);
    // And the guard refused nothing in a run of the service as deployed.
    expect(calls.filter((c) => !c.allowed)).toEqual([]);
  });
});
