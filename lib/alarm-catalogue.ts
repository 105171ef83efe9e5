import { DERIVED } from '#lambdas/webhooks/delivery-policy';
import { STAGE_TABLE, STAGES, type AlarmThresholds } from './stages.js';

/**
 * Every alarm the stack raises, declared once: what it watches, the stage threshold it fires at, what it means and
 * the first thing to do. The alarms' descriptions (what an SNS notification shows) and the runbook table in
 * docs/operations.md are both made from these rows; a test keeps the table identical to `runbookTable()`.
 */
export type AlarmEntry = {
  title: string;
  /** The stage table's threshold, or a number that is the same in every stage. */
  threshold: keyof AlarmThresholds | number;
  unit: string;
  means: string;
  firstStep: string;
  /** Fires when this many of the last `of` periods breach (absent: the last one alone). */
  window?: { datapoints: number; of: number };
  /** A period without a datapoint breaches (absent: it is healthy silence). */
  silenceBreaches?: true;
};

/**
 * A canary's rollback alarms fire on 2 breaching minutes of 3: one slow or failed invocation of the new version
 * pages (the count alarms) but does not roll it back; a version that keeps failing is rolled back within the
 * canary's 5 minutes.
 */
export const ROLLBACK_WINDOW = { datapoints: 2, of: 3 } as const;

/** Every alarm is named `customer-api-<stage>-<id>`: the topic policy lets CloudWatch publish for these names only. */
export const alarmNamePrefix = (stage: string) => `customer-api-${stage}-`;

