import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';

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
  | 'SweeperRedispatched';

/**
 * One Metrics per process, flushed as EMF to stdout by each handler's
 * middleware. Powertools reads POWERTOOLS_METRICS_DISABLED when this runs:
 * the local runtime sets it, so its console never fills with EMF lines.
 */
export function createMetrics(stage: string, logger: Logger): Metrics {
  return new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE, defaultDimensions: { stage }, logger });
}

/** Deps without metrics (the admin CLI's: no Lambda, nothing flushes them) count nothing. */
export function count(deps: { metrics?: Metrics | undefined }, name: MetricName, value = 1): void {
  deps.metrics?.addMetric(name, MetricUnit.Count, value);
}

/**
 * The head of every handler's middy chain: metrics flush, logger context.
 * No tracing SDK: Lambda's own active tracing records each invocation
 * (README, "Observability", says why the X-Ray SDK is not bundled).
 */
export function observability(deps: { logger: Logger; metrics?: Metrics | undefined }) {
  return [
    ...(deps.metrics ? [logMetrics(deps.metrics, { captureColdStartMetric: true })] : []),
    injectLambdaContext(deps.logger, { clearState: true }),
  ];
}
