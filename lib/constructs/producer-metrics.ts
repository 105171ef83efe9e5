import { Duration } from 'aws-cdk-lib';
import { MathExpression, Metric, Stats, Unit } from 'aws-cdk-lib/aws-cloudwatch';
import { FilterPattern, MetricFilter, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { PRODUCER_LINE_MESSAGE, PRODUCER_OUTCOMES, type ProducerOutcome } from '#lambdas/producers/update-line';
import type { Producer } from '#lambdas/producers/routes';

/** The outcomes of an update the service took (applied, a replay, or stale and ignored): anything but refused. */
const ACCEPTED = PRODUCER_OUTCOMES.filter((outcome) => outcome !== 'refused');

/**
 * Each producer's updates by outcome and its lag from source time to stored, taken by metric filters from the
 * producer function's `producer update` lines (lambdas/producers/producers.ts); a filter costs nothing per line.
 * The namespace names the stage (the lines do not), so two stages in one account never add up.
 */
export class ProducerMetrics extends Construct {
  private readonly namespace: string;

  constructor(scope: Construct, id: string, props: { stage: string; logGroup: ILogGroup }) {
    super(scope, id);
    this.namespace = `CustomerApi/${props.stage}/Producers`;
    const line = FilterPattern.stringValue('$.message', '=', PRODUCER_LINE_MESSAGE);
    new MetricFilter(this, 'Updates', {
      logGroup: props.logGroup,
      metricNamespace: this.namespace,
      metricName: 'Updates',
      filterPattern: line,
      metricValue: '1',
      unit: Unit.COUNT,
      dimensions: { producer: '$.producer', outcome: '$.outcome' },
    });
    new MetricFilter(this, 'Lag', {
      logGroup: props.logGroup,
      metricNamespace: this.namespace,
      metricName: 'LagMs',
      // Written updates only: a refused one has no lag.
      filterPattern: FilterPattern.all(line, FilterPattern.exists('$.lagMs')),
      metricValue: '$.lagMs',
      unit: Unit.MILLISECONDS,
      dimensions: { producer: '$.producer' },
    });
  }

  /** A producer's updates of one outcome, summed over `period`. */
  updates(producer: Producer, outcome: ProducerOutcome, period = Duration.minutes(5)): Metric {
    return new Metric({
      namespace: this.namespace,
      metricName: 'Updates',
      dimensionsMap: { producer, outcome },
      statistic: Stats.SUM,
      period,
      label: `${producer} ${outcome}`,
    });
  }

  /** A producer's accepted updates over `period`: a period without any has no datapoint (FILL keeps the others'). */
  accepted(producer: Producer, period = Duration.minutes(5)): MathExpression {
    const terms = Object.fromEntries(ACCEPTED.map((outcome) => [outcome, this.updates(producer, outcome, period)]));
    return new MathExpression({
      expression: ACCEPTED.map((o) => `FILL(${o}, 0)`).join(' + '),
      usingMetrics: terms,
      period,
      label: `${producer} accepted`,
    });
  }

  /** A producer's lag from source time to stored, at a statistic (p90, Maximum). */
  lag(producer: Producer, statistic: string): Metric {
    return new Metric({
      namespace: this.namespace,
      metricName: 'LagMs',
      dimensionsMap: { producer },
      statistic,
      period: Duration.minutes(5),
      label: `${producer} ${statistic}`,
    });
  }
}
