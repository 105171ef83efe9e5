import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { isRealIsoDate } from '#contract/schemas/requests';
import {
  AWS_DEFAULT_QUOTAS,
  AWS_QUOTAS,
  DECLARED_QUOTA_KEYS,
  DECLARED_QUOTAS,
  type AccountQuotas,
  type DeclaredQuotaKey,
} from './aws-quotas.js';
import { FUNCTIONS, type FunctionSpec } from './functions.js';
import { EMAIL_ADDRESS, senderOf } from './mail-sender.js';
import { OTHER_ROUTE_THROTTLE, routeThrottles, throttleSum, type StageCapacity, type Throttle } from './route-throttles.js';

/**
 * The deployment stages as data: one typed row each, chosen by `-c stage=…`. A context value of the same name
 * overrides a row's field for one deployment (`CONTEXT_KEYS`). `stageConfig` validates the result and refuses it
 * with a StageRefusal naming the stage, the field and what to pass, so a bad stage never reaches CloudFormation.
 */

/** A stage refused before synthesis: its message is one line for the operator (bin/app.ts prints it alone). */
export class StageRefusal extends Error {
  override name = 'StageRefusal';
}

/** What each alarm fires at, per stage (docs/operations.md, "Alarms and runbook": what each means and the first thing to do). */
export type AlarmThresholds = {
  /** The HTTP API's 5xx answers as a percentage of its requests, over 5 minutes. */
  apiServerErrorPercent: number;
  /** The HTTP API's p99 latency (ms), over 5 minutes. */
  apiLatencyP99Ms: number;
  /** Errors of any one function's live alias in a minute: pages whoever is on call. */
  functionErrors: number;
  /** Errors of a canary's new version in a minute, in ROLLBACK_WINDOW of the minutes (lib/alarm-catalogue.ts): rolls it back. */
  rollbackErrors: number;
  /** Throttled invocations of any one function in a minute. */
  functionThrottles: number;
  /** The deliverer's longest invocation as a percentage of its timeout. */
  delivererDurationPercent: number;
  /** Refused token exchanges (4xx of the token endpoint) in 5 minutes: credential stuffing. */
  tokenRefusals: number;
  /** Throttled DynamoDB requests in 5 minutes. */
  tableThrottles: number;
  /** DynamoDB system errors (500s) in 5 minutes. */
  tableSystemErrors: number;
  /** Messages waiting in the webhook DLQ. */
  deadLetters: number;
  /** Deliveries ending FAILED or DEAD_LETTER in 5 minutes. */
  deliveryFailures: number;
  /** Age (s) of the oldest message in the webhook queue. */
  oldestMessageSeconds: number;
  /** Messages in flight in the webhook queue (received, not yet deleted; a retry holds its message through its backoff). */
  messagesInFlight: number;
  /** Deliveries the deliverer found stranded, in 5 minutes. */
  strandedDeliveries: number;
  /** Owner mails SES refused, in 5 minutes. */
  mailFailures: number;
  /** Minutes without an accepted update from a producer that sends on a clock (PRODUCER_CADENCE_MINUTES). */
  producerQuietMinutes: number;
  /** Producer updates refused, all producers, in 5 minutes. */
  producerRefusals: number;
  /** Age (s) of the oldest emergency-stop command still queued (no report from its gateway yet), as the sweeper sees it. */
  stopCommandAgeSeconds: number;
};