export const ALARMS = {
  ApiServerErrors: {
    title: 'API 5xx rate',
    threshold: 'apiServerErrorPercent',
    unit: '% of requests, 5 min (at least 10 requests)',
    means: 'The HTTP API answers 5xx: a function fails, times out, or API Gateway cannot invoke it.',
    firstStep: 'Open the dashboard: which family\'s ServerErrors rose; read that function\'s log group for "unhandled error" lines.',
  },
  ApiLatency: {
    title: 'API p99 latency',
    threshold: 'apiLatencyP99Ms',
    unit: 'ms, p99 over 5 min',
    means: 'Clients wait longer than the stage allows: cold starts, DynamoDB throttling or a slow dependency.',
    firstStep: "Compare the families' Duration p99 and DynamoDB throttles on the dashboard; check for a deploy in progress.",
  },
  FunctionErrors: {
    title: '<function> errors',
    threshold: 'functionErrors',
    unit: 'errors of the live alias in 1 min',
    means: "The function's invocations fail (an exception outside the HTTP shell, a timeout, an init failure).",
    firstStep: "Read the function's log group for the failing requests; if a deploy just happened, compare the two versions.",
  },
  FunctionLatency: {
    title: '<function> p99 duration',
    threshold: 'apiLatencyP99Ms',
    unit: 'ms, p99 of the live alias over 1 min',
    means: 'An HTTP function answers slowly.',
    firstStep: "Check DynamoDB throttles and the function's init duration (cold starts); compare with the previous version.",
  },
  FunctionNearTimeout: {
    title: '<function> near its timeout',
    threshold: 'delivererDurationPercent',
    unit: "% of the function's timeout, longest invocation in 1 min",
    means:
      'A queue or scheduled function runs close to its timeout: a slow receiver, a large DLQ pass, or DynamoDB latency. Past it, the batch returns to the queue.',
    firstStep:
      "Read the function's log lines of that minute (attempt durations, pages dispatched); a single slow receiver is paused by its health, a systemic one is not.",
  },
  RollbackErrors: {
    title: '<function> new version errors',
    threshold: 'rollbackErrors',
    unit: `errors of the version a canary deploys, per minute, in ${ROLLBACK_WINDOW.datapoints} of ${ROLLBACK_WINDOW.of} minutes`,
    means:
      'The version being deployed keeps failing (its own invocations, ExecutedVersion): CodeDeploy moves the alias back to the previous one.',
    firstStep:
      "The deploy has rolled back and the CloudFormation update failed: read the new version's failing requests in the function's log group, fix, deploy again.",
    window: ROLLBACK_WINDOW,
  },
  RollbackLatency: {
    title: '<function> new version p99 duration',
    threshold: 'apiLatencyP99Ms',
    unit: `ms, p99 of the version a canary deploys over 1 min, in ${ROLLBACK_WINDOW.datapoints} of ${ROLLBACK_WINDOW.of} minutes`,
    means: 'The version being deployed answers slowly, minute after minute: CodeDeploy moves the alias back to the previous one.',
    firstStep: "The deploy has rolled back: compare the two versions' duration and init duration in the function's log group.",
    window: ROLLBACK_WINDOW,
  },
  RollbackNearTimeout: {
    title: '<function> new version near its timeout',
    threshold: 'delivererDurationPercent',
    unit: `% of the function's timeout, the deployed version's longest invocation in 1 min, in ${ROLLBACK_WINDOW.datapoints} of ${ROLLBACK_WINDOW.of} minutes`,
    means:
      'The version being deployed runs close to its timeout, minute after minute: CodeDeploy moves the alias back to the previous one.',
    firstStep: "The deploy has rolled back: compare the two versions' durations in the function's log lines.",
    window: ROLLBACK_WINDOW,
  },
  FunctionThrottles: {
    title: '<function> throttles',
    threshold: 'functionThrottles',
    unit: 'throttled invocations in 1 min',
    means: "Lambda refused invocations: the account's unreserved pool (or the function's reservation) is exhausted.",
    firstStep:
      "Check ConcurrentExecutions on the dashboard and the account's concurrency (`aws lambda get-account-settings`); raise the quota or the reservation.",
  },
  TokenRefusals: {
    title: 'Token refusals',
    threshold: 'tokenRefusals',
    unit: '4xx answers of /oauth/token in 5 min',
    means: 'Many failed token exchanges: credential stuffing, or a customer deployed a wrong secret.',
    firstStep:
      "Group the token function's access lines by caller (client id) and source address; contact the owner or block the address at the edge.",
  },
  TableThrottles: {
    title: 'DynamoDB throttles',
    threshold: 'tableThrottles',
    unit: 'throttled requests in 5 min',
    means: 'The table (or a hot key) exceeds its throughput: reads and writes are retried and may fail.',
    firstStep: 'Use CloudWatch Contributor Insights on the table to find the hot key; check the on-demand quota and the traffic mix.',
  },
  TableSystemErrors: {
    title: 'DynamoDB system errors',
    threshold: 'tableSystemErrors',
    unit: 'HTTP 500s from DynamoDB in 5 min',
    means: 'DynamoDB itself failed requests (the SDK retries them).',
    firstStep: 'Check the AWS Health Dashboard for DynamoDB in the region; nothing to fix in the service if it is an AWS event.',
  },
  DeadLetters: {
    title: 'Webhook dead letters',
    threshold: 'deadLetters',
    // In flight too: the sweeper's pass hides every DLQ message for a moment each minute.
    unit: 'messages in the DLQ, visible plus in flight',
    means: 'Deliveries gave up (five attempts spent) or receives were spent without attempts.',
    firstStep:
      '`npm run admin -- dlq list --stage S`: fix or ask the receiver\'s owner, then `dlq redrive` (docs/webhooks.md, "Dead letters").',
  },
  DeliveryFailures: {
    title: 'Webhook delivery failures',
    threshold: 'deliveryFailures',
    unit: 'deliveries ending FAILED or DEAD_LETTER in 5 min',
    means: 'Receivers refuse or do not answer: deliveries end permanently.',
    firstStep:
      "List destinations by health (`npm run admin -- destinations list`): one receiver is the owner's to fix; many at once point at the deliverer or the network.",
  },
  QueueAge: {
    title: 'Webhook queue age',
    threshold: 'oldestMessageSeconds',
    unit: 's, oldest message in the webhook queue',
    means: 'Deliveries wait longer than planned: the deliverer is throttled, failing, or out-paced by fan-out.',
    firstStep:
      "Check the deliverer's errors, throttles and concurrency; a retry waiting its backoff is normal up to 3,600 s (5 attempts), so look at the trend.",
  },
  QueueInFlight: {
    title: 'Webhook messages in flight',
    threshold: 'messagesInFlight',
    unit: 'messages received and not yet deleted, 1 min maximum',
    means:
      'The webhook queue nears the ~120,000 messages a standard queue holds in flight; past it the deliverer receives nothing more and deliveries wait.',
    firstStep:
      "A retry holds its message through its backoff: look for destinations failing in bulk (`npm run admin -- destinations list`) that have not paused, and at the deliverer's errors and duration.",
  },
  FanOutQueueAge: {
    title: 'Fan-out queue age',
    // A page's wake-up waits for one dispatcher invocation, seconds at most: minutes mean none runs.
    threshold: 300,
    unit: 's, oldest message in the fan-out queue',
    means: "A publish's later pages or a resumed destination's releases wait: the dispatcher is throttled, failing or out-paced.",
    firstStep:
      "Check the dispatcher's errors, throttles and duration; the sweeper goes on from each outbox entry and paused marker meanwhile, so nothing is lost.",
  },
  FanOutDeadLetters: {
    title: 'Fan-out dead letters',
    threshold: 'deadLetters',
    unit: 'messages in the fan-out DLQ, visible plus in flight',
    means:
      'A fan-out page or release failed every receive (the dispatcher timed out or was throttled), or a message reached the wrong queue and was refused.',
    firstStep:
      "Read the dispatcher's log for the message id (`message refused` names a misrouted one); nothing waits on it (the sweeper resumes every fan-out and release), so delete it once understood.",
  },
  DeliveriesStranded: {
    title: 'Stranded deliveries',
    threshold: 'strandedDeliveries',
    unit: 'deliveries found in the DLQ with attempts left, 5 min',
    means: 'Messages reached the DLQ without their attempts (throttles, init failures, a deliverer that died).',
    firstStep:
      'The sweeper lists them; redrive with `npm run admin -- dlq redrive --all`, then find why receives were spent (deliverer throttles).',
  },
  DeliveriesRequeued: {
    title: 'Requeued deliveries',
    // Messages lost past the normal path, as stranded ones are: the same threshold.
    threshold: 'strandedDeliveries',
    unit: 'deliveries queued again because their message vanished, 5 min',
    means: `Deliveries waited ${DERIVED.requeueAfterSeconds / 60} min past their last change without a message: the queue was purged, or messages outlived its retention (or waited behind a backlog that long).`,
    firstStep:
      "Nothing to redrive: the sweeper queued them again. Check CloudTrail for a PurgeQueue and the queue's age alarm; the sweeper's log names each delivery.",
  },
  MailFailures: {
    title: 'Owner mail failures',
    threshold: 'mailFailures',
    unit: 'mails SES refused in 5 min',
    means: 'Owners are not told about their receivers: SES refuses the sender, is in the sandbox, or the account is paused.',
    firstStep:
      "Check SES: the sender identity verified, the account out of the sandbox, the sending quota; the refusal is in the sweeper's log.",
  },
  MailEventFailures: {
    title: 'Mail events failed',
    // A record lost past the normal path, as a dead letter is: the same threshold.
    threshold: 'deadLetters',
    unit: 'messages in the mail-events failure queue, visible plus in flight',
    means:
      "SNS delivered a bounce or complaint that the mail-events function failed on after Lambda's retries: that address is not suppressed.",
    firstStep:
      'Read the queue (`aws sqs receive-message --queue-url <MailEventsFailureQueueUrl>`): each record has the error and the SNS event; fix the cause, replay the event (docs/operations.md, "Owner mail"), then delete the record.',
  },
  ProducerQuiet: {
    title: '<producer> quiet',
    threshold: 'producerQuietMinutes',
    unit: 'minutes without an accepted update (applied, duplicate or stale) from a producer that sends every 5 minutes',
    means:
      "A producer that should report on a clock (contract 2.12) has not: its module's data grows old while every read still answers. A stage no such producer feeds yet stays in this state.",
    firstStep:
      'Ask its platform team whether its system runs; then read the producer-api log for its refused updates ("producer update", outcome refused) and the API access log for 403s on /producer.',
    silenceBreaches: true,
  },
  ProducerRefusals: {
    title: 'Producer updates refused',
    threshold: 'producerRefusals',
    unit: 'updates refused (400, 404, 409, 413), all producers, 5 min',
    means: 'A producer sends updates the service refuses whole: that data is not stored until the producer sends it fixed.',
    firstStep:
      'Read the producer-api log lines "producer update" with outcome refused (producer, operation, code); the answer the producer got names the field and the rule.',
  },
  StopCommandAge: {
    title: 'Emergency stop unreported',
    threshold: 'stopCommandAgeSeconds',
    unit: "s, the oldest stop command still queued (its gateway's report not in), each sweep",
    means:
      "A customer's emergency stop has not been reported applied or failed: the device platform does not consume the stop-command queue, its gateway is offline, or its reports are refused. Past 10 minutes the command expires and ends failed.",
    firstStep:
      'Ask the device platform\'s team whether its consumer runs; read the sweeper\'s log ("stop command sent", "expired") and the producer-api log for refused stop results; the stop-command DLQ holds messages its gateway choked on.',
  },
  AlarmPathCheck: {
    title: 'Alarm path check',
    // Nothing publishes its metric: it fires only when an operator sets its state.
    threshold: 1,
    unit: 'set by hand (`aws cloudwatch set-alarm-state`)',
    means: 'An operator is checking that alarms reach this topic; it belongs to no deployment and returns to OK within a minute.',
    firstStep:
      'Nothing, if someone is running the post-deploy alarm check (docs/operations.md, "Alarms and runbook"); otherwise ask who set it.',
  },
} as const satisfies Record<string, AlarmEntry>;

/** An entry's threshold in a stage. */
export function thresholdOf(entry: AlarmEntry, thresholds: AlarmThresholds): number {
  return typeof entry.threshold === 'number' ? entry.threshold : thresholds[entry.threshold];
}

export type AlarmKey = keyof typeof ALARMS;

/** The runbook table of docs/operations.md, one row per alarm with its threshold in each stage. */
export function runbookTable(): string {
  const header = `| alarm | fires at (${STAGES.join(' / ')}) | unit | what it means | first thing to do |\n|---|---|---|---|---|`;
  const rows = Object.values(ALARMS).map((entry: AlarmEntry) => {
    const thresholds = STAGES.map((stage) => thresholdOf(entry, STAGE_TABLE[stage].alarms.thresholds).toLocaleString('en-US')).join(' / ');
    return `| ${entry.title} | ${thresholds} | ${entry.unit} | ${entry.means} | ${entry.firstStep} |`;
  });
  return [header, ...rows].join('\n');
}
