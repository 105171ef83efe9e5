import { ArnFormat, Duration, Stack, Validations } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { Alarm, ComparisonOperator, MathExpression, Metric, Stats, TreatMissingData, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { Operation, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic, type ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, SERVICE, type MetricName } from '#platform/observability';
import { ALARMS, alarmNamePrefix, thresholdOf, type AlarmEntry, type AlarmKey } from '../alarm-catalogue.js';
import type { Stage, StageConfig } from '../stages.js';
import { LIVE_ALIAS, pascal, type ServiceFunction } from './service-function.js';
import type { ProducerMetrics } from './producer-metrics.js';
import { PRODUCER_CADENCE_MINUTES, PRODUCERS } from '#lambdas/producers/routes';

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

/** What a queue holds: visible plus in flight, so a consumer that hides its messages for a moment does not empty it. */
function messagesHeld(queue: IQueue): MathExpression {
  const minute = { period: Duration.minutes(1), statistic: Stats.MAXIMUM };
  return new MathExpression({
    expression: 'visible + inFlight',
    usingMetrics: {
      visible: queue.metricApproximateNumberOfMessagesVisible(minute),
      inFlight: queue.metricApproximateNumberOfMessagesNotVisible(minute),
    },
    label: 'messages held',
    period: minute.period,
  });
}

type WebhookAlarmSources = {
  queue: IQueue;
  deadLetterQueue: IQueue;
  fanOutQueue: IQueue;
  fanOutDeadLetterQueue: IQueue;
  deliveryFailures: IMetric;
};

/**
 * Every alarm of the stage (lib/alarm-catalogue.ts says what each means and what to do), each with the stage's
 * topic as its alarm **and** OK action, so whoever is on call hears both that it broke and that it recovered.
 * The topic is the stack's own (with the stage's e-mail subscribed) or an imported one (its subscriptions are
 * its owner's; docs/operations.md says what its policy and key must allow).
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
      // enforceSSL's policy replaces the topic's default one: CloudWatch may publish only with this statement, for
      // this stage's alarms in this account (docs/decisions/alarm-delivery.md).
      const stack = Stack.of(this);
      topic.addToResourcePolicy(
        new PolicyStatement({
          sid: 'CloudWatchAlarmsPublish',
          actions: ['sns:Publish'],
          principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
          resources: [topic.topicArn],
          conditions: {
            ArnLike: {
              'aws:SourceArn': stack.formatArn({
                service: 'cloudwatch',
                resource: 'alarm',
                resourceName: `${alarmNamePrefix(props.stage)}*`,
                arnFormat: ArnFormat.COLON_RESOURCE_NAME,
              }),
            },
            StringEquals: { 'aws:SourceAccount': stack.account },
          },
        }),
      );
      if (props.alarms.email) topic.addSubscription(new EmailSubscription(props.alarms.email));
      Validations.of(topic).acknowledge({
        id: 'AwsSolutions-SNS2',
        reason:
          'CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and a customer-managed key would only protect alarm names and states; no customer data goes through this topic.',
      });
      this.topic = topic;
    }
    this.action = new SnsAction(this.topic);
    // The post-deploy check of the alarm path (docs/operations.md): nothing publishes its metric, so it changes
    // state only when an operator sets it, and no deployment group watches it.
    this.add(
      'AlarmPathCheck',
      'AlarmPathCheck',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'AlarmPathCheck',
        dimensionsMap: { service: SERVICE, stage: props.stage },
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(1),
      }),
    );
  }

  /**
   * One alarm of the catalogue on `metric`, at or above the stage's threshold (scaled by `scale`, e.g. a timeout);
   * `window` overrides the entry's, for an alarm whose threshold is a length of time (so its value threshold is 1).
   */
  add(
    key: AlarmKey,
    id: string,
    metric: IMetric,
    { subject, scale = 1, window }: { subject?: string; scale?: number; window?: NonNullable<AlarmEntry['window']> } = {},
  ): Alarm {
    const entry: AlarmEntry = ALARMS[key];
    const title = subject ? entry.title.replace(/<\w+>/, subject) : entry.title;
    const periods = window ?? entry.window;
    const alarm = new Alarm(this, id, {
      alarmName: `${alarmNamePrefix(this.config.stage)}${id}`,
      alarmDescription: `${title} (${entry.unit}): ${entry.means} First: ${entry.firstStep}`,
      metric,
      threshold: window ? 1 : thresholdOf(entry, this.config.alarms.thresholds) * scale,
      comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: periods?.of ?? 1,
      datapointsToAlarm: periods?.datapoints ?? 1,
      // No datapoint is no traffic (and SQS stops publishing for idle queues): silence is healthy, unless the entry
      // watches for silence.
      treatMissingData: entry.silenceBreaches ? TreatMissingData.BREACHING : TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }

  /**
   * The alarms that page for a function: its live alias's errors, its throttles, and its latency (p99 duration
   * for an HTTP function, the longest invocation against its timeout for a queue or scheduled one).
   */
  forFunction(fn: ServiceFunction, kind: 'http' | 'background'): void {
    const minute = { period: Duration.minutes(1) };
    const id = alarmIdOf(fn);
    this.add('FunctionErrors', `${id}Errors`, fn.live.metricErrors(minute), { subject: fn.family });
    this.add('FunctionThrottles', `${id}Throttles`, fn.metricThrottles(minute), { subject: fn.family });
    if (kind === 'http')
      this.add('FunctionLatency', `${id}Latency`, fn.live.metricDuration({ ...minute, statistic: Stats.percentile(99) }), {
        subject: fn.family,
      });
    else
      this.add('FunctionNearTimeout', `${id}NearTimeout`, fn.live.metricDuration({ ...minute, statistic: Stats.MAXIMUM }), {
        subject: fn.family,
        scale: fn.timeout!.toMilliseconds() / 100,
      });
  }

  /**
   * The alarms a canary rolls back on: the errors and latency of the version being deployed alone (Lambda's
   * ExecutedVersion dimension of the weighted live alias), over ROLLBACK_WINDOW.
   */
  forNewVersion(fn: ServiceFunction, kind: 'http' | 'background'): Alarm[] {
    const newVersion = (metricName: string, statistic: string) =>
      new Metric({
        namespace: 'AWS/Lambda',
        metricName,
        dimensionsMap: {
          FunctionName: fn.functionName,
          Resource: `${fn.functionName}:${LIVE_ALIAS}`,
          ExecutedVersion: fn.live.version.version,
        },
        statistic,
        period: Duration.minutes(1),
      });
    const id = alarmIdOf(fn);
    const errors = this.add('RollbackErrors', `${id}NewVersionErrors`, newVersion('Errors', Stats.SUM), { subject: fn.family });
    const latency =
      kind === 'http'
        ? this.add('RollbackLatency', `${id}NewVersionLatency`, newVersion('Duration', Stats.percentile(99)), { subject: fn.family })
        : this.add('RollbackNearTimeout', `${id}NewVersionNearTimeout`, newVersion('Duration', Stats.MAXIMUM), {
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

  forWebhooks({ queue, deadLetterQueue, fanOutQueue, fanOutDeadLetterQueue, deliveryFailures }: WebhookAlarmSources): void {
    const oldest = (q: IQueue) => q.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: Stats.MAXIMUM });
    this.add('DeadLetters', 'DeadLetters', messagesHeld(deadLetterQueue));
    this.add('QueueAge', 'QueueAge', oldest(queue));
    this.add(
      'QueueInFlight',
      'QueueInFlight',
      queue.metricApproximateNumberOfMessagesNotVisible({ period: Duration.minutes(1), statistic: Stats.MAXIMUM }),
    );
    this.add('FanOutQueueAge', 'FanOutQueueAge', oldest(fanOutQueue));
    this.add('FanOutDeadLetters', 'FanOutDeadLetters', messagesHeld(fanOutDeadLetterQueue));
    this.add('DeliveryFailures', 'DeliveryFailures', deliveryFailures);
    this.add('DeliveriesStranded', 'DeliveriesStranded', this.serviceMetric('DeliveryStranded'));
    this.add('DeliveriesRequeued', 'DeliveriesRequeued', this.serviceMetric('DeliveryRequeued'));
    this.add('MailFailures', 'MailFailures', this.serviceMetric('MailFailed'));
  }

  /** Bounce and complaint events the mail-events function failed on, kept in its on-failure queue. */
  forMailEvents(failures: IQueue): void {
    this.add('MailEventFailures', 'MailEventFailures', messagesHeld(failures));
  }

  /**
   * Each producer that sends on a clock, quiet for the stage's minutes (every period of its cadence in that time
   * without an accepted update); and refused updates, all producers together.
   */
  forProducers(metrics: ProducerMetrics): void {
    const quietMinutes = this.config.alarms.thresholds.producerQuietMinutes;
    for (const producer of PRODUCERS) {
      const cadence = PRODUCER_CADENCE_MINUTES[producer];
      if (cadence === null) continue;
      const period = Duration.minutes(cadence);
      const quiet = new MathExpression({
        expression: 'IF(accepted >= 1, 0, 1)',
        usingMetrics: { accepted: metrics.accepted(producer, period) },
        period,
        label: `${producer} quiet`,
      });
      const periods = Math.ceil(quietMinutes / cadence);
      this.add('ProducerQuiet', `Producer${pascal(producer)}Quiet`, quiet, {
        subject: producer,
        window: { datapoints: periods, of: periods },
      });
    }
    const refused = Object.fromEntries(PRODUCERS.map((p, i) => [`r${i}`, metrics.updates(p, 'refused')]));
    this.add(
      'ProducerRefusals',
      'ProducerRefusals',
      new MathExpression({
        expression: Object.keys(refused)
          .map((k) => `FILL(${k}, 0)`)
          .join(' + '),
        usingMetrics: refused,
        period: Duration.minutes(5),
        label: 'refused updates',
      }),
    );
  }

  /**
   * The age of the oldest emergency-stop command still queued, as each sweep (every minute) publishes it: the
   * highest in a minute. No sweep, no datapoint: the sweeper's own alarms say so.
   */
  forStopCommands(): void {
    this.add(
      'StopCommandAge',
      'StopCommandAge',
      new Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'StopCommandOldestQueuedSeconds' satisfies MetricName,
        dimensionsMap: { service: SERVICE, stage: this.config.stage },
        statistic: Stats.MAXIMUM,
        period: Duration.minutes(1),
      }),
    );
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

/** A function's alarm ids start with its construct id, less `Function`. */
const alarmIdOf = (fn: ServiceFunction) => fn.node.id.replace(/Function$/, '');