export type StageConfig = {
  /** Where to deploy; absent, the deploying credentials decide and synth stays environment-agnostic. */
  account?: string;
  region?: string;
  /** Keep the table, buckets and logs when the stack is deleted. */
  retain: boolean;
  logRetention: RetentionDays;
  /**
   * What the stage is documented to serve (docs/capacity.md): the route mix (lib/route-throttles.ts) at
   * `requestsPerSecond`, and any one route at least `perRouteFloor` a second. Each route's API Gateway throttle derives
   * from it (`throttlesOf`); no application may be given more than 60 × perRouteFloor a minute.
   */
  capacity: StageCapacity;
  /**
   * The account's quotas the stage must fit (lib/aws-quotas.ts, DECLARED_QUOTAS): AWS's defaults for every stage,
   * each replaced for one deployment by `-c <key>=<the account's value>`; never part of a row.
   */
  quotas: AccountQuotas;
  /**
   * The table's warm throughput (DynamoDB pre-warming: units a second it serves from the first second), for a
   * launch at the stage's capacity; absent, the table starts at a new on-demand table's and scales with its traffic.
   * ONE-WAY: raising it is billed and DynamoDB can never lower it again (docs/capacity.md, "Warm throughput").
   */
  warmThroughput?: { readUnitsPerSecond: number; writeUnitsPerSecond: number };
  /**
   * The CloudTrail trail that records the account's management events (docs/decisions/audit.md, "CloudTrail"):
   * absent, the stack creates one; the ARN of the platform's own trail (an organization trail, say), and the
   * stack creates none, since a second copy of management events in a region is charged.
   */
  trailArn?: string;
  /** Lambda active tracing (X-Ray): with no tracing SDK it records only Lambda's own segments, at $5 per million traces. */
  tracing: boolean;
  /** Sender of owner e-mails; must be (or belong to a domain) verified in SES. Required: every stage mails owners. */
  mailFrom?: string;
  /**
   * The SES configuration set every owner mail is sent with (docs/operations.md, "Owner mail: sender, sandbox,
   * bounces"). Absent: the stack creates `customer-api-<stage>` with an event destination sending bounces and
   * complaints to its mail-events topic. A name: that existing set is used, and its owner points an event
   * destination at the topic (the stack's output MailEventsTopicArn).
   */
  mailConfigurationSet?: string;
  /**
   * Who mails the console's administrators (invitations, password resets): Cognito's own sender, limited to 50
   * mails a day per account, or SES from `mailFrom`'s verified domain, which in the SES sandbox reaches verified
   * addresses only (docs/operations.md, "Owner mail: sender, sandbox, bounces").
   */
  consoleMail: 'cognito' | 'ses';
  /** Who alarms reach: an e-mail subscribed to the topic the stack creates, or an imported topic (its own subscriptions). */
  alarms: { email?: string; topicArn?: string; required: boolean; thresholds: AlarmThresholds };
  /**
   * The public domain: its certificate by ARN (for the edge, one in us-east-1), or a Route 53 hosted zone by id and
   * name in which the stack creates the certificate and the alias record (no look-ups: synth stays offline).
   */
  domain?: { name: string; certificateArn?: string; hostedZoneId?: string; hostedZoneName?: string };
  /**
   * CloudFront + AWS WAF in front of the API; `webAclArn` imports a web ACL instead of creating one;
   * `originSecretVersion` is the origin secret's version CloudFront sends, given after a rotation
   * (docs/operations.md, "Rotating the origin secret").
   */
  edge: { enabled: boolean; webAclArn?: string; originSecretVersion?: string };
  /**
   * Deliverer invocations at once (the SQS event source's maximum, 2 to 1,000, and the deliverer's reserved
   * concurrency), each attempting a batch of DELIVERY_POLICY.batchSize in parallel: about 20 deliveries a second
   * per invocation against receivers answering in 200 ms (docs/operations.md, "Concurrency the account must leave").
   */
  delivererConcurrency: number;
  /** Provisioned concurrency of the token and discovery aliases (0: none). */
  provisionedConcurrency: { token: number; discovery: number };
  /** `canary`: CodeDeploy shifts 10 % for 5 minutes, then the rest, rolling back on an alarm or a failed smoke run. */
  deployment: 'all-at-once' | 'canary';
  /** The sweeper adds a new access-token key version when the signing one is this many days old (0: only by hand). */
  tokenKeyRotationDays: number;
  /** When the contract's legacy routes are deprecated and removed (ISO 8601; contract 9.8 gives no dates): their answers then carry Deprecation and Sunset. */
  legacyDeprecatedAt?: string;
  legacySunsetAt?: string;
};

const QUIET: AlarmThresholds = {
  apiServerErrorPercent: 5,
  apiLatencyP99Ms: 3_000,
  functionErrors: 5,
  rollbackErrors: 5,
  functionThrottles: 5,
  delivererDurationPercent: 80,
  tokenRefusals: 200,
  tableThrottles: 10,
  tableSystemErrors: 1,
  deadLetters: 1,
  deliveryFailures: 5,
  oldestMessageSeconds: 3_600,
  // Half of what a standard queue holds in flight: time to act before receives stop.
  messagesInFlight: AWS_QUOTAS.sqsInFlight.default / 2,
  strandedDeliveries: 1,
  mailFailures: 1,
  producerQuietMinutes: 60,
  producerRefusals: 10,
  // Half a command's 10-minute lifetime: the gateway has had its sends and re-sends, and the stop may yet expire.
  stopCommandAgeSeconds: 300,
};

