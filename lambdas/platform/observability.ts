import type { MiddlewareObj } from '@middy/core';
import type { Logger } from './logger.js';

export const METRICS_NAMESPACE = 'CustomerApi';
const SERVICE = 'customer-api';

/**
 * Every metric the service emits, all counts with the same dimensions
 * (service, stage; and api for HTTP requests). A closed list, so no name or
 * dimension can ever carry a client id, a token or a destination.
 */
export type MetricName =
  // HTTP requests (dimension `api`: v1, token, admin), and those answered 4xx, 5xx and 429.
  | 'Requests'
  | 'ClientErrors'
  | 'ServerErrors'
  | 'RateLimited'
  // Webhook deliveries queued by a menu publish (0 when nothing changed), and how their attempts end.
  | 'DeliveriesQueued'
  | 'DeliverySucceeded'
  | 'DeliveryFailed'
  | 'DeliveryRetried'
  | 'DeliveryDeadLettered'
  // Deliveries the sweeper found in the DLQ with attempts left (receives spent without them).
  | 'DeliveryStranded'
  // Owner e-mails SES refused or could not take (each also logged, without address or text).
  | 'MailFailed'
  // Menu events the sweeper had to dispatch again (0 on a quiet run keeps the series continuous).
  | 'SweeperRedispatched'
  // The first invocation of a process.
  | 'ColdStart';

/**
 * One invocation's counts, written at its end as one line of CloudWatch's
 * embedded metric format (EMF): a JSON object whose `_aws` member declares
 * the namespace, dimension set and metric names, the values beside it
 * (https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/CloudWatch_Embedded_Metric_Format_Specification.html).
 * Lambda's log agent turns the line into metrics; the line has no `level`,
 * so Lambda files it at INFO. A few lines instead of Powertools Metrics, for
 * the request path's size budget.
 */
export class Metrics {
  private counts = new Map<MetricName, number>();
  private dimensions: Record<string, string>;
  private metadata: Record<string, string> = {};

  constructor(
    private readonly defaultDimensions: Record<string, string>,
    /** Off: counts are kept and dropped, nothing is written (the local runtime's console). */
    private readonly enabled: boolean,
  ) {
    this.dimensions = { ...defaultDimensions };
  }

  addMetric(name: MetricName, value: number): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + value);
  }
  addDimension(name: string, value: string): void {
    this.dimensions[name] = value;
  }
  /** Searchable in the log line, not a dimension (no cost per value). */
  addMetadata(key: string, value: string): void {
    this.metadata[key] = value;
  }

  /**
   * The counts as the members of an EMF document (null when nothing was
   * counted or metrics are off), and a fresh start: the HTTP shell puts them
   * in its access line, so a request writes one line, not two.
   */
  take(): Record<string, unknown> | null {
    const names = [...this.counts.keys()];
    const emf =
      this.enabled && names.length > 0
        ? {
            _aws: {
              Timestamp: Date.now(),
              CloudWatchMetrics: [{ Namespace: METRICS_NAMESPACE, Dimensions: [Object.keys(this.dimensions)], Metrics: names.map((Name) => ({ Name, Unit: 'Count' })) }],
            },
            ...this.dimensions,
            ...this.metadata,
            ...Object.fromEntries(this.counts),
          }
        : null;
    this.counts = new Map();
    this.dimensions = { ...this.defaultDimensions };
    this.metadata = {};
    return emf;
  }

  /** Writes what is still counted as one EMF line of its own (none when nothing is). */
  publish(): void {
    const emf = this.take();
    if (emf) process.stdout.write(`${JSON.stringify(emf)}\n`);
  }
}

/**
 * One Metrics per process, flushed at the end of each invocation by the
 * handler's middleware. METRICS_DISABLED=true (read here) keeps the local
 * runtime's console free of EMF lines.
 */
export function createMetrics(stage: string): Metrics {
  return new Metrics({ service: SERVICE, stage }, process.env.METRICS_DISABLED !== 'true');
}

/** Deps without metrics (the admin CLI's: no Lambda, nothing flushes them) count nothing. */
export function count(deps: { metrics?: Metrics | undefined }, name: MetricName, value = 1): void {
  deps.metrics?.addMetric(name, value);
}

let coldStart = true;

/**
 * The head of every handler's middy chain: the logger's invocation keys and
 * the metrics flush. No tracing SDK: Lambda's own active tracing records
 * each invocation (README, "Observability", says why the X-Ray SDK is not bundled).
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
