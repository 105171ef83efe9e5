import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { FAMILIES, type Family } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { AdminConsole } from './constructs/admin-console.js';
import { RouteTableApi } from './constructs/api.js';
import { DataTable } from './constructs/data-table.js';
import { ApiDomain } from './constructs/api-domain.js';
import { Edge, edgeRateLimit, OriginSecret } from './constructs/edge.js';
import { ServiceDashboard } from './constructs/dashboard.js';
import { pascal, ServiceFunction } from './constructs/service-function.js';
import { addRequestCounts } from './constructs/request-metrics.js';
import { WebhookQueues } from './constructs/webhook-queues.js';
import { StopCommandQueues } from './constructs/stop-command-queues.js';
import { WebhookFunctions } from './constructs/webhooks.js';
import { MailEvents } from './constructs/mail-events.js';
import { ServiceAlarms } from './constructs/alarms.js';
import { SafeDeploys } from './constructs/safe-deploys.js';
import { OperatorPolicy } from './constructs/operator-policy.js';
import { ProducerPolicies } from './constructs/producer-policies.js';
import { ProducerMetrics } from './constructs/producer-metrics.js';
import { AuditTrail } from './constructs/audit-trail.js';
import { CATCH_ALL_FAMILY } from '#contract/routes';
import { FUNCTIONS, timeoutSecondsOf, type FunctionName, type FunctionSpec } from './functions.js';
import { ADMIN_ROOT, ADMIN_ROUTES } from '#contract/admin-routes';
import { packageFilesOf } from './package-files.js';
import { publicBaseUrlOf, throttlesOf, type Stage, type StageConfig } from './stages.js';
import { ENV } from '#platform/config';

export type CustomerApiStackProps = StackProps & {
  /** The stage's row with this deployment's context applied (lib/stages.ts, `stageConfig`). */
  config: StageConfig & { stage: Stage };
};

/** The whole service for one stage: table, webhook queues, one function per family, the HTTP API. */
export class CustomerApiStack extends Stack {
  readonly functions: Record<Family, ServiceFunction>;

