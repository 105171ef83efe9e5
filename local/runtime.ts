import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Logger } from '#platform/observability';
import { systemClock, type Clock } from '#platform/deps';
import { awsClients, buildMessagingDeps, type MessagingDeps } from '#lambdas/webhooks/deps';
import { configFromEnv, type Config } from '#platform/config';
import { SPORTS_LOGO_DIR } from '#contract/assets';
import type { Resolver } from '#domain/url-safety';
import { createSweeper } from '#lambdas/upkeep/upkeep';
import { createDeliverer } from '#lambdas/webhooks/deliver';
import { createFanOutConsumer } from '#lambdas/webhooks/fan-out';
import { FAN_OUT_QUEUES } from '#lambdas/webhooks/queues';
import { requeueVanished } from '#lambdas/webhooks/requeue';
import { startSchedule } from './schedules.js';
import { startSqsPoller, type PollerFaults, type SqsHandler } from './sqs-poller.js';
import { DELIVERY_POLICY, scaledTimings } from '#lambdas/webhooks/delivery-policy';
import { STAGE_TABLE } from '#lib/stages';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { sesMailer } from '#platform/ses-mailer';
import { localEndpoint } from './endpoints.js';
import { close, startEngines, type Engines } from './engines.js';
import { createHandler as createAdminHandler } from '#lambdas/admin/admin';
import { createHandler as createProducerHandler } from '#lambdas/producers/producers';
import { type Producer, PRODUCERS } from '#lambdas/producers/routes';
import { randomSecret } from '#domain/crypto';
import { createFamilyHandlers } from './families.js';
import { localSqs } from './producer-sqs.js';
import { startSimulatedGateway, type SimulatedGateway, type SimulatedGatewayOptions } from './simulated-gateway.js';
import { consoleSite } from './console-site.js';
import { createGateway, lambdaContext } from './gateway.js';
import { LOCAL_THROTTLE, type StageThrottle } from './stage-throttle.js';
import { ensureQueues, ensureTable, type QueueUrls } from './provision.js';
import { createDemoApp, DEMO_GROUP_ID, seedDemo, type DemoCredentials } from './seed.js';
import { writeOpenApiArtefact } from '#lib/openapi-artefact';
import type { FunctionName } from '#lib/functions';
import { localFunctionDeps, type IamOption } from './function-deps.js';
import { localMailEvents, mailEventsFromEnv, type LocalMailEvents, type MailEventsOptions } from './mail-events.js';
import { reserveListenInbox } from './listen-inbox.js';
import { keptInDataFolder, OWNER_FILE } from './owner-only.js';
import { acquireDataLock, checkPortFree, LocalStartError, portMessage } from './start-checks.js';
import { LOCAL_REPOSITORIES, type LocalDeps, type LocalStore } from './repositories.js';

