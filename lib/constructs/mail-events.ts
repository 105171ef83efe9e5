import { ArnFormat, Duration, Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { ConfigurationSet, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { LambdaSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { FUNCTIONS, timeoutSecondsOf } from '../functions.js';
import { pascal, ServiceFunction } from './service-function.js';

export type MailEventsProps = {
  stage: string;
  /** An existing configuration set to use (the stage's mailConfigurationSet); absent: one is created here. */
  importedConfigurationSet?: string | undefined;
  table: ITable;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  tracing: boolean;
};

/**
 * Owner mail that hears back (docs/decisions/mail-suppression.md): the SES configuration set every owner mail is
 * sent with, its event destination publishing bounces and complaints to this topic, and the function subscribed
 * to it that marks the addresses (lambdas/mail-events/). An imported set keeps its own event destinations: its
 * owner adds one to this topic, which SES may publish to for that set only.
 */
export class MailEvents extends Construct {
  /** The name every mailing function sends with (MAIL_CONFIGURATION_SET). */
  readonly configurationSetName: string;
  readonly topic: Topic;
  readonly function: ServiceFunction;
  /** Where Lambda puts an event the function failed on after its asynchronous retries (ServiceAlarms alarms on it). */
  readonly failures: Queue;

  constructor(scope: Construct, id: string, props: MailEventsProps) {
    super(scope, id);
    this.topic = new Topic(this, 'Topic', {
      topicName: `customer-api-${props.stage}-mail-events`,
      displayName: `Customer API ${props.stage} mail events`,
      enforceSSL: true,
    });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason:
        "SES event records (an owner address, the bounce or complaint) pass through at once to the one Lambda subscriber; SES can only publish to an encrypted topic through a customer-managed key, which would hold nothing longer than SNS's delivery and cost a key per stage. Transport is TLS-only (enforceSSL).",
    });

    const name = 'mail-events' as const;
    const infra = FUNCTIONS[name];
    this.function = new ServiceFunction(this, pascal(name), {
      family: name,
      entry: infra.entry,
      memorySize: infra.memorySize,
      timeoutSeconds: timeoutSecondsOf(name),
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      tracing: props.tracing,
      environment: props.environment,
    });
    this.function.bindTable(props.table, infra.tableActions, infra.queriedIndexes);
    // SNS invokes asynchronously: after Lambda's retries an event it still fails on goes to this queue, with the
    // error and the event, instead of being dropped (docs/decisions/alarm-delivery.md).
    this.failures = new Queue(this, 'Failures', {
      queueName: `customer-api-${props.stage}-mail-events-failed`,
      retentionPeriod: Duration.days(14),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: props.removalPolicy,
    });
    Validations.of(this.failures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "It is a dead-letter destination itself (Lambda's on-failure destination of the mail-events function), read by an operator; nothing consumes it to fail again.",
    });
    this.function.live.configureAsyncInvoke({ onFailure: new SqsDestination(this.failures) });
    this.topic.addSubscription(new LambdaSubscription(this.function.live));
    // The subscription's endpoint is the live alias's ARN (a qualified function ARN), which SNS invokes like any function.
    Validations.of(this.function.live.node.findChild(this.topic.node.id)).acknowledge({
      id: 'CloudFormation-Validate::W3694',
      reason:
        'An alias ARN is a qualified Lambda function ARN, a valid endpoint of a lambda subscription; invoking the live alias is what lets deploys shift and roll back.',
    });

    if (props.importedConfigurationSet) {
      this.configurationSetName = props.importedConfigurationSet;
      // What CDK adds for a destination it creates, for the one the set's owner adds: SES, for this set only.
      const stack = Stack.of(this);
      this.topic.addToResourcePolicy(
        new PolicyStatement({
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          principals: [new ServicePrincipal('ses.amazonaws.com')],
          conditions: {
            StringEquals: {
              'AWS:SourceAccount': stack.account,
              'AWS:SourceArn': stack.formatArn({
                service: 'ses',
                resource: 'configuration-set',
                resourceName: this.configurationSetName,
                arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
              }),
            },
          },
        }),
      );
    } else {
      const set = new ConfigurationSet(this, 'ConfigurationSet', { configurationSetName: `customer-api-${props.stage}` });
      // Only what suppresses an address: hard bounces (SES reports soft ones only once it gave up retrying) and complaints.
      set.addEventDestination('BouncesAndComplaints', {
        destination: EventDestination.snsTopic(this.topic),
        events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
      });
      this.configurationSetName = set.configurationSetName;
    }
  }
}