  constructor(scope: Construct, id: string, props: CustomerApiStackProps) {
    const settings = props.config;
    super(scope, id, {
      ...props,
      ...(settings.account || settings.region ? { env: { account: settings.account, region: settings.region } } : {}),
    });
    const { stage, tracing } = settings;
    const removalPolicy = settings.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    // stageConfig refused a stage without a sender SES has verified: every stage sends owner mail.
    const mailFrom = settings.mailFrom!;

    const table = new DataTable(this, 'Table', { retain: settings.retain, warmThroughput: settings.warmThroughput });
    // The configuration set owner mail is sent with, and what hears its bounces and complaints (constructs/mail-events.ts).
    const mailEvents = new MailEvents(this, 'MailEvents', {
      stage,
      importedConfigurationSet: settings.mailConfigurationSet,
      table,
      environment: { [ENV.stage]: stage },
      logRetention: settings.logRetention,
      removalPolicy,
      tracing,
    });
    const mailConfigurationSet = mailEvents.configurationSetName;
    const webhooks = new WebhookQueues(this, 'Webhooks', { namePrefix: `customer-api-${stage}`, retainDeadLetters: settings.retain });
    // Emergency stops on their way to the gateways (docs/decisions/matriq.md): the device platform consumes it.
    const stopCommands = new StopCommandQueues(this, 'StopCommands', { namePrefix: `customer-api-${stage}` });

    // Domain and edge (docs/operations.md, "Domain and edge"): the origin secret exists before the functions told where it is.
    const originSecret = settings.edge.enabled
      ? new OriginSecret(this, 'OriginSecret', { stageName: stage, versionId: settings.edge.originSecretVersion })
      : undefined;

    const environment = {
      [ENV.stage]: stage,
      [ENV.mailFrom]: mailFrom,
      [ENV.publicBaseUrl]: publicBaseUrlOf(settings),
      [ENV.stageRateLimit]: String(settings.capacity.perRouteFloor),
      [ENV.tokenKeyRotationDays]: String(settings.tokenKeyRotationDays),
      ...(settings.legacyDeprecatedAt ? { [ENV.legacyDeprecatedAt]: settings.legacyDeprecatedAt } : {}),
      ...(settings.legacySunsetAt ? { [ENV.legacySunsetAt]: settings.legacySunsetAt } : {}),
      [ENV.webhookQueueUrl]: webhooks.queue.queueUrl,
      [ENV.webhookDlqUrl]: webhooks.deadLetterQueue.queueUrl,
      [ENV.fanOutQueueUrl]: webhooks.fanOutQueue.queueUrl,
      [ENV.stopCommandQueueUrl]: stopCommands.queue.queueUrl,
    };
    const provisioned = (name: FunctionName) => (name === 'token' || name === 'discovery' ? settings.provisionedConcurrency[name] : 0);
    /** An API-facing function with exactly the table and mail grants its row declares. */
    const apiFunction = (family: FunctionName) => {
      const infra: FunctionSpec = FUNCTIONS[family];
      const shipped = packageFilesOf(family);
      const fn = new ServiceFunction(this, `${pascal(family)}Function`, {
        family,
        entry: infra.entry,
        memorySize: infra.memorySize,
        timeoutSeconds: timeoutSecondsOf(family),
        reservedConcurrency: infra.reservedConcurrency,
        logRetention: settings.logRetention,
        removalPolicy,
        tracing,
        provisionedConcurrency: provisioned(family),
        environment: { ...environment, ...shipped?.environment },
        ...(shipped ? { assetFiles: shipped.files } : {}),
      });
      fn.bindTable(table, infra.tableActions, infra.queriedIndexes);
      if (infra.sendsMail) fn.bindMailer(mailFrom, mailConfigurationSet);
      addRequestCounts(this, `${pascal(family)}Requests`, fn.logGroup);
      return fn;
    };
    this.functions = Object.fromEntries(FAMILIES.map((family) => [family, apiFunction(family)])) as Record<Family, ServiceFunction>;
    // Only /v1 and the token endpoint check the origin (platform/http.ts): they alone are told where its secret is.
    if (originSecret) for (const fn of Object.values(this.functions)) fn.bindOriginSecret(originSecret.secret);
    // A stop is sent right after it is written; the sweeper sends again what is still queued (below).
    stopCommands.queue.grantSendMessages(this.functions.matriq);

    const webhookFunctions = new WebhookFunctions(this, 'WebhookFunctions', {
      table,
      queues: webhooks,
      mailFrom,
      mailConfigurationSet,
      environment,
      logRetention: settings.logRetention,
      removalPolicy,
      tracing,
      delivererConcurrency: settings.delivererConcurrency,
    });
    stopCommands.queue.grantSendMessages(webhookFunctions.functions['webhook-sweeper']);

    const adminFunction = apiFunction('admin-api');
    // Send tests and redrives go to the queue; a publish's next page to the fan-out queue; dead letters are read and
    // removed from the DLQ.
    webhooks.queue.grantSendMessages(adminFunction);
    webhooks.fanOutQueue.grantSendMessages(adminFunction);
    webhooks.deadLetterQueue.grantConsumeMessages(adminFunction);
    // The producers' writes: the table, as its row declares (docs/decisions/producers.md), and a new menu revision's
    // wake-up for the dispatcher.
    const producerFunction = apiFunction('producer-api');
    webhooks.fanOutQueue.grantSendMessages(producerFunction);

    const api = new RouteTableApi(this, 'Api', {
      routes: ROUTES,
      functions: Object.fromEntries(FAMILIES.map((family): [Family, IFunction] => [family, this.functions[family].live])) as Record<
        Family,
        IFunction
      >,
      catchAllFamily: CATCH_ALL_FAMILY,
      admin: { routes: ADMIN_ROUTES, function: adminFunction.live },
      producer: producerFunction.live,
      stageName: stage,
      throttling: throttlesOf(settings),
      logRetention: settings.logRetention,
      removalPolicy,
    });

    const adminConsole = new AdminConsole(this, 'Console', {
      stageName: stage,
      apiUrl: api.url,
      publicBaseUrl: publicBaseUrlOf(settings),
      retain: settings.retain,
      logRetention: settings.logRetention,
      ...(settings.consoleMail === 'ses' ? { sesMailFrom: mailFrom } : {}),
    });
    api.addConsoleRoutes(adminConsole.userPool, adminConsole.client);
    new CfnOutput(this, 'ConsoleUrl', { value: adminConsole.url });
    new CfnOutput(this, 'ConsoleUserPoolId', { value: adminConsole.userPool.userPoolId });

    // Alarms that reach someone (constructs/alarms.ts), and deploys that roll back on them (constructs/safe-deploys.ts).
    const alarms = new ServiceAlarms(this, 'Alarms', { stage, alarms: settings.alarms });
    const deploys = new SafeDeploys(this, 'Deploys', {
      stage,
      style: settings.deployment,
      baseUrl: publicBaseUrlOf(settings) || api.url,
      logRetention: settings.logRetention,
      removalPolicy,
      tracing,
    });
    const guarded = [
      ...[...Object.values(this.functions), adminFunction, producerFunction].map((fn) => [fn, 'http'] as const),
      ...[...Object.values(webhookFunctions.functions), mailEvents.function].map((fn) => [fn, 'background'] as const),
    ];
    for (const [fn, kind] of guarded) {
      alarms.forFunction(fn, kind);
      if (deploys.rollsBack) deploys.guard(fn, alarms.forNewVersion(fn, kind));
    }
    alarms.forApi(api.stage);
    alarms.forTokenEndpoint();
    alarms.forTable(table);
    alarms.forWebhooks({ ...webhooks, deliveryFailures: webhookFunctions.deliveryFailures });
    alarms.forMailEvents(mailEvents.failures);
    const producerMetrics = new ProducerMetrics(this, 'ProducerMetrics', { stage, logGroup: producerFunction.logGroup });
    alarms.forProducers(producerMetrics);
    alarms.forStopCommands();
    new CfnOutput(this, 'AlarmTopicArn', { value: alarms.topic.topicArn });
    // An imported configuration set's owner points its bounce and complaint event destination here.
    new CfnOutput(this, 'MailEventsTopicArn', { value: mailEvents.topic.topicArn });
    // Bounces and complaints the mail-events function failed on (runbook: "Mail events failed").
    new CfnOutput(this, 'MailEventsFailureQueueUrl', { value: mailEvents.failures.queueUrl });
    // The configuration set owner mail is sent with, created or imported: where its events go is set on it.
    new CfnOutput(this, 'MailConfigurationSet', { value: mailConfigurationSet });

    // ── Domain and edge (lib/constructs/edge.ts, api-domain.ts; docs/operations.md, "Domain and edge") ──────────
    // With the edge, the domain is CloudFront's alias and only requests through it reach /v1 and the token
    // endpoint; without it, a domain is a regional custom domain on the HTTP API itself.
    if (originSecret) {
      const edge = new Edge(this, 'Edge', {
        stageName: stage,
        api,
        originSecret,
        // stageConfig refuses an edge without a domain.
        domain: settings.domain!,
        webAclArn: settings.edge.webAclArn,
        rateLimit: edgeRateLimit(settings.capacity),
      });
      new CfnOutput(this, 'EdgeUrl', { value: edge.url });
    } else if (settings.domain) {
      new ApiDomain(this, 'Domain', { api, domain: settings.domain });
    }
    if (settings.domain) new CfnOutput(this, 'DomainUrl', { value: publicBaseUrlOf(settings) });
    // ── end of domain and edge ──────────────────────────────────────────────────────────────────────────────

    // The admin CLI reads the API's root by key from stack CustomerApi-<stage>; scripts may call the admin API's.
    new CfnOutput(this, 'ApiUrl', { value: api.url });
    new CfnOutput(this, 'AdminApiUrl', { value: `${api.url}${ADMIN_ROOT.slice(1)}/v1` });
    // What an operator is given to run the admin CLI against this stage (docs/admin.md, "Operator permissions").
    const operator = new OperatorPolicy(this, 'Operator', { stageName: stage, api: api.httpApi });
    new CfnOutput(this, 'OperatorPolicyArn', { value: operator.policy.managedPolicyArn });
    // What a platform team attaches to the role its system runs as, one per class of producer (docs/operations.md, "Producers").
    const producers = new ProducerPolicies(this, 'Producers', { stageName: stage, api: api.httpApi, stopCommandQueue: stopCommands.queue });
    for (const [producer, policy] of producers.policies)
      new CfnOutput(this, `ProducerPolicyArn${pascal(producer)}`, { value: policy.managedPolicyArn });
    // The queue the device platform receives emergency stops from, with its policy above (docs/operations.md, "Producers").
    new CfnOutput(this, 'StopCommandQueueUrl', { value: stopCommands.queue.queueUrl });
    // Who changed the stage's resources (docs/decisions/audit.md, "CloudTrail"): the stack's trail, or the platform's.
    const trailArn =
      settings.trailArn ??
      new AuditTrail(this, 'Trail', { stageName: stage, keepDays: settings.logRetention, retain: settings.retain, removalPolicy }).trail
        .trailArn;
    new CfnOutput(this, 'TrailArn', { value: trailArn });

    // The stage's dashboard, customer-api-<stage>: every ServiceFunction of the stack (each names its FUNCTIONS row), the API, table and queues.
    new ServiceDashboard(this, 'Dashboard', {
      stage,
      functions: this.node.findAll().filter((c): c is ServiceFunction => c instanceof ServiceFunction),
      apiStage: api.stage,
      table,
      queues: webhooks,
      producers: producerMetrics,
    });
  }
}
