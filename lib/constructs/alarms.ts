import { Duration, Validations } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, MathExpression, Metric, Stats, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE, type MetricName } from '#platform/observability';
import { ALARMS, type AlarmKey } from '../alarm-catalogue.js';
import type { Stage, StageConfig } from '../stages.js';
import type { ServiceFunction } from './service-function.js';

export type ServiceAlarmsProps = {
  stage: Stage;
  alarms: StageConfig['alarms'];
};

/** The DynamoDB operations the functions call (lib/functions.ts), whose throttles and system errors are summed. */
const TABLE_OPERATIONS = [
  Operation.GET_ITEM,
  Operation.BATCH_GET_ITEM,
  Operation.QUERY,
  Operation.PUT_ITEM,
  Operation.UPDATE_ITEM,
  Operation.DELETE_ITEM,
  Operation.BATCH_WRITE_ITEM,
];

/**
 * Every alarm of the stage (lib/alarm-catalogue.ts says what each means and what to do), each with the stage's
 * topic as its alarm **and** OK action, so whoever is on call hears both that it broke and that it recovered.
 * The topic is the stack's own (with the stage's e-mail subscribed) or an imported one (its subscriptions are
 * its owner's).
 */
export class ServiceAlarms extends Construct {
  readonly topic: ITopic;
  private readonly action: SnsAction;
  private readonly config: ServiceAlarmsProps;

  constructor(scope: Construct, id: string, props: ServiceAlarmsProps) {
    super(scope, id);
    this.config = props;
    if (props.alarms.topicArn) {
      this.topic = Topic.fromTopicArn(this, 'Topic', props.alarms.topicArn);
    } else {
      const topic = new Topic(this, 'Topic', {
        topicName: `customer-api-${props.stage}-alarms`,
        displayName: `Customer API ${props.stage} alarms`,
        enforceSSL: true,
      });
      if (props.alarms.email) topic.addSubscription(new EmailSubscription(props.alarms.email));
      Validations.of(topic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key would only protect alarm names and states; no customer data goes through this topic.',
      });
      this.topic = topic;
    }
    this.action = new SnsAction(this.topic);
  }

  /** One alarm of the catalogue on `metric`, at or above the stage's threshold (scaled by `scale`, e.g. a timeout). */
  add(key: AlarmKey, id: string, metric: IMetric, { subject, scale = 1 }: { subject?: string; scale?: number } = {}): Alarm {
    const entry = ALARMS[key];
    const title = subject ? entry.title.replace('<function>', subject) : entry.title;
    const alarm = new Alarm(this, id, {
      alarmName: `customer-api-${this.config.stage}-${id}`,
      alarmDescription: `${title} (${entry.unit}): ${entry.means} First: ${entry.firstStep}`,
      metric,
      threshold: this.config.alarms.thresholds[entry.threshold] * scale,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      // No datapoint is no traffic (and SQS stops publishing for idle queues): silence is healthy.
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }

  /**
   * A function's errors and throttles, and its latency: p99 duration for an HTTP function, the longest
   * invocation against its timeout for a queue or scheduled one. Returns the alarms a canary rolls back on.
   */
  forFunction(fn: ServiceFunction, kind: 'http' | 'background'): Alarm[] {
    const minute = { period: Duration.minutes(1) };
    const id = fn.node.id.replace(/Function$/, '');
    const errors = this.add('FunctionErrors', `${id}Errors`, fn.live.metricErrors(minute), { subject: fn.family });
    this.add('FunctionThrottles', `${id}Throttles`, fn.metricThrottles(minute), { subject: fn.family });
    const latency =
      kind === 'http'
        ? this.add('FunctionLatency', `${id}Latency`, fn.live.metricDuration({ ...minute, statistic: Stats.percentile(99) }), {
            subject: fn.family,
          })
        : this.add('FunctionNearTimeout', `${id}NearTimeout`, fn.live.metricDuration({ ...minute, statistic: Stats.MAXIMUM }), {
            subject: fn.family,
            scale: fn.timeout!.toMilliseconds() / 100,
          });
    return [errors, latency];
  }

  /** The HTTP API's 5xx rate (once there are 10 requests in the window) and p99 latency, at its stage. */
  forApi(stage: HttpStage): void {
    const fiveMinutes = { period: Duration.minutes(5) };
    const rate = new MathExpression({
      expression: 'IF(requests >= 10, 100 * errors / requests, 0)',
      usingMetrics: { errors: stage.metricServerError(fiveMinutes), requests: stage.metricCount(fiveMinutes) },
      label: '5xx % of requests',
      ...fiveMinutes,
    });
    this.add('ApiServerErrors', 'ApiServerErrors', rate);
    this.add('ApiLatency', 'ApiLatency', stage.metricLatency({ ...fiveMinutes, statistic: Stats.percentile(99) }));
  }

  /** Token refusals, counted from the token function's access lines (lib/constructs/request-metrics.ts). */
  forTokenEndpoint(): void {
    this.add('TokenRefusals', 'TokenRefusals', this.serviceMetric('ClientErrors', { api: 'token' }));
  }

  forTable(table: ITable): void {
    const fiveMinutes = { period: Duration.minutes(5) };
    this.add(
      'TableThrottles',
      'TableThrottles',
      table.metricThrottledRequestsForOperations({ operations: TABLE_OPERATIONS, ...fiveMinutes }),
    );
    this.add(
      'TableSystemErrors',
      'TableSystemErrors',
      table.metricSystemErrorsForOperations({ operations: TABLE_OPERATIONS, ...fiveMinutes }),
    );
  }

  forWebhooks({ queue, deadLetterQueue, deliveryFailures }: { queue: IQueue; deadLetterQueue: IQueue; deliveryFailures: IMetric }): void {
    this.add(
      'DeadLetters',
      'DeadLetters',
      deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }),
    );
    this.add('QueueAge', 'QueueAge', queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }));
    this.add(
      'QueueInFlight',
      'QueueInFlight',
      queue.metricApproximateNumberOfMessagesNotVisible({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }),
    );
    this.add('DeliveryFailures', 'DeliveryFailures', deliveryFailures);
    this.add('DeliveriesStranded', 'DeliveriesStranded', this.serviceMetric('DeliveryStranded'));
    this.add('DeliveriesRequeued', 'DeliveriesRequeued', this.serviceMetric('DeliveryRequeued'));
    this.add('MailFailures', 'MailFailures', this.serviceMetric('MailFailed'));
  }

  /** A count the service emits (namespace CustomerApi, dimensions service and stage, plus `extra`), summed over 5 minutes. */
  private serviceMetric(name: MetricName, extra: Record<string, string> = {}): Metric {
    return new Metric({
      namespace: METRICS_NAMESPACE,
      metricName: name,
      dimensionsMap: { service: SERVICE, stage: this.config.stage, ...extra },
      statistic: Stats.SUM,
      period: Duration.minutes(5),
    });
  }
}