export type LocalRuntimeOptions = {
  port?: number;
  host?: string;
  /** Folder for persisted data; null keeps everything in memory. */
  dataDir?: string | null;
  /** External engines (DynamoDB Local, LocalStack, an AWS account) instead of the embedded ones. */
  dynamoEndpoint?: string | undefined;
  sqsEndpoint?: string | undefined;
  /**
   * Engines the caller started (startEngines) and stops itself: the runtime uses their endpoints and
   * credentials as if it had started them (a benchmark puts a delaying proxy in front of DynamoDB this way).
   */
  engines?: Engines;
  tableName?: string;
  clock?: Clock;
  /** Seed the demo group and application into an empty table. */
  seed?: boolean;
  logLevel?: 'INFO' | 'WARN' | 'ERROR' | 'SILENT' | 'DEBUG';
  /**
   * Overrides of the environment's config (tests: webhookAllowLoopback, webhookTimeScale; originSecret plays a
   * stage with an edge: /v1 and /oauth/token then answer only requests carrying it in x-origin-verify).
   */
  config?: Partial<Config>;
  /** Throttled, init-failed and duplicated invocations of the local webhook event source (fault-injection tests). */
  webhookFaults?: PollerFaults;
  /** false: no local webhook event source in this process (a test runs the deliverer in a child process instead). */
  deliverWebhooks?: boolean;
  /** DNS for webhook destinations (tests inject one they control). */
  resolver?: Resolver;
  /** How often the webhook sweeper schedule runs (EventBridge: every minute). */
  sweepEveryMs?: number;
  /** Bearer key of the admin API (IAM in AWS); default ADMIN_API_KEY, else the data folder's kept key (a new one in memory). */
  adminKey?: string;
  /** Bearer keys of the producers (each its IAM principal in AWS); default the data folder's kept keys (new ones in memory). */
  producerKeys?: Partial<Record<Producer, string>>;
  /** The gateway's throttle (API Gateway's stage throttle); default LOCAL_THROTTLE, generous. */
  throttle?: StageThrottle;
  /** Multiplies the HTTP functions' timeouts the gateway enforces (tests: a slow engine reaches them in seconds); default 1. */
  httpTimeoutScale?: number;
  /** Hold every request until `open()` (npm start opens once its runtime file is written). */
  holdRequests?: boolean;
  /**
   * IAM enforced locally (docs/decisions/iam-local.md): each hosted function's AWS clients refuse what its role in
   * the synthesized stack does not allow. `{ policies }` replaces the synthesized roles (a test narrowing one);
   * `false` turns enforcement off, with a warning.
   */
  iam?: IamOption;
  /** Addresses the local SES bounces or complains about (default: LOCAL_SES_BOUNCE, LOCAL_SES_SOFT_BOUNCE, LOCAL_SES_COMPLAIN). */
  mailEvents?: MailEventsOptions;
  /**
   * The device platform played here (local/simulated-gateway.ts): it consumes the stop-command queue and reports
   * each stop's result. Off unless asked (`npm start` asks), so no test races it; an object tunes it.
   */
  simulatedGateway?: boolean | Pick<SimulatedGatewayOptions, 'delayMs' | 'result' | 'onReceived'>;
};

export type LocalRuntime = {
  url: string;
  port: number;
  tableName: string;
  queues: QueueUrls;
  engines: Omit<Engines, 'stop'>;
  /** The runtime's DynamoDB client (benchmarks count its calls). */
  dynamo: DynamoDBClient;
  /** The runtime's SQS client (the local event source; tests read queue attributes with it). */
  sqs: SQSClient;
  store: LocalStore;
  /** The unguarded deps of the runtime itself (seeding, tests acting as an operator or the CLI). */
  deps: LocalDeps;
  /** The deps a function runs with here: its own clients, guarded by its role (tests invoke handlers with them). */
  functionDeps(name: FunctionName): LocalDeps;
  demo: DemoCredentials | null;
  /** The admin API's key: `Authorization: Bearer <adminKey>` on /admin/v1 requests. */
  adminKey: string;
  /** Each producer's key: `Authorization: Bearer <key>` on the /producer/v1 routes its policy allows. */
  producerKeys: Record<Producer, string>;
  /** SES's bounce and complaint notifications, played locally (local/mail-events.ts). */
  mailEvents: LocalMailEvents;
  /** The device platform played here, when asked for (`simulatedGateway`); else null. */
  simulatedGateway: SimulatedGateway | null;
  /** Runs the webhook sweeper now, as its schedule would. */
  sweep(): Promise<void>;
  /** Lets held requests through (see `holdRequests`). */
  open(): void;
  stop(): Promise<void>;
};

const REGION = process.env.AWS_REGION ?? 'us-east-1';

/**
 * The whole service on one machine: real DynamoDB- and SQS-compatible
 * engines, the same handlers behind a local API Gateway, and the same SDK
 * clients pointed at local endpoints.
 */
