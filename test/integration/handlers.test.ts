import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandler as discovery } from '#lambdas/discovery/discovery';
import { createHandler as token } from '#lambdas/token/token';
import { createHandler as admin } from '#lambdas/admin/admin';
import { createHandler as producers } from '#lambdas/producers/producers';
import { PRODUCER_LINE_MESSAGE } from '#lambdas/producers/update-line';
import { listAudit } from '#lambdas/admin/audit';
import { openApiDocument } from '#lib/openapi';
import { Logger, ACCESS_LINE_MESSAGE, createMetrics, HTTP_COUNT_DIMENSIONS } from '#platform/observability';
import type { MessagingDeps } from '#lambdas/webhooks/deps';
import type { LocalRuntime } from '#local/runtime';
import { API_HOST, apiGatewayEvent } from '../support/api-gateway.js';
import { newApp, startTestRuntime } from '../support/runtime.js';

/** Handlers invoked directly with the events API Gateway sends them, against a real dynalite. */
let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime();
});
afterAll(() => runtime?.stop());

const context = { functionName: 'f', awsRequestId: 'req-1', getRemainingTimeInMillis: () => 10_000 } as unknown as Context;

describe('handlers behind API Gateway', () => {
  it('exchange a base64-encoded form body and serve discovery with the stage prefix in absolute URLs', async () => {
    const app = await newApp(runtime);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
    const issued = await token(runtime.deps)(
      apiGatewayEvent('POST', '/oauth/token', '/oauth/token', {
        headers: { Host: API_HOST, 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' },
        body: Buffer.from(form.toString()).toString('base64'),
        isBase64Encoded: true,
      }),
      context,
    );
    expect(issued.statusCode).toBe(200);
    const { access_token } = JSON.parse(issued.body);

    const reply = await discovery(runtime.deps)(
      apiGatewayEvent('GET', '/v1/{group_id}/locations', '/v1/demo-group/locations', {
        headers: { Host: API_HOST, 'X-Forwarded-Proto': 'https', authorization: `bearer ${access_token}` },
      }),
      context,
    );
    expect(reply.statusCode).toBe(200);
    const body = JSON.parse(reply.body);
    expect(body.data.locations[0].endpoints.root).toBe(`https://${API_HOST}/dev/v1/demo-group/denver-union`);
    expect(reply.headers?.['X-Request-Id']).toBe('req-1');
  });

  it('answer the $default route with 404 and 405 in the error shape', async () => {
    const handler = discovery(runtime.deps);
    // The HTTP API's $default route names no template and no parameters: the function resolves the (decoded) path.
    const missing = await handler(apiGatewayEvent('GET', '$default', '/v2/anything', { pathParameters: null }), context);
    expect(missing.statusCode).toBe(404);
    expect(JSON.parse(missing.body).error.code).toBe('not_found');
    const wrong = await handler(apiGatewayEvent('PUT', '$default', '/v1/demo-group/locations', { pathParameters: null }), context);
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers?.Allow).toBe('GET');
  });

  it('serve the OpenAPI artefact with the stage prefix as server URL, and a 500 when the artefact is missing', async () => {
    const event = apiGatewayEvent('GET', '/v1/openapi.json', '/v1/openapi.json');
    const reply = await discovery(runtime.deps)(event, context);
    expect(reply.statusCode).toBe(200);
    expect(reply.body).toBe(JSON.stringify(openApiDocument(`https://${API_HOST}/dev`)));
    const config = { ...runtime.deps.config, openApiDocumentPath: '/nonexistent/openapi.json' };
    const broken = await discovery({ ...runtime.deps, config })(event, context);
    expect(broken.statusCode).toBe(500);
    expect(JSON.parse(broken.body).error.code).toBe('internal_error');
  });
});

/** What a call writes to stdout (where Lambda's log agent picks up logs and EMF). */
async function stdoutOf(call: () => Promise<unknown>): Promise<string> {
  const chunks: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    await call();
  } finally {
    write.mockRestore();
  }
  return chunks.join('');
}

