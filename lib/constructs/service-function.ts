import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ArnFormat, Duration, Stack, Tags, Token, Validations, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { TABLE_KEYS } from '#data/table';
import { LAMBDA_BUNDLING, LAMBDA_NODE_OPTIONS } from '../bundling.js';
import { LAMBDA_LOGGING } from '../lambda-logging.js';
import { senderOf } from '../mail-sender.js';
import { ENV } from '#platform/config';

/** The DynamoDB actions a family may be granted (written without the `dynamodb:` prefix). */
export type DynamoAction =
  'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'BatchWriteItem' | 'ConditionCheckItem';

export type TableIndexName = (typeof TABLE_KEYS.globalIndexes)[number]['indexName'];

/** Resource tag naming the family a function serves; tests resolve API integrations through it. */
export const FAMILY_TAG = 'customer-api:family';

const LAMBDAS_DIR = fileURLToPath(new URL('../../lambdas/', import.meta.url));

export type ServiceFunctionProps = {
  family: string;
  /** Handler file below lambdas/. */
  entry: string;
  memorySize: number;
  logRetention: RetentionDays;
  /** For the log group: keep logs of a deleted prod stack, drop dev ones. */
  removalPolicy: RemovalPolicy;
  /** Lambda active tracing (X-Ray), the stage's setting; off, the function has no tracing config and no X-Ray grant. */
  tracing: boolean;
  environment?: Record<string, string>;
  /** The function's row's (lib/functions.ts, `timeoutSecondsOf`). */
  timeoutSeconds: number;
  /** Files shipped beside the bundle, by their path in the asset (lib/package-files.ts). */
  assetFiles?: Record<string, string>;
  /** Concurrency kept for this function alone: nothing else in the account can starve it, and it never exceeds it. */
  reservedConcurrency?: number;
  /** Provisioned concurrency of the `live` alias (0 or absent: none). */
  provisionedConcurrency?: number;
};

/** The alias every invoker (API Gateway, event sources, schedules) calls; a deploy moves it to the new version. */
export const LIVE_ALIAS = 'live';

/**
 * A Lambda with every default set once: arm64, the
 * newest Node.js runtime, its own log group with retention and JSON log
 * format (application INFO, system WARN), ESM bundle with
 * source maps, and X-Ray active tracing where the stage turns it on. `family`
 * names what it serves (its tag and log-group path), not necessarily a
 * route-table family. Its role starts with writing to that log group (and to
 * X-Ray when traced), nothing else. The service's functions are
 * ServiceFunctions (below); one only CodeDeploy invokes, by name, is this alone.
 */
export class PresetFunction extends NodejsFunction {
  readonly family: string;
  private accessPolicy?: Policy;