export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const dataDir = options.dataDir ?? null;
  const ownEngines = !options.engines;
  const host = options.host ?? '127.0.0.1';
  // What would stop this start, said in one line (LocalStartError) before any engine opens the folder or seeds.
  const lock = dataDir ? acquireDataLock(dataDir) : null;
  let engines: Engines;
  try {
    await checkPortFree(options.port ?? 3000, host);
    engines =
      options.engines ??
      (await startEngines({
        dataDir: dataDir ? join(dataDir, 'dynamodb') : null,
        dynamoEndpoint: options.dynamoEndpoint,
        sqsEndpoint: options.sqsEndpoint,
      }));
  } catch (err) {
    lock?.release();
    throw err;
  }
  try {
    const clientEndpoints = {
      dynamodb: localEndpoint(engines.dynamoEndpoint, REGION, engines.externalDynamo ? null : engines.credentials),
      sqs: localEndpoint(engines.sqsEndpoint, REGION, engines.externalSqs ? null : engines.credentials),
      ses: localEndpoint(engines.sesEndpoint, REGION, engines.credentials),
    };
    const clients = awsClients(clientEndpoints);
    const ses = new SESv2Client(clientEndpoints.ses);
    const { dynamodb: dynamo, sqs } = clients;
    const tableName = options.tableName ?? 'customer-api-local';
    await ensureTable(dynamo, tableName, { expireItems: !options.clock });
    const queues = await ensureQueues(sqs, tableName);

    const throttle = options.throttle ?? LOCAL_THROTTLE;
    const config = {
      ...configFromEnv(),
      tableName,
      ...queues,
      stage: 'local',
      stageRateLimit: throttle.rateLimit,
      // What the stack ships beside the discovery bundle, generated from this checkout's contract.
      openApiDocumentPath: writeOpenApiArtefact(),
      // The folder the stack ships beside the assets bundle, served in place.
      sportsLogoDir: SPORTS_LOGO_DIR,
      // The stack's configuration set stands here under a local name (its grants hold for it, as in AWS).
      mailConfigurationSet: configFromEnv().mailConfigurationSet || 'customer-api-local',
      webhookListenInbox: await reserveListenInbox(dataDir),
      ...options.config,
    };
    const clock = options.clock ?? systemClock;
    const logger = new Logger({ serviceName: 'customer-api', logLevel: options.logLevel ?? 'INFO' });
    // EMF lines are for CloudWatch; here they would only flood the console. Set it to false to see them.
    process.env.METRICS_DISABLED ??= 'true';
    const deps = buildMessagingDeps<LocalStore>(
      clients,
      {
        config,
        clock,
        logger,
        mailer: sesMailer(config.mailFrom, ses, config.mailConfigurationSet),
        ...(options.resolver ? { resolver: options.resolver } : {}),
      },
      LOCAL_REPOSITORIES,
    );
    const store = deps.store;
    if (config.webhookAllowLoopback) {
      deps.logger.warn(
        'WEBHOOK_ALLOW_LOOPBACK is on: webhook destinations may point at this machine (127.0.0.0/8, ::1). Local testing only.',
      );
    }
    const demo = options.seed === false ? null : await demoCredentials(store, clock, dataDir);

    // Every hosted function runs with clients of its own, refused what its synthesized role does not allow.
    const functions = await localFunctionDeps(options.iam, {
      region: REGION,
      endpoints: clientEndpoints,
      base: { config, clock, logger, ...(options.resolver ? { resolver: options.resolver } : {}) },
      observe: { ...clients, ses },
    });
    const mailEvents = localMailEvents(ses, functions.depsOf('mail-events'), {
      ...(options.mailEvents ?? mailEventsFromEnv(process.env)),
      clock,
      logger,
    });
    // A data folder keeps its key across restarts: a console tab or a script holding it goes on working.
    const adminKey =
      options.adminKey ?? (process.env.ADMIN_API_KEY || (await keptInDataFolder(dataDir, 'admin-key', () => randomSecret(32))));
    const producerKeys = Object.fromEntries(
      await Promise.all(
        PRODUCERS.map(async (p) => [
          p,
          options.producerKeys?.[p] ?? (await keptInDataFolder(dataDir, `producer-key-${p}`, () => randomSecret(32))),
        ]),
      ),
    ) as Record<Producer, string>;
    const server = createGateway(
      createFamilyHandlers(functions.depsOf),
      { handler: createAdminHandler(functions.depsOf('admin-api')), key: adminKey },
      throttle,
      consoleSite(() => `http://localhost:${(server.address() as AddressInfo).port}`),
      {
        timeoutScale: options.httpTimeoutScale ?? 1,
        producers: {
          handler: createProducerHandler(functions.depsOf('producer-api')),
          region: REGION,
          keys: PRODUCERS.map((producer) => ({ producer, key: producerKeys[producer], guard: functions.producerGuard(producer) })),
          sqs: localSqs(sqs, REGION),
        },
      },
    );
    const gate = holdUntilOpen(server, options.holdRequests ?? false);
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) => {
        const message = portMessage(options.port ?? 3000, err.code);
        reject(message ? new LocalStartError(message) : err);
      });
      server.listen(options.port ?? 3000, host, resolve);
    });
    const port = (server.address() as AddressInfo).port;
    lock?.setUrl(`http://localhost:${port}`);
    // The Lambda SQS event source mappings and the EventBridge sweeper schedule, played locally.
    const arnOf = async (QueueUrl: string) =>
      (await sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['QueueArn'] }))).Attributes?.QueueArn ?? '';
    // The embedded queue starts empty, while a kept table (a data folder, an external engine) may hold deliveries
    // whose messages were in the last run's: each is queued again now, as the sweeper does for a message that
    // vanished, instead of after its wait. A table made for this run holds none: no pass.
    const tableKept = dataDir !== null || engines.externalDynamo;
    if (tableKept && !engines.externalSqs) await requeueAll(functions.depsOf('webhook-sweeper'), new Date(clock.now() - 1).toISOString());
    const pollers =
      options.deliverWebhooks === false
        ? []
        : [
            startDeliveryPoller(
              functions.depsOf('webhook-deliverer'),
              functions.sqsOf('webhook-deliverer'),
              await arnOf(queues.webhookQueueUrl),
              createDeliverer(functions.depsOf('webhook-deliverer')),
              options.webhookFaults,
            ),
            startFanOutPoller(
              functions.depsOf('webhook-dispatcher'),
              functions.sqsOf('webhook-dispatcher'),
              await arnOf(queues.fanOutQueueUrl),
            ),
          ];
    const sweep = createSweeper(functions.depsOf('webhook-sweeper'));
    const sweeper = startSchedule(
      'webhook-sweeper',
      options.sweepEveryMs ?? 60_000,
      () => sweep(undefined, lambdaContext('webhook-sweeper', `local-${Date.now()}`)),
      deps.logger,
    );
    const played = options.simulatedGateway;
    const simulatedGateway = played
      ? startSimulatedGateway({
          sqs: functions.producerSqs('device-platform'),
          queueUrl: queues.stopCommandQueueUrl,
          apiUrl: `http://localhost:${port}`,
          key: producerKeys['device-platform'],
          clock,
          logger,
          ...(played === true ? {} : played),
        })
      : null;
    const { stop: stopEngines, ...endpoints } = engines;
    return {
      url: `http://localhost:${port}`,
      port,
      tableName,
      queues,
      engines: endpoints,
      dynamo,
      sqs,
      store,
      deps,
      functionDeps: functions.depsOf,
      demo,
      mailEvents,
      simulatedGateway,
      adminKey,
      producerKeys,
      sweep: () => sweeper.runNow(),
      open: gate.open,
      async stop() {
        await simulatedGateway?.stop();
        await sweeper.stop();
        await Promise.all(pollers.map((p) => p.stop()));
        await close(server);
        functions.destroy();
        dynamo.destroy();
        sqs.destroy();
        ses.destroy();
        if (ownEngines) await stopEngines();
        lock?.release();
      },
    };
  } catch (err) {
    if (ownEngines) await engines.stop();
    lock?.release();
    throw err;
  }
}

