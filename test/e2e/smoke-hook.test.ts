import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FAMILIES } from '#contract/routes';
import { SCOPES } from '#contract/scopes';
import { WEBHOOK_FUNCTION_NAMES } from '#lib/functions';
import type { LocalRuntime } from '#local/runtime';
import { createSmokeHook, REPORT_RESERVE_MS, type HookEvent, type HookStatus } from '#smoke/hook';
import { newApp, startTestRuntime } from '../support/runtime.js';

/**
 * The canary's post-traffic hook against a real local runtime: the smoke runs over real HTTP; only the two AWS
 * calls are stand-ins, as ports (and, for the Lambda entry, one local HTTP endpoint answering the two JSON
 * operations through the real SDK clients).
 */
let runtime: LocalRuntime;
/** The smoke application as the ops docs create it: read scopes only, one group. */
let smokeApp: { clientId: string; clientSecret: string; groupId: string };

beforeAll(async () => {
  runtime = await startTestRuntime();
  const { clientId, clientSecret } = await newApp(runtime, {
    name: 'smoke hook',
    scopes: SCOPES.filter((scope) => scope.endsWith(':read')),
  });
  smokeApp = { clientId, clientSecret, groupId: 'demo-group' };
});
afterAll(() => runtime?.stop());

/** One per function a canary deploy moves: every family, the admin API and the three webhook functions. */
const DEPLOYMENT_GROUPS = FAMILIES.length + 1 + WEBHOOK_FUNCTION_NAMES.length;
const EVENT: HookEvent = { DeploymentId: 'd-SMOKE0001', LifecycleEventHookExecutionId: 'hook-execution-0001' };

/** A hook whose ports record what it reported and printed. */
function hookWith(credentials: () => Promise<string>, overrides: { baseUrl?: string; report?: () => Promise<void> } = {}) {
  const reports: { status: HookStatus; event: HookEvent }[] = [];
  const lines: { line: string; level: 'info' | 'error' }[] = [];
  const hook = createSmokeHook({
    credentials,
    report: overrides.report ?? (async (status, event) => void reports.push({ status, event })),
    baseUrl: 'baseUrl' in overrides ? overrides.baseUrl : runtime.url,
    print: (line, level) => lines.push({ line, level }),
  });
  const text = () => lines.map((l) => l.line).join('\n');
  const errors = () => lines.filter((l) => l.level === 'error').map((l) => l.line);
  return { hook, reports, lines, text, errors };
}

const secretOf = (credentials: object) => async () => JSON.stringify(credentials);

