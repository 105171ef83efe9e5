import { Annotations, CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { configFromEnv } from '../lambdas/shared/config.js';
import { FAMILIES, ROUTES, type Family } from '../lambdas/shared/routes.js';
import { RouteTableApi } from './constructs/api.js';
import { AssetBucket } from './constructs/asset-bucket.js';
import { DataTable } from './constructs/data-table.js';
import { FamilyFunction } from './constructs/family-function.js';
import { WebhookQueues } from './constructs/webhook-queues.js';
import { WebhookFunctions } from './constructs/webhooks.js';
import { ADMIN_API_INFRA, FAMILY_INFRA, type FamilyInfra } from './families.js';
import { ADMIN_ROOT, ADMIN_ROUTES } from '../lambdas/admin-api/routes.js';
import { CATCH_ALL_FAMILY } from './local/families.js';

/** What differs between stages; everything else is the same everywhere. */
const STAGE_SETTINGS = {
  dev: { retain: false, logRetention: RetentionDays.ONE_MONTH, throttling: { rateLimit: 50, burstLimit: 100 } },
  prod: { retain: true, logRetention: RetentionDays.ONE_YEAR, throttling: { rateLimit: 500, burstLimit: 1000 } },
} as const;

export type Stage = keyof typeof STAGE_SETTINGS;
export const STAGES = Object.keys(STAGE_SETTINGS) as Stage[];

export function isStage(value: unknown): value is Stage {
  return typeof value === 'string' && Object.hasOwn(STAGE_SETTINGS, value);
}

export type CustomerApiStackProps = StackProps & {
  stage: Stage;
  /** Sender of owner e-mails; must be (or belong to a domain) verified in SES. */
  mailFrom?: string;
  /** Custom-domain base URL; empty means absolute URLs follow the URL the client called. */
  publicBaseUrl?: string;
};

/** The whole service for one stage: table, webhook queues, one function per family, the REST API. */
export class CustomerApiStack extends Stack {
  readonly functions: Record<Family, FamilyFunction>;

  constructor(scope: Construct, id: string, props: CustomerApiStackProps) {
    super(scope, id, props);
    const settings = STAGE_SETTINGS[props.stage];
    const removalPolicy = settings.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // Same fallback as the handlers' own config, so an unset value means the same everywhere.
    const mailFrom = props.mailFrom ?? configFromEnv({}).mailFrom;
    if (!props.mailFrom && settings.retain) {
      Annotations.of(this).addWarningV2('customer-api:mailFrom', `No -c mailFrom: owner alerts go out from ${mailFrom}, which SES will refuse.`);
    }

    const table = new DataTable(this, 'Table', { retain: settings.retain });
    const webhooks = new WebhookQueues(this, 'Webhooks', { namePrefix: `customer-api-${props.stage}` });

    const environment = {
      STAGE: props.stage,
      MAIL_FROM: mailFrom,
      PUBLIC_BASE_URL: props.publicBaseUrl ?? '',
      WEBHOOK_QUEUE_URL: webhooks.queue.queueUrl,
      WEBHOOK_DLQ_URL: webhooks.deadLetterQueue.queueUrl,
    };
    /** An API-facing function with exactly the table and mail grants its infra entry declares. */
    const apiFunction = (family: string, infra: FamilyInfra, entry?: string) => {
      const fn = new FamilyFunction(this, `${pascal(family)}Function`, {
        family,
        entry,
        memorySize: infra.memorySize,
        logRetention: settings.logRetention,
        removalPolicy,
        environment,
      });
      fn.bindTable(table, infra.tableActions, infra.queriedIndexes);
      if (infra.sendsMail) fn.bindMailer(mailFrom);
      return fn;
    };
    this.functions = Object.fromEntries(FAMILIES.map((family) => [family, apiFunction(family, FAMILY_INFRA[family])])) as Record<
      Family,
      FamilyFunction
    >;

    const assets = new AssetBucket(this, 'Assets', { retain: settings.retain, logRetention: settings.logRetention });
    this.functions.assets.bindAssetBucket(assets.bucket, assets.sportsLogoPrefix);

    new WebhookFunctions(this, 'WebhookFunctions', {
      table,
      queues: webhooks,
      environment,
      logRetention: settings.logRetention,
      removalPolicy,
    });

    const adminFunction = apiFunction('admin-api', ADMIN_API_INFRA, 'admin-api/handler.ts');
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

    // The admin CLI reads these by key from stack CustomerApi-<stage>.
    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'AdminApiUrl', { value: `${api.url}${ADMIN_ROOT.slice(1)}/v1` });
    new CfnOutput(this, 'TableName', { value: table.tableName });
    new CfnOutput(this, 'WebhookQueueUrl', { value: webhooks.queue.queueUrl });
    new CfnOutput(this, 'WebhookDlqUrl', { value: webhooks.deadLetterQueue.queueUrl });
  }
}

function pascal(name: string): string {
  return name.replace(/(^|[-_])(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());
}