describe('metrics', () => {
  /** The JSON lines a call writes to stdout (where Lambda's log agent picks up logs and EMF), with metrics on. */
  async function linesOf(call: (deps: MessagingDeps) => Promise<unknown>): Promise<Record<string, unknown>[]> {
    const previous = process.env.METRICS_DISABLED;
    process.env.METRICS_DISABLED = 'false';
    const deps = { ...runtime.deps, logger: new Logger({ serviceName: 'customer-api', logLevel: 'INFO' }), metrics: createMetrics('dev') };
    if (previous === undefined) delete process.env.METRICS_DISABLED;
    else process.env.METRICS_DISABLED = previous;
    const raw = await stdoutOf(() => call(deps));
    return raw
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l));
  }

  it("counts requests from the access line: the counts' dimensions are fields of it, the caller is not, and no EMF rides along", async () => {
    const app = await newApp(runtime);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: 'wrong' });
    const tokenLines = await linesOf((deps) =>
      token(deps)(
        apiGatewayEvent('POST', '/oauth/token', '/oauth/token', {
          headers: { Host: API_HOST, 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
        }),
        context,
      ),
    );
    const tokenAccess = tokenLines.find((l) => l.message === ACCESS_LINE_MESSAGE)!;
    expect(tokenAccess).toMatchObject({
      service: 'customer-api',
      stage: runtime.deps.config.stage,
      api: 'token',
      status: 401,
      operation: 'issueToken',
      level: 'INFO',
    });
    // The metric filters read the dimensions from these fields (lib/constructs/request-metrics.ts); none of them names the client.
    for (const name of HTTP_COUNT_DIMENSIONS) expect(String(tokenAccess[name])).not.toContain(app.clientId);
    // A request writes its access line and no EMF of its own (a process's first invocation adds its ColdStart count).
    for (const line of tokenLines.filter((l) => '_aws' in l)) expect(Object.keys(line)).not.toContain('Requests');

    const v1Lines = await linesOf((deps) =>
      discovery(deps)(
        apiGatewayEvent('GET', '/v1/{group_id}/locations', '/v1/demo-group/locations', {
          headers: { Host: API_HOST, authorization: 'Bearer garbage' },
        }),
        context,
      ),
    );
    expect(v1Lines.filter((l) => '_aws' in l && 'Requests' in l)).toEqual([]);
    expect(v1Lines.find((l) => l.message === ACCESS_LINE_MESSAGE)).toMatchObject({
      stage: runtime.deps.config.stage,
      api: 'v1',
      status: 401,
      operation: 'listLocations',
    });
    expect(JSON.stringify(v1Lines)).not.toContain('garbage');
  });
});