/** The deliverer's event source as the stack configures it (batch size, concurrency, timeouts from the delivery policy), on the runtime's time scale. */
export function startDeliveryPoller(deps: MessagingDeps, sqs: SQSClient, queueArn: string, handler: SqsHandler, faults?: PollerFaults) {
  const timings = scaledTimings(deps.config.webhookTimeScale);
  return startSqsPoller({
    sqs,
    queueUrl: deps.config.webhookQueueUrl,
    queueArn,
    handler,
    logger: deps.logger,
    batchSize: DELIVERY_POLICY.batchSize,
    concurrency: STAGE_TABLE.dev.delivererConcurrency,
    functionTimeoutMs: timings.functionTimeoutMs,
    visibilityTimeoutSeconds: timings.visibilityTimeoutSeconds,
    faults,
  });
}

/** The dispatcher's event source on the fan-out queue as the stack configures it; not on the time scale: the fan-out's pace is the table's. */
function startFanOutPoller(deps: MessagingDeps, sqs: SQSClient, queueArn: string) {
  return startSqsPoller({
    sqs,
    queueUrl: deps.config.fanOutQueueUrl,
    queueArn,
    handler: createFanOutConsumer(deps),
    logger: deps.logger,
    batchSize: FAN_OUT_QUEUES.batchSize,
    concurrency: FAN_OUT_QUEUES.maxConcurrency,
    functionTimeoutMs: FAN_OUT_QUEUES.functionTimeoutSeconds * 1000,
    visibilityTimeoutSeconds: FAN_OUT_QUEUES.visibilityTimeoutSeconds,
  });
}

