import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
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

/**
 * What differs between stages; everything else is the same everywhere.
 * `throttling` is the stage's API Gateway throttle, applied to each route for
 * all clients together (the service-wide ceiling in the README): no
 * application may be given a per-minute limit above 60 × `rateLimit`.
 * `tracing`: Lambda active tracing (X-Ray) on every function. Off: with no
 * tracing SDK it records only Lambda's own segments, at $5 per million traces.
 */
export const STAGE_SETTINGS = {
  dev: { retain: false, logRetention: RetentionDays.ONE_MONTH, throttling: { rateLimit: 50, burstLimit: 100 }, tracing: false },
  prod: { retain: true, logRetention: RetentionDays.ONE_YEAR, throttling: { rateLimit: 500, burstLimit: 1000 }, tracing: false },
} as const;

export type Stage = keyof typeof STAGE_SETTINGS;
export const STAGES = Object.keys(STAGE_SETTINGS) as Stage[];

export function isStage(value: unknown): value is Stage {
  return typeof value === 'string' && Object.hasOwn(STAGE_SETTINGS, value);
}

export type CustomerApiStackProps = StackProps & {
  stage: Stage;
  /** Sender of owner e-mails, required for every stage; must be (or belong to a domain) verified in SES. */
  mailFrom?: string;
  /** Custom-domain base URL; empty means absolute URLs follow the URL the client called. */
  publicBaseUrl?: string;
  /** Lambda active tracing for this deployment; default: the stage's setting. */
  tracing?: boolean;
};

/** The whole service for one stage: table, webhook queues, one function per family, the HTTP API. */
export class CustomerApiStack extends Stack {
  readonly functions: Record<Family, ServiceFunction>;

  constructor(scope: Construct, id: string, props: CustomerApiStackProps) {
    super(scope, id, props);
    const settings = STAGE_SETTINGS[props.stage];
    const tracing = props.tracing ?? settings.tracing;
    const removalPolicy = settings.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // Every stage sends owner mail, so every stage names a sender SES has verified (no placeholder SES would refuse).
    const mailFrom = props.mailFrom?.trim();
    if (!mailFrom) {
      throw new Error(`${id}: no mail sender for stage ${props.stage}: pass -c mailFrom=<address or "Name <address>"> verified in SES.`);
    }

    const table = new DataTable(this, 'Table', { retain: settings.retain });
    const webhooks = new WebhookQueues(this, 'Webhooks', { namePrefix: `customer-api-${props.stage}` });

    const environment = {
      STAGE: props.stage,
      MAIL_FROM: mailFrom,
      PUBLIC_BASE_URL: props.publicBaseUrl ?? '',
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
      stageName: props.stage,
      throttling: settings.throttling,
      logRetention: settings.logRetention,
      removalPolicy,
    });

    const adminConsole = new AdminConsole(this, 'Console', { stageName: props.stage, apiUrl: api.url, retain: settings.retain, logRetention: settings.logRetention });
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
