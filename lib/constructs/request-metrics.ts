import { Unit } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ACCESS_LINE_MESSAGE, HTTP_COUNT_DIMENSIONS, HTTP_COUNTS, METRICS_NAMESPACE } from '#platform/observability';

/**
 * The HTTP counts of one function (observability.ts, HTTP_COUNTS), taken from
 * its access lines by metric filters: each count is the lines whose status
 * falls in its range, with the line's service, stage and api as dimensions,
 * in the namespace of the service's EMF metrics. A filter costs nothing per
 * line it reads.
 */
export function addRequestCounts(scope: Construct, id: string, logGroup: ILogGroup): MetricFilter[] {
  return Object.entries(HTTP_COUNTS).map(
    ([name, [min, max]]) =>
      new MetricFilter(scope, `${id}${name}`, {
        logGroup,
        metricNamespace: METRICS_NAMESPACE,
        metricName: name,
        filterPattern: FilterPattern.all(
          FilterPattern.stringValue('$.message', '=', ACCESS_LINE_MESSAGE),
          FilterPattern.numberValue('$.status', '>=', min),
          FilterPattern.numberValue('$.status', '<=', max),
        ),
        metricValue: '1',
        unit: Unit.COUNT,
        dimensions: Object.fromEntries(HTTP_COUNT_DIMENSIONS.map((name) => [name, `$.${name}`])),
      }),
  );
}
