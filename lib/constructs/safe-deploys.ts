import { Stack, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import { LambdaApplication, LambdaDeploymentConfig, LambdaDeploymentGroup } from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { Stage, StageConfig } from '../stages.js';
import { PresetFunction, type ServiceFunction } from './service-function.js';

export type SafeDeploysProps = {
  stage: Stage;
  style: StageConfig['deployment'];
  /** Where the post-deploy smoke run calls the API: the stage's public base URL. */
  baseUrl: string;
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
  tracing: boolean;
};

/** The secret holding the smoke application's credentials, which the platform team stores before a canary deploy. */
export const smokeSecretName = (stage: Stage) => `customer-api/${stage}/smoke`;

/**
 * How a deploy reaches traffic. Every function is invoked through its `live` alias (ServiceFunction); in a
 * `canary` stage CodeDeploy moves each alias 10 % for 5 minutes, then the rest, rolling back when that function's
 * new version's own error or latency alarm fires or when the post-traffic hook's smoke run against the stage fails
 * (docs/operations.md). An `all-at-once` stage moves each alias as CloudFormation updates it.
 */
export class SafeDeploys extends Construct {
  private readonly canary?: { application: LambdaApplication; role: Role; hook: PresetFunction };

  constructor(scope: Construct, id: string, props: SafeDeploysProps) {
    super(scope, id);
    if (props.style !== 'canary') return;
    const application = new LambdaApplication(this, 'Application', { applicationName: `customer-api-${props.stage}` });
    // One role for every deployment group, with AWS's policy for Lambda deployments (alias updates, hooks, alarms).
    const role = new Role(this, 'DeployRole', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSCodeDeployRoleForLambdaLimited')],
    });
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited]',
      reason:
        "AWS's own policy for CodeDeploy's Lambda deployments: it updates aliases, invokes only hook functions named CodeDeployHook_* or granted to it, and reads the alarms; it moves with the service's needs.",
    });
    // CodeDeploy invokes its hooks by name: the hook has no alias, which nothing would invoke.
    const hook = new PresetFunction(this, 'SmokeHook', {
      family: 'smoke-hook',
      entry: '../smoke/hook-handler.ts',
      memorySize: 256,
      // The read-only checks make about thirty requests; CodeDeploy waits up to an hour for the hook's report.
      timeoutSeconds: 120,
      logRetention: props.logRetention,
      removalPolicy: props.removalPolicy,
      tracing: props.tracing,
      environment: { SMOKE_BASE_URL: props.baseUrl, SMOKE_SECRET_ID: smokeSecretName(props.stage) },
    });
    Secret.fromSecretNameV2(this, 'SmokeCredentials', smokeSecretName(props.stage)).grantRead(hook);
    // Each deployment group lets CodeDeploy invoke the hook, by its ARN and its versions' (`<arn>:*`).
    const hookId = Stack.of(this).getLogicalId(hook.node.defaultChild as CfnFunction);
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${hookId}.Arn>:*]`,
      reason: 'lambda:InvokeFunction on the smoke hook and its versions only (aws-cdk-lib grants the qualified ARNs with the function).',
    });
    this.canary = { application, role, hook };
  }

  /** Whether deploys shift traffic through CodeDeploy (and so need rollback alarms). */
  get rollsBack(): boolean {
    return this.canary !== undefined;
  }

  /** In a canary stage, deploys `fn` through CodeDeploy, rolled back on any of `alarms` or a failed smoke run. */
  guard(fn: ServiceFunction, alarms: Alarm[]): void {
    if (!this.canary) return;
    const { application, role, hook } = this.canary;
    // The alarms watch the new version by number: CloudFormation updates them before the alias starts the shift.
    fn.live.node.addDependency(...alarms);
    new LambdaDeploymentGroup(this, `${fn.node.id}Deployment`, {
      application,
      role,
      alias: fn.live,
      deploymentConfig: LambdaDeploymentConfig.CANARY_10PERCENT_5MINUTES,
      alarms,
      postHook: hook,
      autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
    });
  }
}
