import type { MiddlewareObj } from '@middy/core';

/**
 * Structured JSON lines on stdout, one per call: level, message, timestamp,
 * service, the invocation's request id and cold start, and the caller's
 * keys. Lambda's JSON log format passes such lines through as they are and
 * its application log level (AWS_LAMBDA_LOG_LEVEL) is honoured here too.
 * Two dozen lines instead of Powertools Logger: the request path's bundles
 * have a size budget (docs/development.md, "Observability", measures both).
 *
 * Nothing that could carry a credential is ever passed to it: no headers,
 * bodies or query strings, only route, status and ids.
 */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';

const RANK: Record<LogLevel, number> = { DEBUG: 10, INFO: 20, WARN: 30, ERROR: 40, SILENT: 100 };

/** What a Lambda invocation adds to every line it writes. */
export type InvocationKeys = { function_request_id: string; cold_start: boolean };

/** Errors as their name, message and stack (JSON.stringify alone writes `{}`). */
const errorsAsObjects = (_key: string, value: unknown) =>
  value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value;

type Keys = Record<string, unknown>;

export class Logger {
  private readonly threshold: number;
  private readonly service: string;
  private invocation: InvocationKeys | undefined;

  constructor({ serviceName, logLevel }: { serviceName: string; logLevel?: LogLevel }) {
    this.service = serviceName;
    const level = logLevel ?? (process.env.AWS_LAMBDA_LOG_LEVEL?.toUpperCase() as LogLevel | undefined);
    this.threshold = RANK[level ?? 'INFO'] ?? RANK.INFO;
  }

  readonly debug = (message: string, keys?: Keys) => this.write('DEBUG', message, keys);
  readonly info = (message: string, keys?: Keys) => this.write('INFO', message, keys);
  readonly warn = (message: string, keys?: Keys) => this.write('WARN', message, keys);
  readonly error = (message: string, keys?: Keys) => this.write('ERROR', message, keys);

  /** Keys every line of the current invocation carries; undefined between invocations. */
  setInvocation(keys: InvocationKeys | undefined): void {
    this.invocation = keys;
  }

  private write(level: Exclude<LogLevel, 'SILENT'>, message: string, keys: Keys | undefined): void {
    if (RANK[level] < this.threshold) return;
    const line = { level, message, timestamp: new Date().toISOString(), service: this.service, ...this.invocation, ...keys };
    process.stdout.write(`${JSON.stringify(line, errorsAsObjects)}\n`);
  }
}

/** One logger per Lambda process. */
export const logger = new Logger({ serviceName: 'customer-api' });

export const METRICS_NAMESPACE = 'CustomerApi';
/** The `service` dimension of every metric: the EMF lines' and, through the logger's `service` field, the HTTP counts'. */
export const SERVICE = 'customer-api';

/**
 * Every metric the service emits, all with the same dimensions (service,
 * stage; and api for HTTP requests), counts but for METRIC_UNITS' few. A closed list, so no name or
 * dimension can ever carry a client id, a token or a destination.
 */
export const METRIC_NAMES = [
  // HTTP requests (dimension `api`: v1, token, admin), and those answered 4xx, 5xx and 429: counted from the access line (HTTP_COUNTS).
  'Requests',
  'ClientErrors',
  'ServerErrors',
  'RateLimited',
  // Webhook deliveries queued by a menu publish (0 when nothing changed), and how their attempts end.
  'DeliveriesQueued',
  'DeliverySucceeded',
  'DeliveryFailed',
  'DeliveryRetried',
  'DeliveryDeadLettered',
  // Deliveries the sweeper found in the DLQ with attempts left (receives spent without them).
  'DeliveryStranded',
  // Deliveries the sweeper queued again because their message vanished (outlived the queue's retention, or purged).
  'DeliveryRequeued',
  // Owner e-mails SES refused or could not take (each also logged, without address or text).
  'MailFailed',
  // Owner e-mails not sent because their address bounced or complained (SES notifications), and addresses so marked.
  'MailSuppressed',
  'MailAddressSuppressed',
  // Destinations whose owner was told they started dead-lettering production events (at most once a day each), and told they recovered.
  'DestinationFailingNotified',
  'DestinationRecoveredNotified',
  // Menu events the sweeper had to dispatch again (0 on a quiet run keeps the series continuous).
  'SweeperRedispatched',
  // Emergency-stop commands: first sent on the stop-command queue, reported applied or failed by the gateway, and
  // ended failed by the sweeper at their expiry, unreported (0 on a quiet sweep keeps the series continuous).
  'StopCommandsPublished',
  'StopCommandsApplied',
  'StopCommandsFailed',
  'StopCommandsExpired',
  // Seconds the oldest command still queued has waited, each sweep (0 when none): a level, not a count (METRIC_UNITS).
  'StopCommandOldestQueuedSeconds',
  // The first invocation of a process.
  'ColdStart',
] as const;
export type MetricName = (typeof METRIC_NAMES)[number];