/**
 * Seeds an empty table. The demo secret is kept in the local data folder so
 * a restart can print it again; it exists only for this demo application.
 * Whether the table is seeded is asked of the engine, never of the folder.
 */
async function demoCredentials(store: LocalStore, clock: Clock, dataDir: string | null): Promise<DemoCredentials | null> {
  const file = dataDir ? join(dataDir, 'demo-credentials.json') : null;
  const saved = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials) : null;
  // The folder's application counts only if this engine holds it, active: the folder may come from a start on
  // another engine (a plain `npm start`, then `DYNAMODB_ENDPOINT=… npm start` on a fresh DynamoDB Local).
  if (saved && (await store.apps.get(saved.clientId, { consistent: true }))?.status === 'active') return saved;
  // A seeded table without a working saved application (an external engine keeps data that this folder never
  // saw, an earlier start died before writing the file, the demo app was revoked): a new demo application,
  // so every start prints working credentials.
  let demo: DemoCredentials;
  if (await store.groups.get(DEMO_GROUP_ID, { consistent: true })) demo = await createDemoApp(store, clock.now());
  else if ((await store.groups.list()).length === 0) demo = await seedDemo(store, clock.now());
  else return null; // someone's own data: leave it alone
  if (file) {
    writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: OWNER_FILE });
  }
  return demo;
}

/** Passes of the requeue until one finds nothing waiting from before `before` (a pass reads a bounded page). */
async function requeueAll(deps: LocalDeps, before: string): Promise<void> {
  while ((await requeueVanished(deps, before)) > 0);
}

/**
 * Ready means ready: with `hold`, the port is bound (so its number is known) but
 * requests wait until `open()`, so nobody is answered before the runtime is whole.
 */
function holdUntilOpen(server: Server, hold: boolean): { open(): void } {
  if (!hold) return { open: () => undefined };
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    void opened.then(() => listeners.forEach((listener) => listener(req, res)));
  });
  return { open };
}
