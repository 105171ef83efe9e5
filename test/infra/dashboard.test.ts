import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { PRODUCERS } from '#lambdas/producers/routes';
import { PRODUCER_OUTCOMES } from '#lambdas/producers/update-line';
import { WEBHOOK_QUEUES } from '#lambdas/webhooks/queues';
import { FAMILY_TAG } from '#lib/constructs/service-function';
import { FUNCTIONS, type FunctionName } from '#lib/functions';
import type { Stage } from '#lib/stages';
import type { HttpApi } from '#platform/http';
import {
  logger,
  createMetrics,
  HTTP_COUNT_DIMENSIONS,
  HTTP_COUNTS,
  METRIC_NAMES,
  METRICS_NAMESPACE,
  SERVICE,
} from '#platform/observability';
import { stageTemplates } from '../support/stage-template.js';

type Json = Record<string, any>;
/** One line of a widget: a metric (namespace, name, dimensions, statistic) or a math expression. */
type Line = {
  widget: string;
  namespace?: string;
  name?: string;
  dims: Record<string, string>;
  stat?: string;
  label?: string;
  expression?: string;
};

/** Every HTTP API the shell names in its access line (the `api` dimension); compile-checked complete. */
const APIS = { v1: true, token: true, admin: true, producer: true } satisfies Record<HttpApi, true>;
/** The delivery counts the brief names: attempt outcomes, deliveries held in the DLQ with attempts left, and those queued again. */
const DELIVERY_COUNTS = [
  'DeliverySucceeded',
  'DeliveryFailed',
  'DeliveryRetried',
  'DeliveryDeadLettered',
  'DeliveryStranded',
  'DeliveryRequeued',
] as const satisfies readonly (typeof METRIC_NAMES)[number][];
const PERCENTILES = ['p50', 'p90', 'p99'];
/**
 * What AWS publishes in the namespaces the dashboard reads (the services' metric pages: Lambda, HTTP API,
 * SQS, DynamoDB); anything else on the dashboard would be a line that never draws.
 */
const AWS_PUBLISHED: Record<string, readonly string[]> = {
  'AWS/Lambda': ['Invocations', 'Errors', 'Duration', 'Throttles', 'ConcurrentExecutions'],
  'AWS/ApiGateway': ['Count', '4xx', '5xx', 'Latency', 'IntegrationLatency', 'DataProcessed'],
  'AWS/SQS': ['ApproximateNumberOfMessagesVisible', 'ApproximateAgeOfOldestMessage', 'ApproximateNumberOfMessagesNotVisible'],
  'AWS/DynamoDB': ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ThrottledRequests', 'SystemErrors'],
};

/** A token of the template as text: `Ref(Id)`, `GetAtt(Id.Attr)`. */
function tokenText(part: Json): string {
  if (typeof part.Ref === 'string') return `Ref(${part.Ref})`;
  if (Array.isArray(part['Fn::GetAtt'])) return `GetAtt(${part['Fn::GetAtt'].join('.')})`;
  throw new Error(`unexpected token in the dashboard body: ${JSON.stringify(part)}`);
}

/** The dashboard body (a Fn::Join of literal parts and tokens), parsed, each token written as text. */
function bodyOf(dashboard: Json): Json {
  const body = dashboard.Properties.DashboardBody;
  const [separator, parts] = body['Fn::Join'] as [string, (string | Json)[]];
  return JSON.parse(parts.map((p) => (typeof p === 'string' ? p : tokenText(p))).join(separator));
}

/** Every line of every metric widget: `[namespace, name, dim, value, …, options?]` or `[{ expression, … }]`. */
function linesOf(body: Json): Line[] {
  return (body.widgets as Json[]).flatMap((w) =>
    ((w.properties.metrics ?? []) as unknown[][]).map((row): Line => {
      const options = (typeof row.at(-1) === 'object' ? row.at(-1) : {}) as Json;
      if (options.expression) return { widget: w.properties.title, dims: {}, expression: options.expression, label: options.label };
      const [namespace, name, ...rest] = row.filter((x): x is string => typeof x === 'string');
      const dims = Object.fromEntries(Array.from({ length: rest.length / 2 }, (_, i) => [rest[2 * i]!, rest[2 * i + 1]!]));
      return { widget: w.properties.title, namespace, name, dims, stat: options.stat, label: options.label };
    }),
  );
}

