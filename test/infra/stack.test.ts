import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileFunction } from 'node:vm';
import { buildSync } from 'esbuild';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SPORTS_LOGO_DIR, SPORTS_LOGO_PACKAGE_DIR } from '#contract/assets';
import { TABLE_KEYS } from '#data/table';
import { DELIVERY_POLICY, DERIVED } from '#lambdas/webhooks/delivery-policy';
import { FAN_OUT_QUEUES, WEBHOOK_QUEUES } from '#lambdas/webhooks/queues';
import { STOP_COMMAND_QUEUES } from '#lambdas/matriq/stop-queue';
import { FAMILIES, CATCH_ALL_FAMILY, TOKEN_PATH } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { OPENAPI_ARTEFACT } from '#contract/openapi-artefact';
import { openApiArtefact } from '#lib/openapi';
import { FAMILY_TAG, LIVE_ALIAS, pascal } from '#lib/constructs/service-function';
import { ADMIN_PROXY_PATH, ADMIN_ROUTES, CONSOLE_ADMIN_GROUP, CONSOLE_API_ROOT, consolePathOf } from '#contract/admin-routes';
import { rateLimitCeiling } from '#lambdas/admin/apps';
import { DEFAULT_RATE_LIMIT_PER_MINUTE } from '#platform/config';
import { FUNCTIONS, WEBHOOK_FUNCTION_NAMES, type WebhookFunctionName } from '#lib/functions';
import { LAMBDA_LOGGING } from '#lib/lambda-logging';
import { LAMBDA_BUNDLING, LAMBDA_NODE_OPTIONS, lambdaBuildOptions } from '#lib/bundling';
import {
  logger,
  ACCESS_LINE_MESSAGE,
  createMetrics,
  HTTP_COUNT_DIMENSIONS,
  HTTP_COUNTS,
  METRICS_NAMESPACE,
  Logger,
} from '#platform/observability';
import { httpShell } from '#platform/http';
import type { Deps } from '#platform/deps';
import type { MessagingDeps } from '#lambdas/webhooks/deps';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import type { Delivery } from '#lambdas/webhooks/deliveries';
import { reportOutcome } from '#lambdas/webhooks/deliver';
import { CustomerApiStack } from '#lib/stack';
import { isStage, STAGE_TABLE, StageRefusal, stageConfig, throttlesOf, type Stage } from '#lib/stages';
import { buildApp } from '#lib/app';
import { OTHER_ROUTE_THROTTLE, PRODUCER_ROUTE_KEY, throttleSum } from '#lib/route-throttles';
import { PRODUCER_PROXY_PATH, PRODUCER_ROUTES, PRODUCERS } from '#lambdas/producers/routes';
import { runProcess } from '../support/run-process.js';
import { STAGE_CONTEXT } from '../support/stage-context.js';
import { bundledStage, testApp } from '../support/stage-template.js';

const MAIL_FROM = 'Customer API <alerts@mail.example.com>';

type Json = Record<string, any>;
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: Json };

/** The bundled dev synthesis' cloud assembly folder (its asset.<hash> folders are the bundles). */
let assemblyDir = '';

/** A stage's template without bundling, in this process: no CDK warning or error of any kind (deprecations, misconfiguration). */
function synth(stage: Stage, { tracing }: { tracing?: boolean } = {}): Template {
  const app = testApp();
  const stack = new CustomerApiStack(app, `CustomerApi-${stage}`, {
    config: stageConfig(stage, { ...STAGE_CONTEXT[stage], mailFrom: MAIL_FROM, tracing }),
  });
  const template = Template.fromStack(stack);
  expect(Annotations.fromStack(stack).findWarning('*', Match.anyValue())).toEqual([]);
  expect(Annotations.fromStack(stack).findError('*', Match.anyValue())).toEqual([]);
  return template;
}

const of = (template: Template, type: string) => template.findResources(type) as Record<string, Json>;
const only = (template: Template, type: string): [string, Json] => {
  const entries = Object.entries(of(template, type));
  expect(entries).toHaveLength(1);
  return entries[0]!;
};
const list = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The JSON lines `write` puts on stdout (awaited when it returns a promise), parsed: the logger writes there itself, as in Lambda. */
async function linesWritten(write: () => unknown): Promise<Json[]> {
  const original = process.stdout.write;
  let out = '';
  process.stdout.write = (chunk: string | Uint8Array) => ((out += chunk.toString()), true);
  try {
    await write();
  } finally {
    process.stdout.write = original;
  }
  return out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Json);
}

/**
 * CloudWatch Logs' JSON filter syntax, the part the stack uses: `$.field = "text"` and
 * `$.field <op> number` terms, &&, || and parentheses.
 */
function filterMatches(pattern: string, event: Json): boolean {
  const text = /\$\.(\w+)\s*=\s*("(?:[^"\\]|\\.)*")/g;
  const number = /\$\.(\w+)\s*(<=|>=|!=|=|<|>)\s*(-?\d+(?:\.\d+)?)/g;
  const body = pattern.trim().replace(/^\{([\s\S]*)\}$/, '$1');
  if (/[^\s()&|]/.test(body.replace(text, '').replace(number, ''))) throw new Error(`filter syntax beyond this evaluator: ${pattern}`);
  const js = body
    .replace(text, (_, key: string, value: string) => `(e[${JSON.stringify(key)}] === ${value})`)
    .replace(number, (_, key: string, op: string, value: string) => {
      const jsOp = op === '=' ? '===' : op === '!=' ? '!==' : op;
      return `(typeof e[${JSON.stringify(key)}] === 'number' && e[${JSON.stringify(key)}] ${jsOp} ${value})`;
    });
  return compileFunction(`return ${js};`, ['e'])(event) as boolean;
}

/** The function an invoker reaches: always through its `live` alias (a `Ref` to it), never the function itself. */
function functionBehindAlias(template: Template, target: Json): [string, Json] {
  // An alias ARN (`Ref`), or an event source's `<function name>:live`, which names the alias's ARN inside.
  const aliasId = target?.Ref ?? /"Ref":"([^"]+)"/.exec(JSON.stringify(target))?.[1];
  const alias = of(template, 'AWS::Lambda::Alias')[aliasId];
  if (!alias) throw new Error('does not invoke a live alias of this stack');
  expect(alias.Properties.Name).toBe(LIVE_ALIAS);
  const fnId = alias.Properties.FunctionName.Ref as string;
  return [fnId, of(template, 'AWS::Lambda::Function')[fnId]!];
}

/** The family tag of the function an HTTP API integration invokes. */
function familyOfIntegration(template: Template, integration: Json): string {
  return familyTagOf(functionBehindAlias(template, integration.Properties.IntegrationUri)[1]);
}

/** The family a function serves; '' for functions aws-cdk-lib adds (the asset deployment's), which carry no tags. */
function familyTagOf(fn: Json): string {
  return ((fn.Properties.Tags ?? []) as { Key: string; Value: string }[]).find((t) => t.Key === FAMILY_TAG)?.Value ?? '';
}

/** Every HTTP API route: its key ("GET /v1/{group_id}/locations", "$default"), authorization and function. */
function routes(template: Template) {
  const integrations = of(template, 'AWS::ApiGatewayV2::Integration');
  return Object.values(of(template, 'AWS::ApiGatewayV2::Route')).map((r) => {
    const integration = integrations[(r.Properties.Target['Fn::Join'][1] as Json[]).find((p) => p.Ref)!.Ref]!;
    return {
      key: r.Properties.RouteKey as string,
      auth: r.Properties.AuthorizationType as string,
      family: familyOfIntegration(template, integration),
      integration,
    };
  });
}