describe('the smoke hook (AfterAllowTraffic)', () => {
  it('reports Succeeded when every check passes, and prints each check but never the secret', async () => {
    const run = hookWith(secretOf(smokeApp));
    const status = await run.hook(EVENT, { timeLeftMs: 120_000 });
    expect(
      run.lines.filter((l) => /^FAIL /.test(l.line)),
      run.text(),
    ).toEqual([]);
    expect(status).toBe('Succeeded');
    expect(run.reports).toEqual([{ status: 'Succeeded', event: EVENT }]);
    expect(run.lines.filter((l) => l.line.startsWith('PASS  ')).length).toBeGreaterThan(15);
    // The test runtime publishes no menu (npm start does): bevq/menu is a SKIP, which is not a failure.
    expect(run.text()).toMatch(/^SMOKE PASS {2}(\d+) of \1 checks passed, \d+ skipped/m);
    expect(run.text()).toContain('(fingerprint)');
    expect(run.text()).toContain('reported Succeeded to CodeDeploy for deployment d-SMOKE0001');
    expect(run.text()).not.toContain(smokeApp.clientSecret);
    expect(run.errors()).toEqual([]);
  });

  it('passes when every deployment group of one deploy runs it in the same minute (one token exchange each, no refusals)', async () => {
    // A deploy that changes shared code moves every alias together: each group's post-traffic hook runs at once.
    // Wrong-secret checks would spend the client's token attempts (30 a minute) and fail the later runs.
    const { clientId, clientSecret } = await newApp(runtime, {
      name: 'smoke hook, one deploy',
      scopes: SCOPES.filter((scope) => scope.endsWith(':read')),
    });
    const runs = Array.from({ length: DEPLOYMENT_GROUPS }, () => hookWith(secretOf({ clientId, clientSecret, groupId: 'demo-group' })));
    const statuses = await Promise.all(runs.map((run) => run.hook(EVENT, { timeLeftMs: 120_000 })));
    expect(statuses, runs.map((run) => run.errors().join('\n')).join('\n')).toEqual(runs.map(() => 'Succeeded'));
    expect(runs[0]!.text()).not.toContain('token: wrong secret');
  });

  it('reports Failed when the stored secret is wrong, naming the check, without printing that secret', async () => {
    const wrong = `${smokeApp.clientSecret.slice(0, -4)}XXXX`;
    const run = hookWith(secretOf({ ...smokeApp, clientSecret: wrong }));
    expect(await run.hook(EVENT)).toBe('Failed');
    expect(run.reports).toEqual([{ status: 'Failed', event: EVENT }]);
    expect(run.text()).toContain('FAIL  token: client_secret_post');
    expect(run.text()).toMatch(/^SMOKE FAIL .*differ: token: client_secret_post/m);
    expect(run.text()).not.toContain(wrong);
    expect(run.text()).not.toContain(smokeApp.clientSecret);
  });

  it('reports Failed with the reason when the secret cannot be read', async () => {
    const run = hookWith(async () => {
      throw Object.assign(new Error('User is not authorized to perform: secretsmanager:GetSecretValue'), { name: 'AccessDeniedException' });
    });
    expect(await run.hook(EVENT)).toBe('Failed');
    expect(run.reports).toEqual([{ status: 'Failed', event: EVENT }]);
    expect(run.errors()[0]).toBe(
      'smoke hook: could not run the smoke checks: AccessDeniedException: User is not authorized to perform: secretsmanager:GetSecretValue',
    );
    expect(run.errors()[1]).toBe('smoke hook: reported Failed to CodeDeploy for deployment d-SMOKE0001');
  });

  it('reports Failed on malformed secret JSON without quoting it (V8 parse messages carry the input)', async () => {
    const { clientSecret } = smokeApp;
    for (const stored of [
      // The likeliest mistake: the bare client secret stored as the SecretString.
      clientSecret,
      // The secret unquoted, and the JSON cut short after it.
      JSON.stringify(smokeApp).replace(`"${clientSecret}"`, clientSecret),
      JSON.stringify(smokeApp).replace(/"groupId".*$/, '"groupId" "demo-group"}'),
    ]) {
      const parseMessage = (() => {
        try {
          JSON.parse(stored);
          return '';
        } catch (error) {
          return (error as Error).message;
        }
      })();
      expect(parseMessage).not.toBe('');
      const run = hookWith(async () => stored);
      expect(await run.hook(EVENT)).toBe('Failed');
      expect(run.reports).toEqual([{ status: 'Failed', event: EVENT }]);
      expect(run.errors()[0]).toMatch(/^smoke hook: could not run the smoke checks: the smoke secret is not JSON( \(at position \d+\))?$/);
      // V8 quotes up to ten characters around the fault; none of them may reach the log.
      expect(run.text()).not.toContain(clientSecret.slice(0, 10));
      expect(run.text()).not.toContain(clientSecret.slice(-10));
    }
  });

  it('reports Failed when the secret is JSON without the three fields', async () => {
    for (const [stored, reason] of [
      [JSON.stringify({ clientId: smokeApp.clientId }), 'the smoke secret lacks clientSecret, groupId (each a non-empty string)'],
      [JSON.stringify([smokeApp.clientSecret]), 'the smoke secret is not a JSON object {"clientId","clientSecret","groupId"}'],
      [JSON.stringify({ ...smokeApp, groupId: 42 }), 'the smoke secret lacks groupId (each a non-empty string)'],
    ] as const) {
      const run = hookWith(async () => stored);
      expect(await run.hook(EVENT)).toBe('Failed');
      expect(run.reports).toEqual([{ status: 'Failed', event: EVENT }]);
      expect(run.errors()[0]).toBe(`smoke hook: could not run the smoke checks: ${reason}`);
      expect(run.text()).not.toContain(smokeApp.clientSecret);
    }
  });

  it('reports Failed when the stage does not answer (network) or no URL is configured', async () => {
    // A port that was free a moment ago: every request is refused.
    const closed = await new Promise<number>((resolve) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
    });
    const refused = hookWith(secretOf(smokeApp), { baseUrl: `http://127.0.0.1:${closed}` });
    expect(await refused.hook(EVENT)).toBe('Failed');
    expect(refused.reports).toEqual([{ status: 'Failed', event: EVENT }]);
    expect(refused.text()).toMatch(/FAIL {2}token\n.*\n.*answer fetch failed: ECONNREFUSED/);
    expect(refused.text()).not.toContain(smokeApp.clientSecret);

    for (const [baseUrl, reason] of [
      [undefined, 'SMOKE_BASE_URL is not set'],
      ['ftp://example.com', 'SMOKE_BASE_URL is not an http(s) URL'],
    ] as const) {
      const run = hookWith(secretOf(smokeApp), { baseUrl });
      expect(await run.hook(EVENT)).toBe('Failed');
      expect(run.reports).toEqual([{ status: 'Failed', event: EVENT }]);
      expect(run.errors()[0]).toBe(`smoke hook: could not run the smoke checks: ${reason}`);
    }
  });

  it("reports Failed before the function's time runs out, leaving the status call its reserve", async () => {
    const run = hookWith(() => new Promise<string>(() => {}));
    const started = Date.now();
    expect(await run.hook(EVENT, { timeLeftMs: REPORT_RESERVE_MS + 50 })).toBe('Failed');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(run.reports).toEqual([{ status: 'Failed', event: EVENT }]);
    expect(run.errors()[0]).toBe(
      "smoke hook: could not run the smoke checks: the smoke checks did not finish within 50 ms of the function's time",
    );
  });

  it('throws (so Lambda retries the invocation) when the report itself fails, and when the event is not CodeDeploy’s', async () => {
    const run = hookWith(async () => 'not json', {
      report: async () => {
        throw Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
      },
    });
    await expect(run.hook(EVENT)).rejects.toThrow('Rate exceeded');
    expect(run.errors().at(-1)).toBe(
      'smoke hook: could not report Failed to CodeDeploy for deployment d-SMOKE0001: ThrottlingException: Rate exceeded',
    );

    const stray = hookWith(secretOf(smokeApp));
    await expect(stray.hook({} as HookEvent)).rejects.toThrow('not a CodeDeploy lifecycle event');
    expect(stray.reports).toEqual([]);
  });
});