/** The EMF line a function writes (metrics on, as in Lambda) and a line of its logger, parsed. */
function emitted(stage: string): Json {
  const disabled = process.env.METRICS_DISABLED;
  const original = process.stdout.write;
  let out = '';
  process.env.METRICS_DISABLED = 'false';
  process.stdout.write = (chunk: string | Uint8Array) => ((out += chunk.toString()), true);
  try {
    const metrics = createMetrics(stage);
    metrics.addMetric('DeliverySucceeded', 1);
    metrics.publish();
    logger.info('dimension check');
  } finally {
    process.stdout.write = original;
    if (disabled === undefined) delete process.env.METRICS_DISABLED;
    else process.env.METRICS_DISABLED = disabled;
  }
  const [emf, logLine] = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Json);
  return { emf: emf!, logLine: logLine! };
}

describe.each(['dev', 'prod'] as const satisfies readonly Stage[])('ServiceDashboard (%s)', (stage) => {
  let template: Template;
  let body: Json;
  let lines: Line[];
  const has = (expected: Partial<Line>) => expect(lines).toContainEqual(expect.objectContaining(expected));
  const logicalId = (type: string, match: (r: Json) => boolean) => {
    const ids = Object.entries(template.findResources(type))
      .filter(([, r]) => match(r))
      .map(([id]) => id);
    expect(ids, type).toHaveLength(1);
    return ids[0]!;
  };
  const functionId = (name: FunctionName) =>
    logicalId('AWS::Lambda::Function', (fn) =>
      ((fn.Properties.Tags ?? []) as Json[]).some((t) => t.Key === FAMILY_TAG && t.Value === name),
    );

  beforeAll(async () => {
    template = (await stageTemplates([stage]))[stage];
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    expect(dashboards).toHaveLength(1);
    body = bodyOf(dashboards[0]!);
    lines = linesOf(body);
  });

  it(`is the stage's one dashboard, customer-api-${stage}`, () => {
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', { DashboardName: `customer-api-${stage}` });
  });

  it('gives every widget a title and a labelled y axis (its unit)', () => {
    for (const w of body.widgets as Json[]) {
      expect(w.properties.title, JSON.stringify(w.properties)).toMatch(/\S/);
      expect(w.properties.yAxis?.left?.label, w.properties.title).toMatch(/\S/);
    }
  });

  it("draws the HTTP API's requests, 4xx, 5xx and latency p50/p90/p99 from AWS/ApiGateway ($default stage)", () => {
    const api = `Ref(${logicalId('AWS::ApiGatewayV2::Api', () => true)})`;
    const dims = { ApiId: api, Stage: '$default' };
    for (const name of ['Count', '4xx', '5xx']) has({ namespace: 'AWS/ApiGateway', name, dims });
    for (const stat of PERCENTILES) has({ namespace: 'AWS/ApiGateway', name: 'Latency', dims, stat });
  });

  it("draws every HTTP count (RateLimited included) for each API, with the filters' dimensions and the logger's service", () => {
    const { logLine } = emitted(stage);
    // The HTTP counts' `service` is the access line's field, which the logger writes.
    expect(logLine.service).toBe(SERVICE);
    for (const api of Object.keys(APIS)) {
      for (const name of Object.keys(HTTP_COUNTS)) {
        const line = lines.find((l) => l.namespace === METRICS_NAMESPACE && l.name === name && l.dims.api === api);
        expect(line, `${name} of ${api}`).toBeDefined();
        expect(Object.keys(line!.dims).sort()).toEqual([...HTTP_COUNT_DIMENSIONS].sort());
        expect(line!.dims).toEqual({ service: SERVICE, stage, api });
        expect(line!.stat).toBe('Sum');
      }
    }
  });

  it("draws tokens issued (the token API's requests less its 4xx and 5xx) and refused (its 4xx)", () => {
    const widget = lines.filter((l) => /token/i.test(l.widget) && /issued/i.test(l.widget));
    expect(widget.find((l) => l.expression)?.expression).toMatch(/requests\b.*-.*refused.*-.*failed/);
    expect(
      widget
        .map((l) => l.name)
        .filter(Boolean)
        .sort(),
    ).toEqual(['ClientErrors', 'Requests', 'ServerErrors']);
    expect(widget.every((l) => l.expression || l.dims.api === 'token')).toBe(true);
  });

  it("draws each function's invocations, errors, duration p50/p90/p99, concurrent executions and throttles", () => {
    for (const name of Object.keys(FUNCTIONS) as FunctionName[]) {
      const dims = { FunctionName: `Ref(${functionId(name)})` };
      for (const metric of ['Invocations', 'Errors', 'ConcurrentExecutions', 'Throttles'])
        has({ namespace: 'AWS/Lambda', name: metric, dims });
      for (const stat of PERCENTILES) has({ namespace: 'AWS/Lambda', name: 'Duration', dims, stat });
    }
  });

  it("draws every delivery count with the EMF line's own dimensions", () => {
    const { emf } = emitted(stage);
    const emfDims = Object.fromEntries((emf._aws.CloudWatchMetrics[0].Dimensions[0] as string[]).map((d) => [d, emf[d]]));
    expect(emf._aws.CloudWatchMetrics[0].Namespace).toBe(METRICS_NAMESPACE);
    for (const name of DELIVERY_COUNTS) has({ namespace: METRICS_NAMESPACE, name, dims: emfDims, stat: 'Sum' });
  });

  it("draws the webhook queue's visible messages and oldest message age, and the DLQ's depth", () => {
    const queueName = (name: string) => `GetAtt(${logicalId('AWS::SQS::Queue', (q) => q.Properties.QueueName === name)}.QueueName)`;
    const queue = { QueueName: queueName(WEBHOOK_QUEUES.queueName(`customer-api-${stage}`)) };
    const dlq = { QueueName: queueName(WEBHOOK_QUEUES.dlqName(`customer-api-${stage}`)) };
    has({ namespace: 'AWS/SQS', name: 'ApproximateNumberOfMessagesVisible', dims: queue });
    has({ namespace: 'AWS/SQS', name: 'ApproximateAgeOfOldestMessage', dims: queue });
    has({ namespace: 'AWS/SQS', name: 'ApproximateNumberOfMessagesVisible', dims: dlq });
  });

  it("draws the table's consumed capacity, throttled requests and system errors", () => {
    const table = `Ref(${logicalId('AWS::DynamoDB::Table', () => true)})`;
    for (const name of ['ConsumedReadCapacityUnits', 'ConsumedWriteCapacityUnits', 'ThrottledRequests', 'SystemErrors']) {
      expect(
        lines.some((l) => l.namespace === 'AWS/DynamoDB' && l.name === name && l.dims.TableName === table),
        name,
      ).toBe(true);
    }
  });

  it('uses only metrics the code emits or AWS publishes, and every metric the code emits', () => {
    const metrics = lines.filter((l) => l.namespace);
    const own = new Set(metrics.filter((l) => l.namespace === METRICS_NAMESPACE).map((l) => l.name!));
    expect([...own].filter((name) => !(METRIC_NAMES as readonly string[]).includes(name))).toEqual([]);
    expect([...METRIC_NAMES].filter((name) => !own.has(name))).toEqual([]);
    // Besides the EMF names: what the stack's own metric filters publish (the producer counts), else AWS's.
    const filtered = new Set(
      Object.values(template.findResources('AWS::Logs::MetricFilter')).flatMap((f) =>
        (f.Properties.MetricTransformations as Json[]).map((t) => `${t.MetricNamespace} ${t.MetricName}`),
      ),
    );
    for (const l of metrics.filter((m) => m.namespace !== METRICS_NAMESPACE && !filtered.has(`${m.namespace} ${m.name}`))) {
      expect(AWS_PUBLISHED[l.namespace!], `${l.namespace} ${l.name}`).toContain(l.name);
    }
  });

  it("draws each producer's updates by outcome and its lag, from the producer function's lines", () => {
    const namespace = `CustomerApi/${stage}/Producers`;
    for (const producer of PRODUCERS) {
      for (const outcome of PRODUCER_OUTCOMES) has({ namespace, name: 'Updates', dims: { producer, outcome }, stat: 'Sum' });
      for (const stat of ['p90', 'Maximum']) has({ namespace, name: 'LagMs', dims: { producer }, stat });
    }
  });
});