function functionOf(template: Template, family: string): [string, Json] {
  const matches = Object.entries(of(template, 'AWS::Lambda::Function')).filter(([, fn]) => familyTagOf(fn) === family);
  expect(matches, `functions tagged ${family}`).toHaveLength(1);
  return matches[0]!;
}

function statementsOfRole(template: Template, roleId: string): Statement[] {
  return Object.values(of(template, 'AWS::IAM::Policy'))
    .filter((p) => (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId))
    .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
}

/**
 * The stage's RouteSettings: one throttle per route of the route table and the producer route, as throttlesOf
 * derives them, and a stage that waits for its routes.
 */
function expectRouteThrottles(template: Template, stage: Stage): void {
  const [, apiStage] = only(template, 'AWS::ApiGatewayV2::Stage');
  const expected = throttlesOf(STAGE_TABLE[stage]).routes;
  const settings = apiStage.Properties.RouteSettings as Record<string, { ThrottlingRateLimit: number; ThrottlingBurstLimit: number }>;
  expect(Object.keys(settings).sort()).toEqual([...ROUTES.map((r) => `${r.method} ${r.path}`), PRODUCER_ROUTE_KEY].sort());
  for (const [key, throttle] of Object.entries(expected)) {
    expect(settings[key], key).toEqual({ ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit });
  }
  // Route settings name route keys that must exist first.
  const throttled = Object.entries(of(template, 'AWS::ApiGatewayV2::Route')).filter(([, r]) => r.Properties.RouteKey in settings);
  expect(throttled).toHaveLength(ROUTES.length + 1);
  expect(apiStage.DependsOn).toEqual(expect.arrayContaining(throttled.map(([id]) => id)));
}