/** The metrics that are not counts: their unit (every other metric is a Count). */
export const METRIC_UNITS = { StopCommandOldestQueuedSeconds: 'Seconds' } as const satisfies Partial<Record<MetricName, 'Seconds'>>;
const unitOf = (name: MetricName): string => (METRIC_UNITS as Partial<Record<MetricName, string>>)[name] ?? 'Count';

/**
 * One invocation's other counts, written at its end as one line of CloudWatch's
 * embedded metric format (EMF): a JSON object whose `_aws` member declares
 * the namespace, dimension set and metric names, the values beside it
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
 * Lambda's log agent turns the line into metrics; the line has no `level`,
 * so Lambda files it at INFO. A few lines instead of Powertools Metrics, for
 * the request path's size budget.
 */
export function createMetrics(stage: string) {
  const dimensions = { service: SERVICE, stage };
  // METRICS_DISABLED=true (read here): counts are kept and dropped, nothing is written (the local runtime's console).
  const enabled = process.env.METRICS_DISABLED !== 'true';
  let counts = new Map<MetricName, number>();
  return {
    addMetric(name: MetricName, value: number): void {
      counts.set(name, (counts.get(name) ?? 0) + value);
    },
    /** Writes what is counted as one EMF line (none when nothing is, or metrics are off), and starts afresh. */
    publish(): void {
      const names = [...counts.keys()];
      if (enabled && names.length > 0) {
        const emf = {
          _aws: {
            Timestamp: Date.now(),
            CloudWatchMetrics: [
              {
                Namespace: METRICS_NAMESPACE,
                Dimensions: [Object.keys(dimensions)],
                Metrics: names.map((Name) => ({ Name, Unit: unitOf(Name) })),
              },
            ],
          },
          ...dimensions,
          ...Object.fromEntries(counts),
        };
        process.stdout.write(`${JSON.stringify(emf)}\n`);
      }
      counts = new Map();
    },
  };
}
/** One per process, flushed at the end of each invocation by the handler's middleware. */
export type Metrics = ReturnType<typeof createMetrics>;

/** The message of the access line each HTTP request writes (platform/http.ts, httpShell); the HTTP counts are taken from it. */
export const ACCESS_LINE_MESSAGE = 'request';

/**
 * The HTTP counts, each the access lines whose status falls in its range.
 * CloudWatch metric filters on each HTTP function's log group count them
 * (lib/constructs/request-metrics.ts) into the namespace and dimensions the
 * EMF lines use, so a request pays for its access line and nothing more:
 * EMF members in that line were 186 bytes of every request's log.
 */
export const HTTP_COUNTS = {
  Requests: [100, 599],
  ClientErrors: [400, 499],
  ServerErrors: [500, 599],
  RateLimited: [429, 429],
} as const satisfies Partial<Record<MetricName, readonly [number, number]>>;

/** The access line's fields that name the HTTP counts' dimensions (the logger writes `service`, the shell the others). */
export const HTTP_COUNT_DIMENSIONS = ['service', 'stage', 'api'] as const;

/** Deps without metrics (the admin CLI's: no Lambda, nothing flushes them) count nothing. */
export function count(deps: { metrics?: Metrics | undefined }, name: MetricName, value = 1): void {
  deps.metrics?.addMetric(name, value);
}

let coldStart = true;

/**
 * The head of every handler's middy chain: the logger's invocation keys and
 * the metrics flush. No tracing SDK: Lambda's own active tracing records
 * each invocation (docs/development.md, "Observability", says why the X-Ray SDK is not bundled).
 */
export function observability(deps: { logger: Logger; metrics?: Metrics | undefined }): MiddlewareObj {
  const end = () => {
    deps.metrics?.publish();
    deps.logger.setInvocation(undefined);
  };
  return {
    before: ({ context }) => {
      deps.logger.setInvocation({ function_request_id: context.awsRequestId, cold_start: coldStart });
      if (coldStart) count(deps, 'ColdStart');
      coldStart = false;
    },
    after: end,
    onError: end,
  };
}