/**
 * prod's table pre-warmed for its capacity (docs/capacity.md, "Warm throughput"): the capacity model's table read
 * units at 5,000 reads and 500 deliveries a second with the skew (29,723 a second, run of 2026-11-28), within AWS's
 * default table quota of 40,000. Writes stay at a new table's 4,000 (the model's 2,667, due-index entries included).
 * ONE-WAY: pre-warming is billed and can never be lowered, so raise these only with the stage's capacity.
 */
const WARM_READS = 30_000;
const WARM_WRITES = AWS_QUOTAS.dynamoNewTableWriteUnits.default;

export const STAGE_TABLE = {
  dev: {
    retain: false,
    logRetention: RetentionDays.ONE_MONTH,
    capacity: { requestsPerSecond: 50, perRouteFloor: 10 },
    tracing: false,
    consoleMail: 'cognito',
    alarms: { required: false, thresholds: QUIET },
    edge: { enabled: false },
    delivererConcurrency: 5,
    provisionedConcurrency: { token: 0, discovery: 0 },
    deployment: 'all-at-once',
    tokenKeyRotationDays: 0,
  },
  staging: {
    retain: false,
    logRetention: RetentionDays.THREE_MONTHS,
    capacity: { requestsPerSecond: 200, perRouteFloor: 20 },
    tracing: false,
    consoleMail: 'cognito',
    alarms: {
      required: true,
      thresholds: {
        ...QUIET,
        apiServerErrorPercent: 2,
        apiLatencyP99Ms: 2_000,
        functionErrors: 3,
        rollbackErrors: 3,
        oldestMessageSeconds: 1_800,
        producerQuietMinutes: 30,
        producerRefusals: 1,
      },
    },
    edge: { enabled: false },
    delivererConcurrency: 10,
    provisionedConcurrency: { token: 0, discovery: 0 },
    // Rehearses prod's deploy: the same canary, hook and alarms.
    deployment: 'canary',
    tokenKeyRotationDays: 30,
  },
  prod: {
    retain: true,
    logRetention: RetentionDays.ONE_YEAR,
    // Sized within AWS's default quotas (docs/decisions/capacity.md): its throttles add up to 8,921 of the account's
    // 10,000 requests a second; more takes raised quotas, declared with -c, and a larger row (docs/capacity.md).
    capacity: { requestsPerSecond: 5_000, perRouteFloor: 150 },
    // ONE-WAY (see WARM_READS).
    warmThroughput: { readUnitsPerSecond: WARM_READS, writeUnitsPerSecond: WARM_WRITES },
    tracing: false,
    consoleMail: 'ses',
    alarms: {
      required: true,
      thresholds: {
        ...QUIET,
        apiServerErrorPercent: 1,
        apiLatencyP99Ms: 1_000,
        functionErrors: 1,
        // A lone timeout pages; only errors the new version keeps making roll it back.
        rollbackErrors: 3,
        functionThrottles: 1,
        tokenRefusals: 300,
        tableThrottles: 1,
        oldestMessageSeconds: 900,
        // Three missed cadences: one late sync is not a page.
        producerQuietMinutes: 15,
        producerRefusals: 1,
        // A stop unreported for 2 minutes (its first re-send is due): a customer's emergency waits on a gateway.
        stopCommandAgeSeconds: 120,
      },
    },
    edge: { enabled: true },
    // 1,000 deliveries a second (twice its capacity's 500) with room for retries and slow receivers.
    delivererConcurrency: 100,
    provisionedConcurrency: { token: 2, discovery: 2 },
    deployment: 'canary',
    tokenKeyRotationDays: 30,
  },
} as const satisfies Record<string, Omit<StageConfig, 'quotas'>>;

export type Stage = keyof typeof STAGE_TABLE;
export const STAGES = Object.keys(STAGE_TABLE) as Stage[];

export function isStage(value: unknown): value is Stage {
  return typeof value === 'string' && Object.hasOwn(STAGE_TABLE, value);
}