describe('CustomerApiStack (dev)', () => {
  let template: Template;
  beforeAll(async () => {
    // The dev synth bundles, so the assets the stack ships (the bundles, the OpenAPI artefact) can be checked.
    const bundled = await bundledStage('dev', { ...STAGE_CONTEXT.dev, mailFrom: MAIL_FROM });
    expect(bundled.messages.filter((m) => m.level === 'warning' || m.level === 'error')).toEqual([]);
    ({ template, assemblyDir } = bundled);
  });

  it('is an HTTP API whose Lambda integrations get the payload 1.0 event the handlers parse (docs/decisions/api-gateway.md)', () => {
    const [, api] = only(template, 'AWS::ApiGatewayV2::Api');
    expect(api.Properties.ProtocolType).toBe('HTTP');
    // No REST API left: its remapped WWW-Authenticate and Accept-dependent binary bodies are what this avoids.
    const types = Object.values(template.toJSON().Resources as Record<string, Json>).map((r) => r.Type as string);
    expect(types.filter((t) => t.startsWith('AWS::ApiGateway::'))).toEqual([]);
    const integrations = Object.values(of(template, 'AWS::ApiGatewayV2::Integration'));
    // One integration per function: the /v1 families, the admin API's and the producer API's.
    expect(integrations).toHaveLength(FAMILIES.length + 2);
    for (const integration of integrations) {
      expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '1.0' });
    }
  });

  it('serves every route with its method, on its path, from its family function, without an authorizer', () => {
    const all = routes(template);
    for (const route of ROUTES) {
      const hits = all.filter((r) => r.key === `${route.method} ${route.path}`);
      expect(hits, `${route.method} ${route.path}`).toHaveLength(1);
      expect(hits[0]!.family, `${route.method} ${route.path}`).toBe(route.family);
      expect(hits[0]!.auth).toBe('NONE');
    }
  });

  it('sends every other path and method to the catch-all family through $default, except below /admin and /producer and on the token endpoint', () => {
    const all = routes(template);
    expect(all.filter((r) => r.key === '$default')).toEqual([expect.objectContaining({ family: CATCH_ALL_FAMILY, auth: 'NONE' })]);
    // A wrong method or unknown path below /admin reaches the admin function (404, or 405 with Allow), signed.
    expect(all.filter((r) => r.key === `ANY ${ADMIN_PROXY_PATH}`)).toEqual([
      expect.objectContaining({ family: 'admin-api', auth: 'AWS_IAM' }),
    ]);
    expect(all.filter((r) => r.key === `ANY ${consolePathOf(ADMIN_PROXY_PATH)}`)).toEqual([
      expect.objectContaining({ family: 'admin-api', auth: 'JWT' }),
    ]);
    // Another method on the token endpoint reaches the token function (an exact method match wins over ANY), which
    // answers it in the OAuth shape.
    expect(all.filter((r) => r.key === `ANY ${TOKEN_PATH}`)).toEqual([expect.objectContaining({ family: 'token', auth: 'NONE' })]);
    // Any method or path below /producer reaches the producer function (which resolves the route), signed.
    expect(all.filter((r) => r.key === `ANY ${PRODUCER_PROXY_PATH}`)).toEqual([
      expect.objectContaining({ family: 'producer-api', auth: 'AWS_IAM' }),
    ]);
    // Exactly the route tables and the five catch-alls: nothing unexplained.
    expect(all).toHaveLength(ROUTES.length + ADMIN_ROUTES.length + 5);
  });

  it('serves every admin route from the admin function behind IAM authorization, and nothing else', () => {
    const all = routes(template);
    for (const route of ADMIN_ROUTES) {
      const hits = all.filter((r) => r.key === `${route.method} ${route.path}`);
      expect(hits, `${route.method} ${route.path}`).toHaveLength(1);
      expect(hits[0]!.family).toBe('admin-api');
      expect(hits[0]!.auth).toBe('AWS_IAM');
    }
    // The console reaches them all through its one catch-all, behind the console's JWT authorizer.
    expect(all.filter((r) => r.family === 'admin-api')).toHaveLength(ADMIN_ROUTES.length + 2);
    expect(all.filter((r) => r.auth === 'AWS_IAM' && r.family === 'admin-api')).toHaveLength(ADMIN_ROUTES.length + 1);
    expect(all.filter((r) => r.auth === 'JWT')).toEqual([expect.objectContaining({ key: `ANY ${consolePathOf(ADMIN_PROXY_PATH)}` })]);
    // Authorized routes are the admin function's and the producer function's only.
    expect(all.filter((r) => r.auth !== 'NONE' && r.family !== 'admin-api' && r.family !== 'producer-api')).toEqual([]);

    const [, fn] = functionOf(template, 'admin-api');
    const statements = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0]);
    const granted = (prefix: string) => [...new Set(statements.flatMap((s) => list(s.Action)).filter((a) => a.startsWith(prefix)))].sort();
    expect(granted('dynamodb:')).toEqual(FUNCTIONS['admin-api'].tableActions.map((a) => `dynamodb:${a}`).sort());
    expect(granted('sqs:')).toEqual(
      [
        'sqs:ChangeMessageVisibility',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'sqs:GetQueueUrl',
        'sqs:ReceiveMessage',
        'sqs:SendMessage',
      ].sort(),
    );
    expect(granted('ses:')).toEqual(['ses:SendEmail']);
  });

  it('serves the producer API through one catch-all behind IAM, the only IAM route besides the admin ones, from the producer function', () => {
    const all = routes(template);
    const iam = all.filter((r) => r.auth === 'AWS_IAM');
    expect(iam.filter((r) => r.family !== 'admin-api')).toEqual([
      expect.objectContaining({ key: `ANY ${PRODUCER_PROXY_PATH}`, family: 'producer-api' }),
    ]);
    // No producer route of its own: the producer function resolves each from the path, IAM decides who reaches it.
    expect(all.filter((r) => r.family === 'producer-api')).toHaveLength(1);
    for (const route of PRODUCER_ROUTES) expect(all.filter((r) => r.key === `${route.method} ${route.path}`)).toEqual([]);

    // Its grants are its row's: the table's actions, nothing queried, no mail, no secret; of the queues, sending
    // a new menu revision's wake-up to the fan-out queue.
    const [, fn] = functionOf(template, 'producer-api');
    const statements = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0]);
    const services = new Set(statements.flatMap((s) => list(s.Action)).map((a) => a.split(':')[0]));
    expect([...services].sort()).toEqual(['dynamodb', 'logs', 'sqs']);
    const fanOutId = Object.entries(of(template, 'AWS::SQS::Queue')).find(
      ([, q]) => q.Properties.QueueName === FAN_OUT_QUEUES.queueName('customer-api-dev'),
    )![0];
    const sqs = statements.filter((s) => list(s.Action).some((a) => a.startsWith('sqs:')));
    expect(sqs.flatMap((s) => list(s.Action)).filter((a) => a !== 'sqs:GetQueueAttributes' && a !== 'sqs:GetQueueUrl')).toEqual([
      'sqs:SendMessage',
    ]);
    expect(sqs.flatMap((s) => list(s.Resource))).toEqual([{ 'Fn::GetAtt': [fanOutId, 'Arn'] }]);
    const dynamo = statements.filter((s) => list(s.Action).some((a) => a.startsWith('dynamodb:')));
    expect(new Set(dynamo.flatMap((s) => list(s.Action)))).toEqual(
      new Set(FUNCTIONS['producer-api'].tableActions.map((a) => `dynamodb:${a}`)),
    );
    const [tableId] = only(template, 'AWS::DynamoDB::Table');
    expect(dynamo.flatMap((s) => list(s.Resource))).toEqual([{ 'Fn::GetAtt': [tableId, 'Arn'] }]);
    expect(fn.Properties.MemorySize).toBe(FUNCTIONS['producer-api'].memorySize);
    expect(fn.Properties.ReservedConcurrentExecutions).toBe(FUNCTIONS['producer-api'].reservedConcurrency);
  });

  it('lets API Gateway invoke each function with one API-wide permission', () => {
    for (const family of [...FAMILIES, 'admin-api', 'producer-api']) {
      const [fnId] = functionOf(template, family);
      const permissions = Object.values(of(template, 'AWS::Lambda::Permission')).filter(
        (p) => of(template, 'AWS::Lambda::Alias')[p.Properties.FunctionName.Ref]?.Properties.FunctionName.Ref === fnId,
      );
      expect(permissions, family).toHaveLength(1);
      expect(permissions[0]!.Properties.Principal).toBe('apigateway.amazonaws.com');
    }
  });

  it('has one arm64, Node.js 24+ function per family with its memory and environment', () => {
    const ours = Object.values(of(template, 'AWS::Lambda::Function')).filter((fn) => familyTagOf(fn) !== '');
    // Every row of the functions table: the /v1 families, the admin API's, the webhook functions, mail events.
    expect(ours).toHaveLength(Object.keys(FUNCTIONS).length);
    const [tableId] = only(template, 'AWS::DynamoDB::Table');
    for (const family of FAMILIES) {
      const [, fn] = functionOf(template, family);
      const p = fn.Properties;
      expect(p.Architectures).toEqual(['arm64']);
      expect(Number(/^nodejs(\d+)\.x$/.exec(p.Runtime)?.[1])).toBeGreaterThanOrEqual(24);
      expect(p.Handler).toBe('index.handler');
      expect(p.MemorySize).toBe(FUNCTIONS[family].memorySize);
      expect(p.LoggingConfig.LogGroup.Ref).toBeDefined();
      expect(p.Environment.Variables).toMatchObject({
        TABLE_NAME: { Ref: tableId },
        STAGE: 'dev',
        MAIL_FROM,
        PUBLIC_BASE_URL: '',
        WEBHOOK_QUEUE_URL: { Ref: expect.any(String) },
        WEBHOOK_DLQ_URL: { Ref: expect.any(String) },
        NODE_OPTIONS: LAMBDA_NODE_OPTIONS,
      });
    }
  });

  it('ships each bundle as the bench builds it (lambdaBuildOptions): for Node 24, with a linked source map that carries no sources', () => {
    expect(LAMBDA_NODE_OPTIONS).toBe('--enable-source-maps');
    expect(LAMBDA_BUNDLING.target).toBe(`node${/^nodejs(\d+)\.x$/.exec(functionOf(template, 'token')[1].Properties.Runtime)![1]}`);
    const dir = mkdtempSync(join(tmpdir(), 'customer-api-bundle-'));
    try {
      for (const family of ['token', 'bevq'] as const) {
        const [, fn] = functionOf(template, family);
        const assetDir = join(assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
        const shipped = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
        type SourceMap = { sources: string[]; sourcesContent?: unknown; mappings: string };
        const map = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')) as SourceMap;
        expect(shipped.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map'), family).toBe(true);
        expect(map.sources.length, family).toBeGreaterThan(0);
        expect(map.sourcesContent, family).toBeUndefined();
        const outfile = join(dir, family, 'index.mjs');
        buildSync(lambdaBuildOptions(`lambdas/${FUNCTIONS[family].entry}`, outfile));
        expect(readFileSync(outfile, 'utf8') === shipped, family).toBe(true);
        // The same map but for where the sources are named from (the build folders differ).
        const built = JSON.parse(readFileSync(`${outfile}.map`, 'utf8')) as SourceMap;
        expect({ ...built, sources: map.sources }).toEqual(map);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ships the OpenAPI document generated at synth time beside the discovery bundle, and tells only that function', () => {
    for (const family of FAMILIES) {
      const [, fn] = functionOf(template, family);
      const path = fn.Properties.Environment.Variables.OPENAPI_DOCUMENT_PATH;
      if (family !== 'discovery') {
        expect(path, family).toBeUndefined();
        continue;
      }
      expect(path).toBe(OPENAPI_ARTEFACT);
      const assetDir = join(assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
      expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map', OPENAPI_ARTEFACT]);
      expect(readFileSync(join(assetDir, OPENAPI_ARTEFACT), 'utf8')).toBe(openApiArtefact());
    }
  });

  it('traces nothing by default: no tracing config, no X-Ray grant', () => {
    const ours = Object.values(of(template, 'AWS::Lambda::Function')).filter((fn) => familyTagOf(fn) !== '');
    for (const fn of ours) expect(fn.Properties.TracingConfig, familyTagOf(fn)).toBeUndefined();
    const actions = Object.values(of(template, 'AWS::IAM::Policy')).flatMap((p) =>
      (p.Properties.PolicyDocument.Statement as Statement[]).flatMap((s) => list(s.Action)),
    );
    expect(actions.filter((a) => a.startsWith('xray:'))).toEqual([]);
  });

  it("ships the sports logos in the assets function's package and tells only that function; no function reads S3", () => {
    for (const family of FAMILIES) {
      const [, fn] = functionOf(template, family);
      const s3 = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0]).filter((s) =>
        list(s.Action).some((a) => a.startsWith('s3:')),
      );
      expect(s3, family).toEqual([]);
      const dir = fn.Properties.Environment.Variables.SPORTS_LOGO_DIR;
      if (family !== 'assets') {
        expect(dir, family).toBeUndefined();
        continue;
      }
      expect(dir).toBe(SPORTS_LOGO_PACKAGE_DIR);
      const assetDir = join(assemblyDir, `asset.${(fn.Properties.Code.S3Key as string).replace(/\.zip$/, '')}`);
      expect(readdirSync(assetDir).sort()).toEqual(['index.mjs', 'index.mjs.map', SPORTS_LOGO_PACKAGE_DIR]);
      const logos = readdirSync(SPORTS_LOGO_DIR).sort();
      expect(logos.length).toBeGreaterThan(0);
      expect(readdirSync(join(assetDir, SPORTS_LOGO_PACKAGE_DIR)).sort()).toEqual(logos);
      for (const name of logos)
        expect(readFileSync(join(assetDir, SPORTS_LOGO_PACKAGE_DIR, name)).equals(readFileSync(join(SPORTS_LOGO_DIR, name))), name).toBe(
          true,
        );
    }
  });

  it('logs JSON with application level INFO and system level WARN, every function', () => {
    const ours = Object.values(of(template, 'AWS::Lambda::Function')).filter((fn) => familyTagOf(fn) !== '');
    expect(ours).toHaveLength(Object.keys(FUNCTIONS).length);
    expect(LAMBDA_LOGGING).toEqual({ format: 'JSON', applicationLevel: 'INFO', systemLevel: 'WARN' });
    for (const fn of ours) {
      expect(fn.Properties.LoggingConfig, familyTagOf(fn)).toEqual({
        LogFormat: 'JSON',
        ApplicationLogLevel: 'INFO',
        SystemLogLevel: 'WARN',
        LogGroup: { Ref: expect.any(String) },
      });
    }
  });

  it('keeps what Lambda lets through at INFO matching: the attempt lines the failure filter counts, and the EMF line', async () => {
    const [, filter] = Object.entries(of(template, 'AWS::Logs::MetricFilter')).find(
      ([, f]) => f.Properties.MetricTransformations[0].MetricName === 'DeliveryFailures',
    )!;
    const pattern = filter.Properties.FilterPattern as string;
    const line = async (status: Delivery['status']) => {
      const delivery = {
        deliveryId: 'd-1',
        eventId: 'e-1',
        destinationHost: 'hooks.example.test',
        attempts: 3,
        status,
        timeline: [{ kind: 'attempt', attempt: 3, at: '2026-11-28T00:00:00.000Z', status, code: 'http_500', ms: 80, next: null }],
      } as unknown as Delivery;
      const lines = await linesWritten(() => reportOutcome({ logger } as unknown as MessagingDeps, delivery));
      expect(lines).toHaveLength(1);
      return lines[0]!;
    };
    for (const status of ['FAILED', 'DEAD_LETTER'] as const) {
      const written = await line(status);
      // Lambda drops application lines below the configured level; these are INFO, which INFO keeps.
      expect(written.level, status).toBe(LAMBDA_LOGGING.applicationLevel);
      expect(filterMatches(pattern, written), status).toBe(true);
    }
    for (const status of ['SUCCEEDED', 'RETRY_PENDING'] as const) expect(filterMatches(pattern, await line(status)), status).toBe(false);

    // The EMF line carries no `level`: Lambda files it at INFO, so an application level above INFO would drop the metrics.
    const disabled = process.env.METRICS_DISABLED;
    process.env.METRICS_DISABLED = 'false';
    try {
      const metrics = createMetrics('prod');
      metrics.addMetric('Requests', 1);
      const [emf] = await linesWritten(() => metrics.publish());
      expect(emf!._aws.CloudWatchMetrics[0].Metrics).toEqual([{ Name: 'Requests', Unit: 'Count' }]);
      expect(emf!.level).toBeUndefined();
    } finally {
      if (disabled === undefined) delete process.env.METRICS_DISABLED;
      else process.env.METRICS_DISABLED = disabled;
    }
  });

  it("counts each HTTP function's requests from its access lines: a metric filter per count, its dimensions fields of the line", async () => {
    const filters = Object.values(of(template, 'AWS::Logs::MetricFilter')).filter(
      (f) => f.Properties.MetricTransformations[0].MetricNamespace === METRICS_NAMESPACE,
    );
    const httpFunctions = Object.values(of(template, 'AWS::Lambda::Function')).filter((fn) =>
      [...FAMILIES, 'admin-api', 'producer-api'].includes(familyTagOf(fn)),
    );
    expect(httpFunctions).toHaveLength(FAMILIES.length + 2);
    const deps = {
      logger: new Logger({ serviceName: 'customer-api', logLevel: 'INFO' }),
      clock: { now: () => Date.now() },
      config: { stage: 'prod' },
    } as unknown as Deps;
    const accessLine = async (status: number) => {
      const handler = httpShell('v1', deps).handler(async () => ({ statusCode: status, body: '' }));
      const event = {
        httpMethod: 'GET',
        path: '/v1/g/locations',
        headers: {},
        requestContext: { requestId: 'r-1' },
      } as unknown as APIGatewayProxyEvent;
      const lines = await linesWritten(() => handler(event, {} as Context));
      return lines.find((l) => l.message === ACCESS_LINE_MESSAGE)!;
    };
    const lines: Json[] = [];
    // One at a time: each captures stdout while it runs.
    for (const status of [200, 304, 401, 404, 429, 500, 503]) lines.push(await accessLine(status));
    for (const fn of httpFunctions) {
      const own = filters.filter((f) => f.Properties.LogGroupName.Ref === fn.Properties.LoggingConfig.LogGroup.Ref);
      expect(own.map((f) => f.Properties.MetricTransformations[0].MetricName).sort(), familyTagOf(fn)).toEqual(
        Object.keys(HTTP_COUNTS).sort(),
      );
      for (const filter of own) {
        const [transformation] = filter.Properties.MetricTransformations;
        expect(transformation).toMatchObject({ MetricValue: '1', Unit: 'Count' });
        expect(transformation.Dimensions).toEqual(HTTP_COUNT_DIMENSIONS.map((name) => ({ Key: name, Value: `$.${name}` })));
        const [min, max] = HTTP_COUNTS[transformation.MetricName as keyof typeof HTTP_COUNTS];
        for (const line of lines) {
          const status = line.status as number;
          expect(filterMatches(filter.Properties.FilterPattern, line), `${transformation.MetricName} on ${status}`).toBe(
            status >= min && status <= max,
          );
        }
      }
    }
    // Every dimension is a field of the line (the caller never is one), and the line carries no EMF of its own.
    for (const line of lines) {
      expect(line).toMatchObject({ service: 'customer-api', stage: 'prod', api: 'v1' });
      expect(line).not.toHaveProperty('_aws');
    }
  });

  it('gives each function its own log group kept one month in dev', () => {
    const groups = of(template, 'AWS::Logs::LogGroup');
    for (const family of FAMILIES) {
      const [, fn] = functionOf(template, family);
      const group = groups[fn.Properties.LoggingConfig.LogGroup.Ref]!;
      expect(group.Properties.RetentionInDays).toBe(30);
      expect(group.DeletionPolicy).toBe('Delete');
    }
  });

  it('derives the table from TABLE_KEYS, with TTL, PITR and on-demand billing', () => {
    const [, table] = only(template, 'AWS::DynamoDB::Table');
    const p = table.Properties;
    expect(p.KeySchema).toEqual([
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ]);
    const names = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey, ...TABLE_KEYS.globalIndexes.flatMap((g) => [g.partitionKey, g.sortKey])];
    expect(p.AttributeDefinitions).toEqual(expect.arrayContaining(names.map((n) => ({ AttributeName: n, AttributeType: 'S' }))));
    expect(p.AttributeDefinitions).toHaveLength(names.length);
    expect(p.GlobalSecondaryIndexes).toEqual(
      TABLE_KEYS.globalIndexes.map((g) => ({
        IndexName: g.indexName,
        KeySchema: [
          { AttributeName: g.partitionKey, KeyType: 'HASH' },
          { AttributeName: g.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: g.projection },
      })),
    );
    expect(p.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    expect(p.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(p.BillingMode).toBe('PAY_PER_REQUEST');
    expect(p.SSESpecification).toEqual({ SSEEnabled: true });
    expect(table.DeletionPolicy).toBe('Delete');
  });

  it("redrives webhook messages to an encrypted DLQ after the policy's attempts plus the receive headroom", () => {
    const queues = of(template, 'AWS::SQS::Queue');
    const [dlqId, dlq] = Object.entries(queues).find(([, q]) => q.Properties.QueueName === WEBHOOK_QUEUES.dlqName('customer-api-dev'))!;
    const [, queue] = Object.entries(queues).find(([, q]) => q.Properties.QueueName === WEBHOOK_QUEUES.queueName('customer-api-dev'))!;
    // The delivery queue and the fan-out queue with their DLQs, the stop-command queue with its DLQ (below), and the
    // mail-events function's failure queue (mail-events.test.ts).
    expect(Object.keys(queues)).toHaveLength(7);
    const [fanOutDlqId, fanOutDlq] = Object.entries(queues).find(
      ([, q]) => q.Properties.QueueName === FAN_OUT_QUEUES.dlqName('customer-api-dev'),
    )!;
    const [, fanOut] = Object.entries(queues).find(([, q]) => q.Properties.QueueName === FAN_OUT_QUEUES.queueName('customer-api-dev'))!;
    expect(fanOut.Properties).toMatchObject({
      RedrivePolicy: { maxReceiveCount: FAN_OUT_QUEUES.maxReceiveCount, deadLetterTargetArn: { 'Fn::GetAtt': [fanOutDlqId, 'Arn'] } },
      VisibilityTimeout: 6 * functionOf(template, 'webhook-dispatcher')[1].Properties.Timeout,
      MessageRetentionPeriod: FAN_OUT_QUEUES.retentionSeconds,
      SqsManagedSseEnabled: true,
    });
    expect(fanOutDlq.Properties).toMatchObject({ MessageRetentionPeriod: FAN_OUT_QUEUES.dlqRetentionSeconds, SqsManagedSseEnabled: true });
    expect(queue.Properties.RedrivePolicy).toEqual({
      maxReceiveCount: WEBHOOK_QUEUES.maxReceiveCount,
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
    });
    expect(WEBHOOK_QUEUES.maxReceiveCount).toBe(DELIVERY_POLICY.attempts + DELIVERY_POLICY.receiveHeadroom);
    expect(queue.Properties.VisibilityTimeout).toBe(WEBHOOK_QUEUES.visibilityTimeoutSeconds);
    // Retention set on both, the DLQ's longer: a message keeps its first enqueue time there (SQS's best practice), at most 14 days.
    expect(queue.Properties.MessageRetentionPeriod).toBe(WEBHOOK_QUEUES.retentionSeconds);
    expect(dlq.Properties.MessageRetentionPeriod).toBe(WEBHOOK_QUEUES.dlqRetentionSeconds);
    expect(dlq.Properties.MessageRetentionPeriod).toBeGreaterThan(queue.Properties.MessageRetentionPeriod);
    expect(dlq.Properties.MessageRetentionPeriod).toBeLessThanOrEqual(14 * 24 * 3600);
    // AWS: an SQS event source's queue visibility is at least six times the function's timeout.
    const [, deliverer] = functionOf(template, 'webhook-deliverer');
    expect(deliverer.Properties.Timeout).toBe(DERIVED.functionTimeoutSeconds);
    expect(queue.Properties.VisibilityTimeout).toBeGreaterThanOrEqual(6 * deliverer.Properties.Timeout);
    expect(queue.Properties.QueueName).toBe(WEBHOOK_QUEUES.queueName('customer-api-dev'));
    expect(dlq.Properties.QueueName).toBe(WEBHOOK_QUEUES.dlqName('customer-api-dev'));
    expect(dlq.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    for (const q of [queue, dlq]) expect(q.Properties.SqsManagedSseEnabled).toBe(true);
    // enforceSSL on every queue.
    const denials = Object.values(of(template, 'AWS::SQS::QueuePolicy')).filter((p) =>
      (p.Properties.PolicyDocument.Statement as Statement[]).some(
        (s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false',
      ),
    );
    expect(denials).toHaveLength(7);
  });

  it('sends emergency stops on their own queue, redriven to its DLQ, retained no longer than a command lives', () => {
    const queues = Object.entries(of(template, 'AWS::SQS::Queue'));
    const [dlqId, dlq] = queues.find(([, q]) => q.Properties.QueueName === STOP_COMMAND_QUEUES.dlqName('customer-api-dev'))!;
    const [queueId, queue] = queues.find(([, q]) => q.Properties.QueueName === STOP_COMMAND_QUEUES.queueName('customer-api-dev'))!;
    expect(queue.Properties).toMatchObject({
      RedrivePolicy: { maxReceiveCount: STOP_COMMAND_QUEUES.maxReceiveCount, deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] } },
      VisibilityTimeout: STOP_COMMAND_QUEUES.visibilityTimeoutSeconds,
      MessageRetentionPeriod: 600,
      SqsManagedSseEnabled: true,
    });
    expect(dlq.Properties).toMatchObject({ MessageRetentionPeriod: STOP_COMMAND_QUEUES.dlqRetentionSeconds, SqsManagedSseEnabled: true });
    // Only the matriq function (the POST) and the sweeper (re-sends) send to it; no function receives from it.
    const onQueue = (s: Statement) => JSON.stringify(s.Resource).includes(`"${queueId}"`);
    const [, matriq] = functionOf(template, 'matriq');
    const [, sweeper] = functionOf(template, 'webhook-sweeper');
    for (const fn of [matriq, sweeper]) {
      const actions = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0])
        .filter(onQueue)
        .flatMap((s) => list(s.Action));
      expect(actions).toContain('sqs:SendMessage');
      expect(actions.filter((a) => !['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'].includes(a))).toEqual([]);
    }
    // Of the /v1 families, matriq alone touches SQS, and only that queue.
    for (const family of FAMILIES) {
      const [, fn] = functionOf(template, family);
      const sqs = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0]).filter((s) =>
        list(s.Action).some((a) => a.startsWith('sqs:')),
      );
      expect(
        sqs.filter((s) => family !== 'matriq' || !onQueue(s)),
        family,
      ).toEqual([]);
    }
    expect(template.toJSON().Outputs.StopCommandQueueUrl.Value).toEqual({ Ref: queueId });
  });

  it("alarms as soon as the DLQ holds a message, visible or hidden by the sweeper's pass", () => {
    const [dlqId] = Object.entries(of(template, 'AWS::SQS::Queue')).find(
      ([, q]) => q.Properties.QueueName === WEBHOOK_QUEUES.dlqName('customer-api-dev'),
    )!;
    const dlq = { Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }], Namespace: 'AWS/SQS' };
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'customer-api-dev-DeadLetters',
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'visible + inFlight', ReturnData: true }),
        Match.objectLike({
          Id: 'visible',
          MetricStat: Match.objectLike({ Metric: { ...dlq, MetricName: 'ApproximateNumberOfMessagesVisible' }, Stat: 'Maximum' }),
        }),
        Match.objectLike({
          Id: 'inFlight',
          MetricStat: Match.objectLike({ Metric: { ...dlq, MetricName: 'ApproximateNumberOfMessagesNotVisible' }, Stat: 'Maximum' }),
        }),
      ]),
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
  });

  it('serves one $default stage that logs access as JSON standard fields and throttles each route of the mix on its own', () => {
    const [, stage] = only(template, 'AWS::ApiGatewayV2::Stage');
    const p = stage.Properties;
    // `$default`: no stage prefix in the URL, nor in the path the functions resolve.
    expect(p).toMatchObject({
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: OTHER_ROUTE_THROTTLE.rateLimit, ThrottlingBurstLimit: OTHER_ROUTE_THROTTLE.burstLimit },
    });
    expectRouteThrottles(template, 'dev');
    // dev's table is not pre-warmed (warm throughput is billed): it starts as a new on-demand table.
    expect(only(template, 'AWS::DynamoDB::Table')[1].Properties.WarmThroughput).toBeUndefined();
    // The access-log group keeps the logical id it had under the REST API, so a deploy keeps its logs.
    expect(p.AccessLogSettings.DestinationArn).toEqual({ 'Fn::GetAtt': ['ApiAccessLogs50B185DB', 'Arn'] });
    const format = JSON.parse(p.AccessLogSettings.Format);
    expect(format).toMatchObject({
      requestId: '$context.requestId',
      status: '$context.status',
      integrationError: '$context.integrationErrorMessage',
    });
    expect(p.AccessLogSettings.Format).not.toMatch(/body|authorization|header/i);
  });

  it("tells every API function the stage's throttle, from which the admin API bounds an application's limit", () => {
    for (const family of [...FAMILIES, 'admin-api']) {
      const [, fn] = functionOf(template, family);
      expect(fn.Properties.Environment.Variables.STAGE_RATE_LIMIT, family).toBe('10');
    }
    // The default limit fits every stage (60 × its per-route floor).
    for (const stage of Object.values(STAGE_TABLE)) {
      expect(DEFAULT_RATE_LIMIT_PER_MINUTE).toBeLessThanOrEqual(rateLimitCeiling(stage.capacity.perRouteFloor));
    }
  });

  it('grants each family exactly its declared DynamoDB actions, on the table ARN', () => {
    const [tableId] = only(template, 'AWS::DynamoDB::Table');
    for (const family of FAMILIES) {
      const [, fn] = functionOf(template, family);
      const statements = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0]);
      const dynamo = statements.filter((s) => list(s.Action).some((a) => a.startsWith('dynamodb:')));
      const granted = dynamo.flatMap((s) => list(s.Action)).sort();
      const expected = FUNCTIONS[family].tableActions.map((a) => `dynamodb:${a}`);
      expect(new Set(granted), family).toEqual(new Set(expected));
      for (const s of dynamo) {
        for (const resource of list(s.Resource)) {
          if (typeof resource === 'string') expect(resource).not.toContain('*');
          else expect(JSON.stringify(resource)).toContain(tableId);
        }
      }
    }
  });

  it('runs the webhook dispatcher, deliverer and sweeper with least privilege, batch failures, a schedule and alarms', () => {
    const queueIdOf = (name: string) =>
      Object.entries(of(template, 'AWS::SQS::Queue')).find(([, q]) => q.Properties.QueueName === name)![0];
    const queueId = queueIdOf(WEBHOOK_QUEUES.queueName('customer-api-dev'));
    const dlqId = queueIdOf(WEBHOOK_QUEUES.dlqName('customer-api-dev'));
    const fanOutId = queueIdOf(FAN_OUT_QUEUES.queueName('customer-api-dev'));
    const stopId = queueIdOf(STOP_COMMAND_QUEUES.queueName('customer-api-dev'));
    /** The SQS actions a function's role grants on a queue. */
    const sqsActions = (name: WebhookFunctionName, onQueue: string) => {
      const [, fn] = functionOf(template, name);
      return statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0])
        .filter((s) => list(s.Action).some((a) => a.startsWith('sqs:')) && JSON.stringify(s.Resource).includes(`"${onQueue}"`))
        .flatMap((s) => list(s.Action));
    };
    for (const name of WEBHOOK_FUNCTION_NAMES) {
      const [, fn] = functionOf(template, name);
      const statements = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0]);
      const granted = statements.filter((s) => list(s.Action).some((a) => a.startsWith('dynamodb:'))).flatMap((s) => list(s.Action));
      expect(new Set(granted), name).toEqual(new Set(FUNCTIONS[name].tableActions.map((a) => `dynamodb:${a}`)));
      expect(
        statements.some((s) => list(s.Action).some((a) => a.startsWith('ses:'))),
        name,
      ).toBe(FUNCTIONS[name].sendsMail);
      expect(fn.Properties.Timeout, name).toBe(FUNCTIONS[name].timeoutSeconds);
      // The webhook queues, and for the sweeper the DLQ it reconciles and the stop-command queue; nothing else.
      for (const s of statements.filter((st) => list(st.Action).some((a) => a.startsWith('sqs:'))))
        expect(JSON.stringify(s.Resource), name).toMatch(
          new RegExp(`${queueId}|${fanOutId}${name === 'webhook-sweeper' ? `|${dlqId}|${stopId}` : ''}`),
        );
    }
    const consumes = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility'];
    expect(sqsActions('webhook-sweeper', dlqId)).toEqual(expect.arrayContaining([...consumes, 'sqs:GetQueueAttributes']));
    // Each queue its one consumer: the deliverer the delivery queue, the dispatcher the fan-out queue.
    expect(sqsActions('webhook-deliverer', queueId)).toEqual(expect.arrayContaining(consumes));
    expect(sqsActions('webhook-dispatcher', fanOutId)).toEqual(expect.arrayContaining(consumes));
    expect(sqsActions('webhook-deliverer', fanOutId)).not.toContain('sqs:ReceiveMessage');
    expect(sqsActions('webhook-dispatcher', queueId)).not.toContain('sqs:ReceiveMessage');
    // Deliveries are sent by the dispatcher and the sweeper, never by the deliverer; wake-ups by all three.
    for (const name of ['webhook-dispatcher', 'webhook-sweeper'] as const)
      expect(sqsActions(name, queueId), name).toContain('sqs:SendMessage');
    expect(sqsActions('webhook-deliverer', queueId)).not.toContain('sqs:SendMessage');
    for (const name of WEBHOOK_FUNCTION_NAMES) expect(sqsActions(name, fanOutId), name).toContain('sqs:SendMessage');

    const mappings = Object.values(of(template, 'AWS::Lambda::EventSourceMapping'));
    expect(mappings).toHaveLength(2);
    const mappingOf = (name: WebhookFunctionName) =>
      mappings.find((m) => functionBehindAlias(template, m.Properties.FunctionName)[0] === functionOf(template, name)[0])!;
    expect(mappingOf('webhook-deliverer').Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: DELIVERY_POLICY.batchSize,
      MaximumBatchingWindowInSeconds: DELIVERY_POLICY.batchingWindowSeconds,
      ScalingConfig: { MaximumConcurrency: STAGE_TABLE.dev.delivererConcurrency },
    });
    expect(mappingOf('webhook-dispatcher').Properties).toMatchObject({
      EventSourceArn: { 'Fn::GetAtt': [fanOutId, 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: FAN_OUT_QUEUES.batchSize,
      ScalingConfig: { MaximumConcurrency: FAN_OUT_QUEUES.maxConcurrency },
    });
    const [sweeperId] = functionOf(template, 'webhook-sweeper');
    const [, rule] = only(template, 'AWS::Events::Rule');
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(functionBehindAlias(template, rule.Properties.Targets[0].Arn)[0]).toBe(sweeperId);
    // The event source's maximum, reserved for the deliverer: the stage's, not typed again.
    expect(functionOf(template, 'webhook-deliverer')[1].Properties.ReservedConcurrentExecutions).toBe(STAGE_TABLE.dev.delivererConcurrency);
    expect(functionOf(template, 'webhook-dispatcher')[1].Properties.ReservedConcurrentExecutions).toBeUndefined();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'DeliveryFailures', Namespace: 'CustomerApi/Webhooks' });
    template.hasResourceProperties('AWS::Logs::MetricFilter', { FilterPattern: Match.stringLikeRegexp('webhook attempt') });
  });

  it('never grants dynamodb:* or any DynamoDB action on Resource "*"', () => {
    const statements = Object.values(of(template, 'AWS::IAM::Policy')).flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[]);
    for (const s of statements) {
      const actions = list(s.Action);
      expect(actions).not.toContain('dynamodb:*');
      expect(actions).not.toContain('*');
      if (actions.some((a) => a.startsWith('dynamodb:'))) expect(list(s.Resource)).not.toContain('*');
    }
  });

  it('lets only the functions that send owner mail send, only from MAIL_FROM, to any identity (the SES sandbox checks recipients too)', () => {
    const senders = [
      ...FAMILIES.map((family) => [family, FUNCTIONS[family].sendsMail] as const),
      ['admin-api', FUNCTIONS['admin-api'].sendsMail] as const,
      ['producer-api', FUNCTIONS['producer-api'].sendsMail] as const,
      ...WEBHOOK_FUNCTION_NAMES.map((name) => [name, FUNCTIONS[name].sendsMail] as const),
    ];
    // Rate-limit alerts are queued by the /v1 families and sent by the sweeper, off the request path.
    expect(
      senders
        .filter(([, sends]) => sends)
        .map(([name]) => name)
        .sort(),
    ).toEqual(['admin-api', 'webhook-sweeper']);
    for (const [name, sends] of senders) {
      const [, fn] = functionOf(template, name);
      const ses = statementsOfRole(template, fn.Properties.Role['Fn::GetAtt'][0]).filter((s) =>
        list(s.Action).some((a) => a.startsWith('ses:')),
      );
      if (!sends) {
        expect(ses, name).toEqual([]);
        continue;
      }
      expect(fn.Properties.Environment.Variables.MAIL_FROM, name).toBe(MAIL_FROM);
      expect(ses, name).toHaveLength(1);
      expect(list(ses[0]!.Action)).toEqual(['ses:SendEmail']);
      expect(ses[0]!.Condition).toEqual({ StringEquals: { 'ses:FromAddress': 'alerts@mail.example.com' } });
      expect(JSON.stringify(ses[0]!.Resource)).toMatch(/:ses:.*:identity\/\*"/);
      expect(list(ses[0]!.Resource)).not.toContain('*');
    }
  });

  it('outputs what the admin CLI and operators read', () => {
    const outputs = template.toJSON().Outputs as Json;
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'AdminApiUrl',
        'AlarmTopicArn',
        'ApiUrl',
        'ConsoleUrl',
        'ConsoleUserPoolId',
        'MailConfigurationSet',
        'MailEventsFailureQueueUrl',
        'MailEventsTopicArn',
        'OperatorPolicyArn',
        'StopCommandQueueUrl',
        // One per class of producer with a route.
        ...PRODUCERS.filter((p) => PRODUCER_ROUTES.some((r) => r.producer === p)).map((p) => `ProducerPolicyArn${pascal(p)}`),
        'TrailArn',
      ].sort(),
    );
  });
});