describe('one HTTP shell for /v1, token and admin', () => {
  /** The access-log lines a call writes, from a logger at INFO (the test runtime's is silent). */
  async function accessLogOf(
    call: (deps: LocalRuntime['deps']) => Promise<unknown>,
  ): Promise<{ lines: Record<string, unknown>[]; raw: string }> {
    const deps = { ...runtime.deps, logger: new Logger({ serviceName: 'customer-api', logLevel: 'INFO' }) };
    const raw = await stdoutOf(() => call(deps));
    const lines = raw
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { lines: lines.filter((l) => l.message === 'request'), raw };
  }

  it('writes the same access-log line for every API, with the caller and never a secret', async () => {
    const app = await newApp(runtime);
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret });
    let accessToken = '';
    let createdSecret = '';
    const { lines, raw } = await accessLogOf(async (deps) => {
      const issued = await token(deps)(
        apiGatewayEvent('POST', '/oauth/token', '/oauth/token', {
          headers: { Host: API_HOST, 'content-type': 'application/x-www-form-urlencoded' },
          body: form.toString(),
        }),
        context,
      );
      accessToken = JSON.parse(issued.body).access_token;
      await discovery(deps)(
        apiGatewayEvent('GET', '/v1/{group_id}/locations', '/v1/demo-group/locations', {
          headers: { Host: API_HOST, authorization: `Bearer ${accessToken}` },
        }),
        context,
      );
      const body = JSON.stringify({ groupId: 'demo-group', name: 'Shell check', scopes: ['locations:read'] });
      const created = await admin(deps)(
        apiGatewayEvent('POST', '/admin/v1/apps', '/admin/v1/apps', {
          headers: { Host: API_HOST, 'content-type': 'application/json' },
          body,
          requestContext: {
            requestId: 'req-2',
            identity: { userArn: 'arn:aws:iam::123456789012:user/ops' },
          } as APIGatewayProxyEvent['requestContext'],
        }),
        context,
      );
      createdSecret = JSON.parse(created.body).clientSecret;
    });
    expect(lines.map((l) => [l.api, l.operation, l.status, l.caller])).toEqual([
      ['token', 'issueToken', 200, undefined],
      ['v1', 'listLocations', 200, app.clientId],
      ['admin', 'createApp', 201, 'arn:aws:iam::123456789012:user/ops'],
    ]);
    for (const line of lines)
      expect(Object.keys(line)).toEqual(expect.arrayContaining(['requestId', 'api', 'operation', 'status', 'latencyMs']));
    expect(createdSecret).toMatch(/.{20,}/);
    for (const secret of [app.clientSecret, accessToken, createdSecret]) expect(raw).not.toContain(secret);
  });

  it('answers an unexpected failure of the token function with a 500 in the error shape and its request id', async () => {
    const broken = {
      ...runtime.deps,
      store: { ...runtime.deps.store, rateCounters: { hit: () => Promise.reject(new Error('engine down')) } },
    } as unknown as MessagingDeps;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: 'someone', client_secret: 'x' });
    const reply = await token(broken)(
      apiGatewayEvent('POST', '/oauth/token', '/oauth/token', {
        headers: { Host: API_HOST, 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
      }),
      context,
    );
    expect(reply.statusCode).toBe(500);
    expect(JSON.parse(reply.body).error.code).toBe('internal_error');
    expect(reply.headers?.['X-Request-Id']).toBe('req-1');
  });

  it("answers the console's prefix as the admin route it mirrors, for members of the admins group only, and audits the console user", async () => {
    const handler = admin(runtime.deps);
    // The console's one route is a catch-all: the function finds the admin route from the path.
    const consoleEvent = (groups: unknown, method = 'POST', path = '/console-api/v1/dead-letters/redrive') =>
      apiGatewayEvent(method, '/console-api/{proxy+}', path, {
        ...(method === 'POST' ? { body: '{}' } : {}),
        headers: { Host: API_HOST, 'Content-Type': 'application/json' },
        requestContext: {
          requestId: `req-console-${String(groups)}`,
          path,
          stage: '$default',
          domainName: API_HOST,
          authorizer: { claims: { username: 'ops-alice', 'cognito:groups': groups, sub: 'u-1' } },
        } as unknown as APIGatewayProxyEvent['requestContext'],
      });
    // API Gateway hands a JWT's array claim on as a bracketed string.
    for (const groups of ['[admins]', '[readers admins]', ['admins']]) {
      const reply = await handler(consoleEvent(groups), context);
      expect(reply.statusCode, String(groups)).toBe(200);
    }
    // A path parameter comes from the path.
    const locations = await handler(consoleEvent('[admins]', 'GET', '/console-api/v1/groups/demo-group/locations'), context);
    expect(locations.statusCode).toBe(200);
    expect(JSON.stringify(JSON.parse(locations.body))).toContain('denver-union');
    const wrongMethod = await handler(consoleEvent('[admins]', 'DELETE', '/console-api/v1/groups/demo-group/locations'), context);
    expect([wrongMethod.statusCode, wrongMethod.headers?.Allow]).toEqual([405, 'GET']);
    for (const groups of ['[readers]', undefined, []]) {
      const reply = await handler(consoleEvent(groups), context);
      expect(reply.statusCode, String(groups)).toBe(403);
      expect(JSON.parse(reply.body).error.code).toBe('forbidden');
    }
    const { entries } = await listAudit(runtime.deps, { limit: 10 });
    expect(entries.filter((e) => e.operation === 'redriveAllDeadLetters').map((e) => e.actor)).toEqual([
      'cognito:ops-alice',
      'cognito:ops-alice',
      'cognito:ops-alice',
    ]);
  });

  it('writes one line per producer update that reached its route: its producer, outcome and lag, a refusal too', async () => {
    const deps = { ...runtime.functionDeps('producer-api'), logger: new Logger({ serviceName: 'customer-api', logLevel: 'INFO' }) };
    const path = '/producer/v1/groups/demo-group';
    const put = (body: string) =>
      producers(deps)(
        apiGatewayEvent('PUT', '/producer/{proxy+}', path, { headers: { Host: API_HOST, 'Content-Type': 'application/json' }, body }),
        context,
      );
    // Later than the demo seed's own time, so the first is applied.
    const sourceTime = new Date(Date.now()).toISOString();
    const raw = await stdoutOf(async () => {
      expect((await put(JSON.stringify({ sourceTime, data: { name: 'Demo Group' } }))).statusCode).toBe(200);
      expect((await put(JSON.stringify({ sourceTime, data: { name: 'Demo Group' } }))).statusCode).toBe(200);
      expect((await put(JSON.stringify({ sourceTime, data: { name: 7 } }))).statusCode).toBe(400);
    });
    const lines = raw
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.message === PRODUCER_LINE_MESSAGE);
    expect(lines).toEqual([
      expect.objectContaining({ producer: 'venue-directory', operation: 'putGroup', outcome: 'applied', lagMs: expect.any(Number) }),
      expect.objectContaining({ producer: 'venue-directory', operation: 'putGroup', outcome: 'duplicate' }),
      expect.objectContaining({ producer: 'venue-directory', operation: 'putGroup', outcome: 'refused', code: 'invalid_request' }),
    ]);
    expect(lines[0]!.lagMs).toBeGreaterThanOrEqual(0);
  });
});