  constructor(scope: Construct, id: string, props: Omit<ServiceFunctionProps, 'provisionedConcurrency'>) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });
    // Own role instead of AWSLambdaBasicExecutionRole: logs go to one known group only.
    const role = new Role(scope, `${id}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    logGroup.grantWrite(role);

    super(scope, id, {
      entry: `${LAMBDAS_DIR}${props.entry}`,
      handler: 'handler',
      // cdk-nag AwsSolutions-L1 wants the newest Node.js runtime this aws-cdk-lib knows.
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: Duration.seconds(props.timeoutSeconds),
      // DISABLED, not PASS_THROUGH: no upstream here samples (HTTP APIs have no X-Ray; the queue's sender is
      // untraced), so PassThrough would record nothing and still need the xray:* grant.
      tracing: props.tracing ? Tracing.ACTIVE : Tracing.DISABLED,
      logGroup,
      // lib/lambda-logging.ts says why JSON, INFO and WARN.
      loggingFormat: LoggingFormat[LAMBDA_LOGGING.format],
      applicationLogLevelV2: ApplicationLogLevel[LAMBDA_LOGGING.applicationLevel],
      systemLogLevelV2: SystemLogLevel[LAMBDA_LOGGING.systemLevel],
      role,
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
      environment: {
        NODE_OPTIONS: LAMBDA_NODE_OPTIONS,
        ...props.environment,
      },
      bundling: {
        ...LAMBDA_BUNDLING,
        format: OutputFormat.ESM,
        externalModules: [],
        // No Docker on build machines: bundle with the project's esbuild.
        forceDockerBundling: false,
        ...(props.assetFiles ? { commandHooks: copyHooks(props.assetFiles) } : {}),
      },
    });
    this.family = props.family;
    Tags.of(this).add(FAMILY_TAG, props.family);

    // Only the role's default policy, and only when traced: data-access grants go to a separate policy and stay checked.
    if (props.tracing) {
      Validations.of(role.node.findChild('DefaultPolicy')).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: 'X-Ray tracing (tracing ACTIVE): xray:PutTraceSegments and PutTelemetryRecords support no resource-level permissions.',
      });
    }
  }

  /** Sets TABLE_NAME and grants exactly `actions` on the table, plus Query on each named index's own ARN. */
  bindTable(table: ITable, actions: readonly DynamoAction[], indexes: readonly TableIndexName[] = []): void {
    if (actions.length === 0) throw new Error(`${this.family}: bindTable needs at least one action`);
    this.addEnvironment(ENV.tableName, table.tableName);
    this.allow(
      new PolicyStatement({
        actions: actions.map((a) => `dynamodb:${a}`),
        resources: [table.tableArn],
      }),
    );
    const indexActions = actions.filter((a) => a === 'Query');
    if (indexes.length > 0 && indexActions.length > 0) {
      this.allow(
        new PolicyStatement({
          actions: indexActions.map((a) => `dynamodb:${a}`),
          resources: indexes.map((name) => `${table.tableArn}/index/${name}`),
        }),
      );
    }
  }

  /**
   * Sets MAIL_FROM and MAIL_CONFIGURATION_SET and allows ses:SendEmail only with that address as sender.
   * SES authorises a send against every identity it involves: the sender's
   * (address or domain) and, in the SES sandbox, each verified recipient's
   * too. Owners are arbitrary addresses, so the grant names every identity
   * and the `ses:FromAddress` condition is what limits it. A send naming a
   * configuration set is authorised against that set as well: the grant names the one set.
   */
  bindMailer(mailFrom: string, configurationSet: string): void {
    // stageConfig refused any sender without an address.
    const { address } = senderOf(mailFrom)!;
    const stack = Stack.of(this);
    const identities = stack.formatArn({
      service: 'ses',
      resource: 'identity',
      resourceName: '*',
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    const set = stack.formatArn({
      service: 'ses',
      resource: 'configuration-set',
      resourceName: configurationSet,
      arnFormat: ArnFormat.SLASH_RESOURCE_NAME,
    });
    this.addEnvironment(ENV.mailFrom, mailFrom);
    this.addEnvironment(ENV.mailConfigurationSet, configurationSet);
    this.allow(
      new PolicyStatement({
        actions: ['ses:SendEmail'],
        resources: [identities, set],
        conditions: { StringEquals: { 'ses:FromAddress': address } },
      }),
    );
    const { partition, region, account } = nagEnvironment(this);
    Validations.of(this.accessPolicy!).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:${partition}:ses:${region}:${account}:identity/*]`,
      reason: `In the SES sandbox a send is also authorised against each recipient's identity, and owners are any address; ses:FromAddress limits the sender to ${address}.`,
    });
  }

  /**
   * Sets ORIGIN_SECRET_ARN (the secret's ARN, never its value: GetFunctionConfiguration shows the environment) and
   * allows secretsmanager:GetSecretValue on that secret alone; the function reads it at cold start
   * (lambdas/platform/origin-secret.ts).
   */
  bindOriginSecret(secret: ISecret): void {
    this.addEnvironment(ENV.originSecretArn, secret.secretArn);
    this.allow(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }));
  }

  /** Data-access grants live in their own policy, away from the X-Ray wildcard suppressed on the default one (when traced). */
  private allow(statement: PolicyStatement): void {
    if (!this.accessPolicy) {
      // A sibling, not a child: the function depends on it, so it is in place before the first invoke.
      this.accessPolicy = new Policy(this.node.scope!, `${this.node.id}AccessPolicy`, { roles: [this.role!] });
      this.node.addDependency(this.accessPolicy);
    }
    this.accessPolicy.addStatements(statement);
  }
}

/**
 * A function of the service: a PresetFunction invoked only through its `live` alias. Every invoker (API Gateway,
 * event sources, schedules, SNS, the platform) names the alias, so a deploy can shift traffic and roll back.
 */
export class ServiceFunction extends PresetFunction {
  /** The published version's `live` alias: the only thing invoked. */
  readonly live: Alias;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id, props);
    this.live = new Alias(this, 'Live', {
      aliasName: LIVE_ALIAS,
      version: this.currentVersion,
      ...(props.provisionedConcurrency ? { provisionedConcurrentExecutions: props.provisionedConcurrency } : {}),
    });
  }
}

/**
 * Bundling hooks copying `files` (path in the asset → source path) into the bundle's folder, making the folders a
 * path names first; local bundling runs them in bash, or cmd on Windows.
 */
function copyHooks(files: Record<string, string>) {
  const windows = process.platform === 'win32';
  const quote = (path: string) => (windows ? `"${path}"` : `'${path.replaceAll("'", `'\\''`)}'`);
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir: string, outputDir: string) => {
      const folders = [...new Set(Object.keys(files).map((name) => dirname(name)))].filter((folder) => folder !== '.');
      return [
        ...folders.map((folder) =>
          windows
            ? `if not exist ${quote(join(outputDir, folder))} mkdir ${quote(join(outputDir, folder))}`
            : `mkdir -p ${quote(join(outputDir, folder))}`,
        ),
        ...Object.entries(files).map(([name, source]) => `${windows ? 'copy /Y' : 'cp'} ${quote(source)} ${quote(join(outputDir, name))}`),
      ];
    },
  };
}

/**
 * How cdk-nag spells the stack's partition, region and account inside a finding's resource: the pseudo parameter
 * in an environment-agnostic stack, the value itself when the stage names it (the partition too, by the
 * `@aws-cdk/core:enablePartitionLiterals` flag of cdk.json, once the region is known).
 */
export function nagEnvironment(scope: Construct): { partition: string; region: string; account: string } {
  const stack = Stack.of(scope);
  return {
    partition: Token.isUnresolved(stack.partition) ? '<AWS::Partition>' : stack.partition,
    region: Token.isUnresolved(stack.region) ? '<AWS::Region>' : stack.region,
    account: Token.isUnresolved(stack.account) ? '<AWS::AccountId>' : stack.account,
  };
}

/** A construct id from a function's name (`admin-api` → `AdminApi`); construct ids make logical ids, so this never changes. */
export function pascal(name: string): string {
  return name.replace(/(^|[-_])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());
}