describe('CustomerApiStack (dev): the administration console', () => {
  let template: Template;
  beforeAll(() => {
    template = synth('dev');
  });

  it('has a user pool without self sign-up, with MFA and an admins group, and a public client for the code flow back to the console', () => {
    const [poolId, pool] = only(template, 'AWS::Cognito::UserPool');
    expect(pool.Properties.AdminCreateUserConfig.AllowAdminCreateUserOnly).toBe(true);
    expect(pool.Properties.MfaConfiguration).toBe('ON');
    expect(pool.Properties.Policies.PasswordPolicy.MinimumLength).toBeGreaterThanOrEqual(14);
    template.hasResourceProperties('AWS::Cognito::UserPoolGroup', { GroupName: CONSOLE_ADMIN_GROUP, UserPoolId: { Ref: poolId } });
    const [clientId, client] = only(template, 'AWS::Cognito::UserPoolClient');
    expect(client.Properties.GenerateSecret).toBe(false);
    expect(client.Properties.AllowedOAuthFlows).toEqual(['code']);
    expect(JSON.stringify(client.Properties.CallbackURLs)).toContain('/console/');
    // The JWT authorizer trusts that pool and that client only.
    const [, authorizer] = only(template, 'AWS::ApiGatewayV2::Authorizer');
    expect(authorizer.Properties.AuthorizerType).toBe('JWT');
    expect(authorizer.Properties.JwtConfiguration.Audience).toEqual([{ Ref: clientId }]);
    expect(JSON.stringify(authorizer.Properties.JwtConfiguration.Issuer)).toContain(poolId);
  });

  it("mails through Cognito's own sender and leaves the pool unprotected in a stage deleted at will", () => {
    const [, pool] = only(template, 'AWS::Cognito::UserPool');
    expect(pool.DeletionPolicy).toBe('Delete');
    expect(pool.Properties.DeletionProtection).toBe('INACTIVE');
    expect(pool.Properties.EmailConfiguration).toBeUndefined();
    const queues = Object.values(of(template, 'AWS::SQS::Queue'));
    expect(queues.length).toBeGreaterThan(0);
    expect(queues.filter((q) => q.DeletionPolicy !== 'Delete')).toEqual([]);
  });
  it('serves the page from a private bucket through CloudFront with origin access control, security headers, and the console prefix on the same origin', () => {
    const [bucketId, bucket] = Object.entries(of(template, 'AWS::S3::Bucket')).find(([id]) => id.startsWith('Console'))!;
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    only(template, 'AWS::CloudFront::OriginAccessControl');
    const [, distribution] = only(template, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig;
    expect(config.Origins.find((o: Json) => JSON.stringify(o.DomainName).includes(bucketId)).OriginAccessControlId).toBeDefined();
    const apiBehaviour = config.CacheBehaviors.find((b: Json) => b.PathPattern === `${CONSOLE_API_ROOT}/*`);
    expect(apiBehaviour.AllowedMethods).toContain('POST');
    expect(apiBehaviour.ViewerProtocolPolicy).toBe('https-only');
    // The console's policy, on the default behavior (the API reference at /docs/* has its own).
    const headers = of(template, 'AWS::CloudFront::ResponseHeadersPolicy')[config.DefaultCacheBehavior.ResponseHeadersPolicyId.Ref]!;
    const security = headers.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
    expect(JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy)).toContain("script-src 'self'");
    expect(JSON.stringify(security.ContentSecurityPolicy.ContentSecurityPolicy)).toContain("frame-ancestors 'none'");
    expect(security.FrameOptions.FrameOption).toBe('DENY');
    expect(security.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(31_536_000);
    template.hasResourceProperties('Custom::CDKBucketDeployment', { DestinationBucketKeyPrefix: 'console/', Prune: true });
  });
});

describe('CustomerApiStack (prod)', () => {
  let template: Template;
  beforeAll(() => {
    template = synth('prod');
  });

  it('traces nothing unless switched on (the stage setting is off)', () => {
    const ours = Object.values(of(template, 'AWS::Lambda::Function')).filter((fn) => familyTagOf(fn) !== '');
    for (const fn of ours) expect(fn.Properties.TracingConfig, familyTagOf(fn)).toBeUndefined();
  });

  it('retains the table and protects it from deletion', () => {
    const [, table] = only(template, 'AWS::DynamoDB::Table');
    expect(table.DeletionPolicy).toBe('Retain');
    expect(table.UpdateReplacePolicy).toBe('Retain');
    expect(table.Properties.DeletionProtectionEnabled).toBe(true);
  });

  it('keeps the DLQ with the stack under its fixed name, and lets the queue go (a vanished message is requeued from the table)', () => {
    const queues = Object.values(of(template, 'AWS::SQS::Queue'));
    const dlq = queues.find((q) => q.Properties.QueueName === WEBHOOK_QUEUES.dlqName('customer-api-prod'))!;
    expect([dlq.DeletionPolicy, dlq.UpdateReplacePolicy]).toEqual(['Retain', 'Retain']);
    const queue = queues.find((q) => q.Properties.QueueName === WEBHOOK_QUEUES.queueName('customer-api-prod'))!;
    expect(queue.DeletionPolicy).toBe('Delete');
  });

  it("protects the console's user pool from deletion and mails its administrators through SES from the sender's verified domain", () => {
    const [, pool] = only(template, 'AWS::Cognito::UserPool');
    expect(pool.DeletionPolicy).toBe('Retain');
    expect(pool.Properties.DeletionProtection).toBe('ACTIVE');
    expect(pool.Properties.EmailConfiguration).toEqual({
      EmailSendingAccount: 'DEVELOPER',
      From: MAIL_FROM,
      SourceArn: { 'Fn::Join': ['', ['arn:aws:ses:us-east-1:', { Ref: 'AWS::AccountId' }, ':identity/mail.example.com']] },
    });
  });

  it('keeps logs a year and retains them', () => {
    for (const group of Object.values(of(template, 'AWS::Logs::LogGroup'))) {
      expect(group.Properties.RetentionInDays).toBe(365);
      expect(group.DeletionPolicy).toBe('Retain');
    }
  });

  it("throttles each route of the mix at prod's rate for it, tells the functions the floor, and pre-warms the table", () => {
    expectRouteThrottles(template, 'prod');
    const [, fn] = functionOf(template, 'admin-api');
    expect(fn.Properties.Environment.Variables.STAGE_RATE_LIMIT).toBe(String(STAGE_TABLE.prod.capacity.perRouteFloor));
    const [, table] = only(template, 'AWS::DynamoDB::Table');
    // Sized within AWS's default table quota (40,000), the write side a new table's own.
    expect(table.Properties.WarmThroughput).toEqual({ ReadUnitsPerSecond: 30_000, WriteUnitsPerSecond: 4_000 });
  });
});

describe('CustomerApiStack (tracing switched on for a stage)', () => {
  let template: Template;
  beforeAll(() => {
    template = synth('prod', { tracing: true });
  });

  it('traces every function actively, each allowed to write to X-Ray from its default policy', () => {
    const ours = Object.entries(of(template, 'AWS::Lambda::Function')).filter(([, fn]) => familyTagOf(fn) !== '');
    // Every function of the functions table, and the canary's smoke hook.
    expect(ours).toHaveLength(Object.keys(FUNCTIONS).length + 1);
    for (const [, fn] of ours) {
      const family = familyTagOf(fn);
      expect(fn.Properties.TracingConfig, family).toEqual({ Mode: 'Active' });
      const roleId = fn.Properties.Role['Fn::GetAtt'][0];
      const xray = statementsOfRole(template, roleId).filter((s) => list(s.Action).some((a) => a.startsWith('xray:')));
      expect(xray.flatMap((s) => list(s.Action)).sort(), family).toEqual(['xray:PutTelemetryRecords', 'xray:PutTraceSegments']);
      expect(
        xray.map((s) => s.Resource),
        family,
      ).toEqual(['*']);
      // Only in the role's default policy (acknowledged there); the data-access policy stays checked by cdk-nag.
      const holders = Object.entries(of(template, 'AWS::IAM::Policy')).filter(
        ([, p]) =>
          (p.Properties.Roles as Json[]).some((r) => r.Ref === roleId) &&
          (p.Properties.PolicyDocument.Statement as Statement[]).some((s) => list(s.Action).some((a) => a.startsWith('xray:'))),
      );
      expect(
        holders.map(([id]) => id),
        family,
      ).toEqual([expect.stringMatching(/RoleDefaultPolicy/)]);
    }
  });
});

describe('bin/app.ts', () => {
  it('knows exactly the dev, staging and prod stages', () => {
    expect(['dev', 'staging', 'prod'].map(isStage)).toEqual([true, true, true]);
    expect(isStage('qa')).toBe(false);
    expect(isStage('toString')).toBe(false);
  });

  /** bin/app.ts as `cdk synth` runs it (context through CDK_CONTEXT_JSON): its exit code and stderr. */
  const synth = (context: object) =>
    runProcess(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
      env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context) },
    });

  it('refuses a bad stage or value, and a quota the stage would pass, with one line on stderr and no stack trace', async () => {
    const refusals: [object, string][] = [
      [{ stage: 'qa' }, 'Unknown stage "qa": use -c stage=dev or -c stage=staging or -c stage=prod.'],
      [{ stage: 'dev', tracing: 'yes' }, 'Stage dev: -c tracing=yes: use true or false.'],
      [{ stage: 'dev' }, 'Stage dev: no mail sender: pass -c mailFrom=<address or "Name <address>"> verified in SES.'],
      // Refused by stageConfig, before a construct would throw on it.
      [
        { stage: 'dev', mailFrom: 'Alerts <alerts>' },
        'Stage dev: mailFrom "Alerts <alerts>" is not an e-mail address or "Name <address>".',
      ],
      [
        { ...STAGE_CONTEXT.prod, stage: 'prod', certificateArn: 'arn:aws:acm:eu-west-1:111111111111:certificate/0f3c' },
        'Stage prod: the edge (CloudFront) needs its certificate in us-east-1, and arn:aws:acm:eu-west-1:111111111111:certificate/0f3c is in eu-west-1.',
      ],
      [
        { stage: 'dev', ...STAGE_CONTEXT.dev, apiThrottleQuota: '500' },
        `Stage dev: its routes' throttles add up to ${throttleSum(throttlesOf(stageConfig('dev', STAGE_CONTEXT.dev)).routes)} requests a second, past the quota "API Gateway throttle per account and Region, all APIs together (requests a second)" declared as 500 (AWS's default 10000): if the account's quota is raised, declare it with -c apiThrottleQuota=<value> (docs/operations.md, "Account quotas").`,
      ],
    ];
    // Each refusal from the app's own code, in this process; then bin/app.ts, as cdk runs it, for how one is said.
    const refusalOf = (context: object) => {
      try {
        buildApp(new App({ context }));
        return 'built';
      } catch (error) {
        return error instanceof StageRefusal ? error.message : error;
      }
    };
    for (const [context, line] of refusals) expect(refusalOf(context)).toBe(line);
    const [context, line] = refusals[0]!;
    const run = await synth(context);
    expect([run.status, run.stderr]).toEqual([1, `${line}\n`]);
  });
});