/** The context keys that override a row for one deployment (`-c key=value`). */
export const CONTEXT_KEYS = [
  'account',
  'region',
  'mailFrom',
  'mailConfigurationSet',
  'tracing',
  'alarmEmail',
  'alarmTopicArn',
  'domainName',
  'certificateArn',
  'hostedZoneId',
  'hostedZoneName',
  'edge',
  'webAclArn',
  'originSecretVersion',
  'deployment',
  'tokenKeyRotationDays',
  'delivererConcurrency',
  'legacyDeprecatedAt',
  'legacySunsetAt',
  'trailArn',
  ...DECLARED_QUOTA_KEYS,
] as const;
export type StageContext = Partial<Record<(typeof CONTEXT_KEYS)[number], unknown>>;

const PATTERNS = {
  account: /^\d{12}$/,
  region: /^[a-z]{2}(-gov|-iso[a-z]*)?-[a-z]+-\d$/,
  email: EMAIL_ADDRESS,
  topicArn: /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[\w-]{1,256}$/,
  certificateArn: /^arn:aws[a-z-]*:acm:([a-z0-9-]+):\d{12}:certificate\/[\w-]+$/,
  webAclArn: /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]+\/[\w-]+$/,
  hostedZoneId: /^Z[A-Z0-9]{1,31}$/,
  // A Secrets Manager version id (a ClientRequestToken: 32 to 64 characters; the CLI makes a UUID).
  secretVersionId: /^[A-Za-z0-9-]{32,64}$/,
  trailArn: /^arn:aws[a-z-]*:cloudtrail:[a-z0-9-]+:\d{12}:trail\/[\w.-]{3,128}$/,
  // SES: letters, digits, hyphens and underscores, at most 64.
  configurationSet: /^[A-Za-z0-9_-]{1,64}$/,
  hostname: /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/,
};

/** A real calendar date (the request rules' check), or a UTC instant on one, in ISO 8601. */
const isIsoInstant = (value: string): boolean =>
  /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z)?$/.test(value) &&
  isRealIsoDate(value.slice(0, 10)) &&
  Number.isFinite(Date.parse(value));

/** A context value as a trimmed string, or undefined when absent or blank. */
function text(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const s = shown(value).trim();
  return s === '' ? undefined : s;
}

/** `true`/`false` on the command line (a string) or in cdk.json (a boolean). */
function flag(stage: string, key: string, value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new StageRefusal(`Stage ${stage}: -c ${key}=${shown(value)}: use true or false.`);
}

