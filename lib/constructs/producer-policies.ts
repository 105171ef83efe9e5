import { type CfnElement, Stack, Validations } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { ManagedPolicy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { invokePathsOf, PRODUCER_ROUTES, PRODUCERS, type Producer } from '#lambdas/producers/routes';
import { nagEnvironment, pascal } from './service-function.js';

/** The class that consumes the stop-command queue, and what it may do there. */
const STOP_COMMAND_CONSUMER: Producer = 'device-platform';
export const STOP_COMMAND_CONSUMER_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
] as const;

/**
 * One managed policy per class of producer that has a route (docs/decisions/producers.md): execute-api:Invoke on
 * its own routes on the API's one stage, and nothing else (a producer never touches the table); the device
 * platform's also consumes the stop-command queue, and only that queue (receive, delete, change visibility, read its
 * attributes: never send). A platform team attaches its class's policy to the role its system runs as
 * (docs/operations.md, "Producers"); the local gateway holds each producer key to the same statements, found by the
 * policy's name in the dev template.
 */
export class ProducerPolicies extends Construct {
  /** By class; a class with no route yet has none. */
  readonly policies: ReadonlyMap<Producer, ManagedPolicy>;

  constructor(scope: Construct, id: string, props: { stageName: string; api: HttpApi; stopCommandQueue: IQueue }) {
    super(scope, id);
    const stack = Stack.of(this);
    // cdk-nag names a finding by the resource as it reads it: the pseudo parameters or the stage's values, the API by its logical id.
    const { partition, region, account } = nagEnvironment(this);
    const apiLogicalId = stack.resolve((props.api.node.defaultChild as CfnElement).logicalId) as string;
    const policies = new Map<Producer, ManagedPolicy>();
    for (const producer of PRODUCERS.filter((p) => PRODUCER_ROUTES.some((r) => r.producer === p))) {
      // arn:…:execute-api:region:account:api-id/stage/METHOD/path; the stage is `$default`.
      const paths = invokePathsOf(producer).map((path) => `$default/${path}`);
      const policy = new ManagedPolicy(this, pascal(producer), {
        managedPolicyName: `customer-api-${props.stageName}-producer-${producer}`,
        description: `Customer API ${props.stageName}: the ${producer} producer's routes of the producer API${producer === STOP_COMMAND_CONSUMER ? ' and the stop-command queue' : ''}`,
        statements: [
          new PolicyStatement({
            sid: 'ProducerRoutes',
            actions: ['execute-api:Invoke'],
            resources: paths.map((path) => stack.formatArn({ service: 'execute-api', resource: props.api.apiId, resourceName: path })),
          }),
          ...(producer === STOP_COMMAND_CONSUMER
            ? [
                new PolicyStatement({
                  sid: 'StopCommandQueue',
                  actions: [...STOP_COMMAND_CONSUMER_ACTIONS],
                  resources: [props.stopCommandQueue.queueArn],
                }),
              ]
            : []),
        ],
      });
      for (const path of paths) {
        Validations.of(policy).acknowledge({
          id: `AwsSolutions-IAM5[Resource::arn:${partition}:execute-api:${region}:${account}:<${apiLogicalId}>/${path}]`,
          reason: `One route of the ${producer} producer: its path parameters (location, resource, date) are the wildcard, since a producer writes every location; its method and fixed path are named.`,
        });
      }
      policies.set(producer, policy);
    }
    this.policies = policies;
  }
}
