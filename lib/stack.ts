import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { FAMILIES, ROUTES, type Family } from '#contract/routes';
import { AdminConsole } from './constructs/admin-console.js';
import { RouteTableApi } from './constructs/api.js';
import { DataTable } from './constructs/data-table.js';
import { pascal, ServiceFunction } from './constructs/service-function.js';
import { addRequestCounts } from './constructs/request-metrics.js';
import { WebhookQueues } from './constructs/webhook-queues.js';
import { WebhookFunctions } from './constructs/webhooks.js';
import { CATCH_ALL_FAMILY } from '#contract/routes';
import { FUNCTIONS, type FunctionName } from './functions.js';
import { ADMIN_ROOT, ADMIN_ROUTES } from '#contract/admin-routes';
import { packageFilesOf } from './package-files.js';
import { publicBaseUrlOf, type Stage, type StageConfig } from './stages.js';

export type CustomerApiStackProps = StackProps & {
  /** The stage's row with this deployment's context applied (lib/stages.ts, `stageConfig`). */
  config: StageConfig & { stage: Stage };
};

/** The whole service for one stage: table, webhook queues, one function per family, the HTTP API. */
export class CustomerApiStack extends Stack {
  readonly functions: Record<Family, ServiceFunction>;

  constructor(scope: Construct, id: string, props: CustomerApiStackProps) {
    const settings = props.config;
    super(scope, id, { ...props, ...(settings.account || settings.region ? { env: { account: settings.account, region: settings.region } } : {}) });
    const { stage, tracing } = settings;
    const removalPolicy = settings.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // stageConfig refused a stage without a sender SES has verified: every stage sends owner mail.
    const mailFrom = settings.mailFrom!;

    const table = new DataTable(this, 'Table', { retain: settings.retain });
    const webhooks = new WebhookQueues(this, 'Webhooks', { namePrefix: `customer-api-${stage}` });

    const environment = {
      STAGE: stage,
      MAIL_FROM: mailFrom,
      PUBLIC_BASE_URL: publicBaseUrlOf(settings),
      STAGE_RATE_LIMIT: String(settings.throttling.rateLimit),
      WEBHOOK_QUEUE_URL: webhooks.queue.queueUrl,
      WEBHOOK_DLQ_URL: webhooks.deadLetterQueue.queueUrl,
    };
    /** An API-facing function with exactly the table and mail grants its row declares. */
    const apiFunction = (family: FunctionName) => {
      const infra = FUNCTIONS[family];
      const shipped = packageFilesOf(family);
      const fn = new ServiceFunction(this, `${pascal(family)}Function`, {
        family,
        entry: infra.entry,
        memorySize: infra.memorySize,
        logRetention: settings.logRetention,
        removalPolicy,
        tracing,
        environment: { ...environment, ...shipped?.environment },
        ...(shipped ? { assetFiles: shipped.files } : {}),
      });
      fn.bindTable(table, infra.tableActions, infra.queriedIndexes);
      if (infra.sendsMail) fn.bindMailer(mailFrom);
      addRequestCounts(this, `${pascal(family)}Requests`, fn.logGroup);
      return fn;
    };
    this.functions = Object.fromEntries(FAMILIES.map((family) => [family, apiFunction(family)])) as Record<
      Family,
      ServiceFunction
    >;

    new WebhookFunctions(this, 'WebhookFunctions', {
      table,
      queues: webhooks,
      mailFrom,
      environment,
      logRetention: settings.logRetention,
      removalPolicy,
      tracing,
    });

    const adminFunction = apiFunction('admin-api');
    // Send tests and redrives go to the queue; dead letters are read and removed from the DLQ.
    webhooks.queue.grantSendMessages(adminFunction);
    webhooks.deadLetterQueue.grantConsumeMessages(adminFunction);

    const api = new RouteTableApi(this, 'Api', {
      routes: ROUTES,
      functions: this.functions,
      catchAllFamily: CATCH_ALL_FAMILY,
      admin: { routes: ADMIN_ROUTES, function: adminFunction },
      stageName: stage,
      throttling: settings.throttling,
      logRetention: settings.logRetention,
      removalPolicy,
    });

    const adminConsole = new AdminConsole(this, 'Console', { stageName: stage, apiUrl: api.url, retain: settings.retain, logRetention: settings.logRetention });
    api.addConsoleRoutes(adminConsole.userPool, adminConsole.client);
    new CfnOutput(this, 'ConsoleUrl', { value: adminConsole.url });
    new CfnOutput(this, 'ConsoleUserPoolId', { value: adminConsole.userPool.userPoolId });

    // The admin CLI reads these by key from stack CustomerApi-<stage>.
    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'AdminApiUrl', { value: `${api.url}${ADMIN_ROOT.slice(1)}/v1` });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'WebhookQueueUrl', { value: webhooks.queue.queueUrl });
    new CfnOutput(this, 'WebhookDlqUrl', { value: webhooks.deadLetterQueue.queueUrl });
    // The admin CLI refuses an application limit this stage's throttle cannot serve, as the admin function does.
    new CfnOutput(this, 'StageRateLimit', { value: String(settings.throttling.rateLimit) });
  }
}