/** A context value as written: a string as it is, anything else (a number, a boolean, a list) as JSON. */
function shown(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The stage's row with this deployment's context applied, validated; throws an error naming the stage and the field. */
export function stageConfig(stage: unknown, context: StageContext = {}): StageConfig & { stage: Stage } {
  if (!isStage(stage)) throw new StageRefusal(`Unknown stage ${JSON.stringify(stage)}: use -c stage=${STAGES.join(' or -c stage=')}.`);
  const row: Omit<StageConfig, 'quotas'> = STAGE_TABLE[stage];
  const domainName = text(context.domainName);
  const domain = domainName
    ? {
        name: domainName,
        certificateArn: text(context.certificateArn),
        hostedZoneId: text(context.hostedZoneId),
        hostedZoneName: text(context.hostedZoneName),
      }
    : row.domain;
  const deployment = text(context.deployment) ?? row.deployment;
  if (deployment !== 'all-at-once' && deployment !== 'canary')
    throw new StageRefusal(`Stage ${stage}: -c deployment=${deployment}: use all-at-once or canary.`);
  const rotationDays = text(context.tokenKeyRotationDays);
  const delivererConcurrency = text(context.delivererConcurrency);
  const config: StageConfig & { stage: Stage } = {
    ...row,
    tokenKeyRotationDays: rotationDays === undefined ? row.tokenKeyRotationDays : Number(rotationDays),
    delivererConcurrency: delivererConcurrency === undefined ? row.delivererConcurrency : Number(delivererConcurrency),
    legacyDeprecatedAt: text(context.legacyDeprecatedAt) ?? row.legacyDeprecatedAt,
    legacySunsetAt: text(context.legacySunsetAt) ?? row.legacySunsetAt,
    trailArn: text(context.trailArn) ?? row.trailArn,
    stage,
    quotas: declaredQuotas(stage, context),
    account: text(context.account) ?? row.account,
    region: text(context.region) ?? row.region,
    mailFrom: text(context.mailFrom) ?? row.mailFrom,
    mailConfigurationSet: text(context.mailConfigurationSet) ?? row.mailConfigurationSet,
    tracing: flag(stage, 'tracing', context.tracing) ?? row.tracing,
    alarms: {
      ...row.alarms,
      email: text(context.alarmEmail) ?? row.alarms.email,
      topicArn: text(context.alarmTopicArn) ?? row.alarms.topicArn,
    },
    domain,
    edge: {
      enabled: flag(stage, 'edge', context.edge) ?? row.edge.enabled,
      webAclArn: text(context.webAclArn) ?? row.edge.webAclArn,
      originSecretVersion: text(context.originSecretVersion),
    },
    deployment,
  };
  validate(config);
  return config;
}

/** Each declared quota from its context key (a whole number), else AWS's default. */
function declaredQuotas(stage: Stage, context: StageContext): AccountQuotas {
  const quotas = { ...AWS_DEFAULT_QUOTAS };
  for (const key of DECLARED_QUOTA_KEYS) {
    const value = text(context[key]);
    if (value === undefined) continue;
    if (!/^[1-9]\d*$/.test(value))
      throw new StageRefusal(
        `Stage ${stage}: -c ${key}=${value}: use the account's ${AWS_QUOTAS[DECLARED_QUOTAS[key]].what}, a whole number.`,
      );
    quotas[key] = Number(value);
  }
  return quotas;
}

/** Concurrency the stage's functions take from the account for good: reservations, and provisioned concurrency. */
export function reservedConcurrencyOf(config: Pick<StageConfig, 'delivererConcurrency' | 'provisionedConcurrency'>): number {
  const reserved = Object.values(FUNCTIONS as Record<string, FunctionSpec>).reduce((sum, fn) => sum + (fn.reservedConcurrency ?? 0), 0);
  const provisioned = Object.values(config.provisionedConcurrency).reduce((sum, n) => sum + n, 0);
  return config.delivererConcurrency + reserved + provisioned;
}

function validate(config: StageConfig & { stage: Stage }): void {
  const refuse = (what: string) => {
    throw new StageRefusal(`Stage ${config.stage}: ${what}.`);
  };
  /** A need past a declared quota: the quota, its default, and the flag that declares the account's raised value. */
  const pastQuota = (key: DeclaredQuotaKey, need: string) =>
    refuse(
      `${need}, past the quota "${AWS_QUOTAS[DECLARED_QUOTAS[key]].what}" declared as ${config.quotas[key]} (AWS's default ${AWS_QUOTAS[DECLARED_QUOTAS[key]].default}): ` +
        `if the account's quota is raised, declare it with -c ${key}=<value> (docs/operations.md, "Account quotas")`,
    );
  const { account, region, mailFrom, alarms, domain, edge, capacity, provisionedConcurrency, delivererConcurrency } = config;
  // The SQS event source's maximum concurrency is 2 to 1,000.
  if (!Number.isInteger(delivererConcurrency) || delivererConcurrency < 2 || delivererConcurrency > 1_000)
    refuse(`delivererConcurrency ${delivererConcurrency} is not a whole number from 2 to 1,000`);
  if (account !== undefined && !PATTERNS.account.test(account))
    refuse(`account ${JSON.stringify(account)} is not a 12-digit AWS account id`);
  if (region !== undefined && !PATTERNS.region.test(region)) refuse(`region ${JSON.stringify(region)} is not an AWS region name`);
  if (!mailFrom) refuse('no mail sender: pass -c mailFrom=<address or "Name <address>"> verified in SES');
  else if (!senderOf(mailFrom)) refuse(`mailFrom ${JSON.stringify(mailFrom)} is not an e-mail address or "Name <address>"`);
  if (config.mailConfigurationSet !== undefined && !PATTERNS.configurationSet.test(config.mailConfigurationSet)) {
    refuse(
      `mailConfigurationSet ${JSON.stringify(config.mailConfigurationSet)} is not an SES configuration set name (letters, digits, - and _, at most 64)`,
    );
  }
  if (config.trailArn !== undefined && !PATTERNS.trailArn.test(config.trailArn))
    refuse(
      `trailArn ${JSON.stringify(config.trailArn)} is not a CloudTrail trail ARN (arn:aws:cloudtrail:<region>:<account>:trail/<name>)`,
    );
  if (alarms.email !== undefined && !PATTERNS.email.test(alarms.email))
    refuse(`alarmEmail ${JSON.stringify(alarms.email)} is not an e-mail address`);
  if (alarms.topicArn !== undefined && !PATTERNS.topicArn.test(alarms.topicArn))
    refuse(`alarmTopicArn ${JSON.stringify(alarms.topicArn)} is not an SNS topic ARN`);
  if (alarms.email && alarms.topicArn)
    refuse('pass -c alarmEmail or -c alarmTopicArn, not both: an imported topic keeps its own subscriptions');
  if (alarms.required && !alarms.email && !alarms.topicArn)
    refuse('its alarms must reach someone: pass -c alarmEmail=<address> or -c alarmTopicArn=<SNS topic ARN>');
  // CloudWatch notifies only a topic in the alarm's own region; without -c region synth cannot check it.
  const topicRegion = alarms.topicArn?.split(':')[3];
  if (topicRegion && region !== topicRegion)
    refuse(`alarmTopicArn is in ${topicRegion}: alarms notify only a topic in their own region, so pass -c region=${topicRegion}`);
  for (const [name, value] of Object.entries(alarms.thresholds)) {
    if (!(Number.isFinite(value) && value > 0)) refuse(`alarm threshold ${name} must be a positive number, not ${String(value)}`);
  }
  if (!(Number.isInteger(capacity.perRouteFloor) && capacity.perRouteFloor > 0 && capacity.requestsPerSecond >= capacity.perRouteFloor)) {
    refuse(`capacity ${JSON.stringify(capacity)} needs a positive whole perRouteFloor and requestsPerSecond at least as large`);
  }
  const throttled = throttleSum(throttlesOf(config).routes);
  if (throttled > config.quotas.apiThrottleQuota)
    pastQuota('apiThrottleQuota', `its routes' throttles add up to ${throttled} requests a second`);
  if (config.warmThroughput) {
    const { readUnitsPerSecond: reads, writeUnitsPerSecond: writes } = config.warmThroughput;
    const [minReads, minWrites] = [AWS_QUOTAS.dynamoNewTableReadUnits.default, AWS_QUOTAS.dynamoNewTableWriteUnits.default];
    // Below a new on-demand table's own warm throughput it would change nothing; above the table quota DynamoDB refuses it.
    if (!(Number.isInteger(reads) && reads >= minReads && Number.isInteger(writes) && writes >= minWrites)) {
      refuse(
        `warmThroughput ${JSON.stringify(config.warmThroughput)} needs whole read units from ${minReads} and write units from ${minWrites} a second (a new table's warm throughput)`,
      );
    }
    if (reads > config.quotas.tableReadQuota) pastQuota('tableReadQuota', `its table's warm throughput is ${reads} read units a second`);
    if (writes > config.quotas.tableWriteQuota)
      pastQuota('tableWriteQuota', `its table's warm throughput is ${writes} write units a second`);
  }
  const reserved = reservedConcurrencyOf(config);
  const unreserved = config.quotas.lambdaConcurrencyQuota - reserved;
  const minimum = AWS_QUOTAS.lambdaUnreservedMinimum.default;
  if (unreserved < minimum) {
    pastQuota(
      'lambdaConcurrencyQuota',
      `its functions reserve ${reserved} concurrent executions (reserved and provisioned), leaving ${unreserved} unreserved where Lambda keeps at least ${minimum}`,
    );
  }
  if (!(Number.isInteger(config.tokenKeyRotationDays) && config.tokenKeyRotationDays >= 0 && config.tokenKeyRotationDays <= 365)) {
    refuse(`tokenKeyRotationDays must be a whole number of days from 0 (by hand only) to 365, not ${String(config.tokenKeyRotationDays)}`);
  }
  for (const key of ['legacyDeprecatedAt', 'legacySunsetAt'] as const) {
    const value = config[key];
    if (value !== undefined && !isIsoInstant(value))
      refuse(`${key} must be an ISO 8601 date or instant such as 2027-06-30 or 2027-06-30T00:00:00Z, not ${JSON.stringify(value)}`);
  }
  if (config.legacyDeprecatedAt && config.legacySunsetAt && Date.parse(config.legacySunsetAt) <= Date.parse(config.legacyDeprecatedAt))
    refuse('legacySunsetAt must come after legacyDeprecatedAt (RFC 8594: removal follows deprecation)');
  for (const [alias, count] of Object.entries(provisionedConcurrency)) {
    if (!(Number.isInteger(count) && count >= 0 && count <= 100))
      refuse(`provisioned concurrency of ${alias} must be a whole number from 0 to 100, not ${String(count)}`);
  }
  if (domain) {
    if (!PATTERNS.hostname.test(domain.name)) refuse(`domainName ${JSON.stringify(domain.name)} is not a lower-case DNS name`);
    if (!domain.certificateArn && !domain.hostedZoneId)
      refuse(`domain ${domain.name} needs -c certificateArn=<ACM ARN> or -c hostedZoneId=<id> with -c hostedZoneName=<zone>`);
    const certRegion = domain.certificateArn === undefined ? undefined : PATTERNS.certificateArn.exec(domain.certificateArn)?.[1];
    if (domain.certificateArn !== undefined && !certRegion)
      refuse(`certificateArn ${JSON.stringify(domain.certificateArn)} is not an ACM certificate ARN`);
    if (domain.hostedZoneId !== undefined && !PATTERNS.hostedZoneId.test(domain.hostedZoneId))
      refuse(`hostedZoneId ${JSON.stringify(domain.hostedZoneId)} is not a Route 53 zone id`);
    if (
      domain.hostedZoneId !== undefined &&
      !(domain.hostedZoneName && (domain.name === domain.hostedZoneName || domain.name.endsWith(`.${domain.hostedZoneName}`)))
    ) {
      refuse(`hostedZoneName must name the zone ${domain.hostedZoneId} that holds ${domain.name}`);
    }
    if (edge.enabled && certRegion && certRegion !== 'us-east-1')
      refuse(`the edge (CloudFront) needs its certificate in us-east-1, and ${domain.certificateArn} is in ${certRegion}`);
  }
  if (edge.enabled) {
    if (!domain)
      refuse(
        "the edge needs the stage's base URL: pass -c domainName=<name> with -c certificateArn=<ACM ARN in us-east-1> (or -c hostedZoneId and -c hostedZoneName)",
      );
    if (edge.webAclArn !== undefined && !PATTERNS.webAclArn.test(edge.webAclArn))
      refuse(`webAclArn ${JSON.stringify(edge.webAclArn)} is not a CloudFront-scope WAF web ACL ARN (us-east-1, global)`);
    // A CloudFront-scope web ACL, and a certificate CloudFront uses, can only be created in us-east-1.
    const createsInUsEast1 = !edge.webAclArn || !domain?.certificateArn;
    if (createsInUsEast1 && region !== 'us-east-1') {
      refuse(
        'the edge creates its WAF web ACL (and a certificate from a hosted zone) in us-east-1 only: pass -c region=us-east-1, or import both with -c webAclArn and -c certificateArn',
      );
    }
    if (edge.originSecretVersion !== undefined && !PATTERNS.secretVersionId.test(edge.originSecretVersion))
      refuse(
        `originSecretVersion ${JSON.stringify(edge.originSecretVersion)} is not a Secrets Manager version id (put-secret-value prints it as VersionId)`,
      );
  } else if (edge.webAclArn !== undefined) {
    refuse('-c webAclArn needs the edge: pass -c edge=true');
  } else if (edge.originSecretVersion !== undefined) {
    refuse('-c originSecretVersion needs the edge: pass -c edge=true');
  }
}

/** The stage's API Gateway throttles: each route of the mix its own, every other route the default's. */
export function throttlesOf(config: Pick<StageConfig, 'capacity'>): { routes: Record<string, Throttle>; default: Throttle } {
  return { routes: routeThrottles(config.capacity, AWS_QUOTAS.apiGatewayAccountBurst.default), default: OTHER_ROUTE_THROTTLE };
}

/** The stage's public base URL (absolute URLs in responses), from its domain; empty: the URL the gateway reports. */
export function publicBaseUrlOf(config: StageConfig): string {
  return config.domain ? `https://${config.domain.name}` : '';
}