describe('the Lambda entry (smoke/hook-handler.ts)', () => {
  /** Secrets Manager and CodeDeploy's JSON operations as a local endpoint the real SDK clients are pointed at. */
  type Call = { target: string; body: any };
  const calls: Call[] = [];
  const secrets = new Map<string, string>();
  let aws: Server;

  beforeAll(async () => {
    aws = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const call = { target: String(req.headers['x-amz-target']), body: JSON.parse(body || '{}') };
        calls.push(call);
        const answer = (status: number, json: object) => {
          res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' }).end(JSON.stringify(json));
        };
        if (call.target === 'secretsmanager.GetSecretValue') {
          const stored = secrets.get(call.body.SecretId);
          if (stored === undefined) {
            answer(400, { __type: 'ResourceNotFoundException', message: "Secrets Manager can't find the specified secret." });
          } else {
            answer(200, {
              ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${call.body.SecretId}`,
              Name: call.body.SecretId,
              SecretString: stored,
            });
          }
        } else if (call.target === 'CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus') {
          answer(200, { lifecycleEventHookExecutionId: call.body.lifecycleEventHookExecutionId });
        } else {
          answer(400, { __type: 'UnknownOperationException', message: call.target });
        }
      });
    });
    await new Promise<void>((resolve) => aws.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(aws.address() as { port: number }).port}`;
    // Service-specific endpoints, so the runtime's own DynamoDB, SQS and SES clients are untouched.
    process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = endpoint;
    process.env.AWS_ENDPOINT_URL_CODEDEPLOY = endpoint;
    process.env.AWS_REGION ??= 'us-east-1';
    // Only when absent: the DynamoDB Local pass keys its database by the access key id already set.
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    process.env.SMOKE_BASE_URL = runtime.url;
    process.env.SMOKE_SECRET_ID = 'customer-api/test/smoke';
  });
  afterAll(() => new Promise<void>((resolve) => (aws ? aws.close(() => resolve()) : resolve())));

  const context = (id: string) => ({ awsRequestId: id, getRemainingTimeInMillis: () => 120_000 });

  it('calls nothing at import, then reads the secret, runs the smoke and reports to CodeDeploy through the real clients', async () => {
    const { handler } = await import('#smoke/hook-handler');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(calls).toEqual([]);

    secrets.set('customer-api/test/smoke', JSON.stringify(smokeApp));
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    let status: HookStatus;
    try {
      status = await handler(EVENT, context('request-1'));
    } finally {
      write.mockRestore();
    }
    expect(status).toBe('Succeeded');
    expect(calls).toEqual([
      { target: 'secretsmanager.GetSecretValue', body: { SecretId: 'customer-api/test/smoke' } },
      {
        target: 'CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus',
        body: { deploymentId: 'd-SMOKE0001', lifecycleEventHookExecutionId: 'hook-execution-0001', status: 'Succeeded' },
      },
    ]);
    // One JSON log line per printed line, each with the invocation's keys and the deployment.
    const lines = written
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.length).toBeGreaterThan(20);
    expect(lines.every((l) => l.function_request_id === 'request-1' && l.cold_start === true && l.deploymentId === 'd-SMOKE0001')).toBe(
      true,
    );
    expect(lines.map((l) => l.message)).toContain('PASS  discovery: locations');
    expect(written.join('')).not.toContain(smokeApp.clientSecret);
  });

  it('reports Failed when the secret does not exist', async () => {
    calls.length = 0;
    const { handler } = await import('#smoke/hook-handler');
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (written.push(String(chunk)), true));
    try {
      process.env.SMOKE_SECRET_ID = 'customer-api/test/missing';
      expect(await handler(EVENT, context('request-2'))).toBe('Failed');
    } finally {
      write.mockRestore();
      process.env.SMOKE_SECRET_ID = 'customer-api/test/smoke';
    }
    expect(calls.map((c) => [c.target, c.body.status])).toEqual([
      ['secretsmanager.GetSecretValue', undefined],
      ['CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus', 'Failed'],
    ]);
    const lines = written
      .join('')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toMatchObject({
      level: 'ERROR',
      message: "smoke hook: could not run the smoke checks: ResourceNotFoundException: Secrets Manager can't find the specified secret.",
      cold_start: false,
    });
  });
});
