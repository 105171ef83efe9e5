import { Duration } from 'aws-cdk-lib';
import type { IHttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Dashboard, GraphWidget, MathExpression, Metric, type IMetric, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { HttpApi } from '#platform/http';
import {
  HTTP_COUNT_DIMENSIONS,
  HTTP_COUNTS,
  METRIC_NAMES,
  METRIC_UNITS,
  METRICS_NAMESPACE,
  SERVICE,
  type MetricName,
} from '#platform/observability';
import { FUNCTIONS, type FunctionName } from '../functions.js';
import { PRODUCERS } from '#lambdas/producers/routes';
import { PRODUCER_OUTCOMES } from '#lambdas/producers/update-line';
import type { ProducerMetrics } from './producer-metrics.js';

const PERIOD = Duration.minutes(5);
const PERCENTILES = ['p50', 'p90', 'p99'] as const;

/** The HTTP APIs whose access lines the metric filters count (dimension `api`), as titled on the dashboard. */
const HTTP_APIS = {
  v1: '/v1 API',
  token: 'Token endpoint',
  admin: 'Admin API',
  producer: 'Producer API',
} as const satisfies Record<HttpApi, string>;
type HttpCount = keyof typeof HTTP_COUNTS;
const HTTP_COUNT_LABELS = {
  Requests: 'Requests',
  ClientErrors: '4xx',
  ServerErrors: '5xx',
  RateLimited: '429 rate-limited',
} as const satisfies Record<HttpCount, string>;

/** The EMF metrics that are levels, not counts (METRIC_UNITS), each drawn on its own widget with its maximum. */
type EmfLevel = keyof typeof METRIC_UNITS;
const EMF_LEVELS = {
  StopCommandOldestQueuedSeconds: 'Emergency stops: oldest command still queued (s, max)',
} as const satisfies Record<EmfLevel, string>;
/** Every EMF count (observability.ts), the widget it is drawn on and its label: a new name does not compile until placed. */
type EmfCount = Exclude<MetricName, HttpCount | EmfLevel>;
const EMF_WIDGETS = {
  outcomes: 'Webhook delivery attempts by outcome',
  backlog: 'Webhook deliveries queued, stranded in the DLQ, requeued, re-dispatched',
  stops: 'Emergency stops: published, applied, failed, expired',
  other: 'Owner mail failures, cold starts',
} as const;
const EMF_COUNTS = {
  DeliverySucceeded: ['outcomes', 'Succeeded'],
  DeliveryFailed: ['outcomes', 'Failed (permanent)'],
  DeliveryRetried: ['outcomes', 'Retried'],
  DeliveryDeadLettered: ['outcomes', 'Dead-lettered'],
  DeliveriesQueued: ['backlog', 'Queued by a menu publish'],
  DeliveryStranded: ['backlog', 'Stranded (held in the DLQ with attempts left)'],
  DeliveryRequeued: ['backlog', 'Requeued (their message vanished)'],
  SweeperRedispatched: ['backlog', 'Menu events re-dispatched by the sweeper'],
  StopCommandsPublished: ['stops', 'Published (first sent to the device platform)'],
  StopCommandsApplied: ['stops', 'Reported applied'],
  StopCommandsFailed: ['stops', 'Reported failed'],
  StopCommandsExpired: ['stops', 'Expired unreported (failed)'],
  MailFailed: ['other', 'Owner mails not sent'],
  MailSuppressed: ['other', 'Owner mails held back (address bounced or complained)'],
  MailAddressSuppressed: ['other', 'Owner addresses suppressed (bounce or complaint)'],
  DestinationFailingNotified: ['outcomes', 'Owners told a destination is failing'],
  DestinationRecoveredNotified: ['outcomes', 'Owners told a destination recovered'],
  ColdStart: ['other', 'Cold starts'],
} as const satisfies Record<EmfCount, readonly [keyof typeof EMF_WIDGETS, string]>;

export type ServiceDashboardProps = {
  stage: string;
  /** Every function of the stack, each named by its row in FUNCTIONS (ServiceFunction's `family`). */
  functions: readonly (IFunction & { family: string })[];
  /** The HTTP API's `$default` stage: its Latency, Count, 4xx and 5xx (AWS/ApiGateway, ApiId and Stage). */
  apiStage: IHttpStage;
  table: ITable;
  queues: { queue: IQueue; deadLetterQueue: IQueue };
  producers: ProducerMetrics;
};

/**
 * The stage's CloudWatch dashboard, `customer-api-<stage>`: the HTTP API, the
 * HTTP counts per API and every function's invocations, errors and duration;
 * the webhook counts, queue and DLQ; the table; concurrency and throttles.
 * Built from FUNCTIONS, HTTP_COUNTS and the EMF names, never a retyped list.
 */
export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);
    const { stage, apiStage, table, queues } = props;
    const functions = (Object.keys(FUNCTIONS) as FunctionName[]).map((name) => {
      const fn = props.functions.find((f) => f.family === name);
      if (!fn) throw new Error(`ServiceDashboard: no function for ${name}`);
      return [name, fn] as const;
    });

    const count = (metricName: MetricName, label: string, dimensions: Record<string, string>) =>
      new Metric({ namespace: METRICS_NAMESPACE, metricName, dimensionsMap: dimensions, statistic: 'Sum', period: PERIOD, label });
    const httpCount = (api: HttpApi, name: HttpCount, label: string = HTTP_COUNT_LABELS[name]) => {
      const values: Record<(typeof HTTP_COUNT_DIMENSIONS)[number], string> = { service: SERVICE, stage, api };
      return count(name, label, Object.fromEntries(HTTP_COUNT_DIMENSIONS.map((d) => [d, values[d]])));
    };
    const graph = (title: string, unit: string, left: IMetric[], width = 8, right?: { unit: string; metrics: IMetric[] }) =>
      new GraphWidget({
        title,
        width,
        height: 6,
        left,
        leftYAxis: { label: unit, showUnits: false, min: 0 },
        ...(right ? { right: right.metrics, rightYAxis: { label: right.unit, showUnits: false, min: 0 } } : {}),
      });
    const percentiles = (metric: (stat: string) => IMetric) => PERCENTILES.map(metric);

    const token = (name: HttpCount, label?: string) => httpCount('token', name, label);
    // One object for the refusals line and the expression's term: a dashboard draws a metric once, with one label.
    const refused = token('ClientErrors', 'Refused (4xx)');
    const httpRow: IWidget[] = [
      graph('HTTP API: requests, 4xx, 5xx (count / 5 min)', 'Count', [
        apiStage.metricCount({ statistic: 'Sum', period: PERIOD, label: 'Requests' }),
        apiStage.metricClientError({ period: PERIOD, label: '4xx' }),
        apiStage.metricServerError({ period: PERIOD, label: '5xx' }),
      ]),
      graph(
        'HTTP API: latency p50 / p90 / p99 (ms)',
        'Milliseconds',
        percentiles((stat) => apiStage.metricLatency({ statistic: stat, period: PERIOD, label: stat })),
      ),
      graph('Tokens issued and refused (count / 5 min)', 'Count', [
        new MathExpression({
          // A filter publishes only when a line matches: a period without refusals has no refused point.
          expression: 'requests - FILL(refused, 0) - FILL(failed, 0)',
          usingMetrics: { requests: token('Requests'), refused, failed: token('ServerErrors') },
          period: PERIOD,
          label: 'Issued (requests − 4xx − 5xx)',
        }),
        refused,
      ]),
      ...(Object.entries(HTTP_APIS) as [HttpApi, string][]).map(([api, title]) =>
        graph(
          `${title} (api=${api}): requests, 4xx, 5xx, 429 (count / 5 min)`,
          'Count',
          (Object.keys(HTTP_COUNTS) as HttpCount[]).map((name) => httpCount(api, name)),
        ),
      ),
    ];

    const functionRows: IWidget[] = functions.flatMap(([name, fn]) => [
      graph(
        `${name}: invocations and errors (count / 5 min)`,
        'Count',
        [fn.metricInvocations({ period: PERIOD, label: 'Invocations' }), fn.metricErrors({ period: PERIOD, label: 'Errors' })],
        6,
      ),
      graph(
        `${name}: duration p50 / p90 / p99 (ms)`,
        'Milliseconds',
        percentiles((stat) => fn.metricDuration({ statistic: stat, period: PERIOD, label: stat })),
        6,
      ),
    ]);

    // In observability.ts's order; EMF lines carry service and stage only.
    const emfNames = METRIC_NAMES.filter((name): name is EmfCount => name in EMF_COUNTS);
    const webhookRow: IWidget[] = [
      ...(Object.entries(EMF_WIDGETS) as [keyof typeof EMF_WIDGETS, string][]).map(([key, title]) =>
        graph(
          `${title} (count / 5 min)`,
          'Count',
          emfNames
            .filter((name) => EMF_COUNTS[name][0] === key)
            .map((name) => count(name, EMF_COUNTS[name][1], { service: SERVICE, stage })),
        ),
      ),
      ...(Object.entries(EMF_LEVELS) as [EmfLevel, string][]).map(([name, title]) =>
        graph(title, METRIC_UNITS[name], [
          new Metric({
            namespace: METRICS_NAMESPACE,
            metricName: name,
            dimensionsMap: { service: SERVICE, stage },
            statistic: 'Maximum',
            period: PERIOD,
            label: 'Oldest queued',
          }),
        ]),
      ),
      graph(
        'Webhook queue: visible messages (max) and oldest message age (s)',
        'Count',
        [queues.queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD, label: 'Visible messages' })],
        12,
        {
          unit: 'Seconds',
          metrics: [
            queues.queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: PERIOD, label: 'Oldest message age' }),
          ],
        },
      ),
      graph(
        'Webhook DLQ: messages waiting (max)',
        'Count',
        [queues.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD, label: 'Dead letters' })],
        12,
      ),
    ];

    // A row per producer: its updates by outcome, and its lag from source time to stored.
    const producerRows: IWidget[] = PRODUCERS.flatMap((producer) => [
      graph(
        `Producer ${producer}: updates by outcome (count / 5 min)`,
        'Count',
        PRODUCER_OUTCOMES.map((outcome) => props.producers.updates(producer, outcome)),
        12,
      ),
      graph(
        `Producer ${producer}: lag from source time to stored, p50 / p90 / max (ms)`,
        'Milliseconds',
        ['p50', 'p90', 'Maximum'].map((stat) => props.producers.lag(producer, stat)),
        12,
      ),
    ]);

    const tableRow: IWidget[] = [
      graph('DynamoDB: consumed read / write capacity units (sum / 5 min)', 'Capacity units', [
        table.metricConsumedReadCapacityUnits({ period: PERIOD, label: 'Read' }),
        table.metricConsumedWriteCapacityUnits({ period: PERIOD, label: 'Write' }),
      ]),
      graph('DynamoDB: throttled requests (count / 5 min)', 'Count', [table.metricThrottledRequestsForOperations({ period: PERIOD })]),
      graph('DynamoDB: system errors (count / 5 min)', 'Count', [table.metricSystemErrorsForOperations({ period: PERIOD })]),
    ];

    const lambdaRow: IWidget[] = [
      graph(
        'Lambda: concurrent executions by function (max)',
        'Count',
        functions.map(([name, fn]) => fn.metric('ConcurrentExecutions', { statistic: 'Maximum', period: PERIOD, label: name })),
        12,
      ),
      graph(
        'Lambda: throttles by function (count / 5 min)',
        'Count',
        functions.map(([name, fn]) => fn.metricThrottles({ period: PERIOD, label: name })),
        12,
      ),
    ];

    this.dashboard = new Dashboard(this, 'Resource', {
      dashboardName: `customer-api-${stage}`,
      defaultInterval: Duration.hours(3),
      widgets: [httpRow, functionRows, webhookRow, producerRows, tableRow, lambdaRow],
    });
  }
}
