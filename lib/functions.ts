import { DERIVED } from '#lambdas/webhooks/delivery-policy';
import { DLQ_PASS_SECONDS, FAN_OUT_QUEUES } from '#lambdas/webhooks/queues';
import type { Family } from '#contract/routes';
import { GSI1, GSI2, GSI3 } from '#data/table';
import type { DynamoAction, TableIndexName } from './constructs/service-function.js';
import { PRODUCER_RATE_LIMIT } from './route-throttles.js';

/** What one function needs from the infrastructure, and nothing more. */
export type FunctionSpec = {
  /** Handler file below lambdas/. */
  entry: string;
  /** DynamoDB actions on the table. */
  tableActions: readonly DynamoAction[];
  /** GSIs the family queries; each is granted by its own ARN (never `index/*`). */
  queriedIndexes: readonly TableIndexName[];
  /** ses:SendEmail from MAIL_FROM (owner alerts). */
  sendsMail: boolean;
  memorySize: number;
  /** Default `DEFAULT_TIMEOUT_SECONDS` (below), well below API Gateway's 29 s integration timeout. */
  timeoutSeconds?: number;
  /** Reserved concurrency: what the account's other functions can never take from it. */
  reservedConcurrency?: number;
};

/**
 * Every /v1 family runs auth → rate limit → route: it reads credentials, apps
 * and locations, bumps the rate counter and may queue an owner alert (an
 * UpdateItem; the webhook sweeper sends it), so no /v1 family sends mail.
 * 512 MB: a read is mostly DynamoDB waits, which more CPU does not shorten;
 * its CPU part costs the same GB-seconds at any memory below one vCPU, so
 * halving memory lowers the cost of a read (bench: `--only roundtrips`) at a
 * few ms of latency, more on the kitchen's largest days.
 */
const V1_FAMILY = {
  tableActions: ['GetItem', 'BatchGetItem', 'Query', 'UpdateItem'],
  queriedIndexes: [],
  sendsMail: false,
  memorySize: 512,
} as const;
const v1 = (family: Family, extra: Partial<FunctionSpec> = {}): FunctionSpec => ({
  entry: `${family}/${family}.ts`,
  ...V1_FAMILY,
  ...extra,
});

/**
 * What a producer update takes on average, with room: tens of ms (a GetItem and one or two conditional puts of a
 * few ms each, validation and gzip of the body), a busy kitchen day's tickets more (the capacity model measures each
 * feed's: `npm run bench -- --only capacity`).
 */
export const PRODUCER_UPDATE_SECONDS = 0.1;

/**
 * Every function of the stack, declared once: its entry, table grants, mail,
 * memory and timeout. The stack builds each from its row; the tests check the
 * deployed grants against it. Typed by Family: a family added to the route
 * table does not compile until it is declared here.
 */
export const FUNCTIONS = {
  // Reads the app and the token key, bumps the per-client attempt counter, writes the credential (and the key, once).
  token: {
    entry: 'token/token.ts',
    tableActions: ['GetItem', 'PutItem', 'UpdateItem'],
    queriedIndexes: [],
    sendsMail: false,
    memorySize: 512,
  },
  // Locations are listed by base-table Query (PK = group), so no GSI grant.
  discovery: v1('discovery'),
  // Menus are read by key and listed by base-table Query (PK = group).
  bevq: v1('bevq'),
  // shiftq items are read by key (GetItem/BatchGetItem) and reviews paged by base-table Query; no GSI.
  shiftq: v1('shiftq'),
  // Sports data is read by key and viewing data by base-table Query (PK = group); no GSI.
  sportsq: v1('sportsq'),
  // Also puts emergency-stop commands (conditional PutItem on a deterministic key) and records their sends
  // (UpdateItem); the stack grants it SendMessage on the stop-command queue.
  matriq: v1('matriq', { tableActions: [...V1_FAMILY.tableActions, 'PutItem'] }),
  // Campaigns listed by base-table Query (PK = group); devices read by key.
  campaigns: v1('campaigns'),
  orderboard: v1('orderboard'),
  // Public logos from the folder in its package (lib/package-files.ts); no auth, so it never touches the table beyond the shared deps' client.
  assets: { entry: 'assets/assets.ts', tableActions: ['GetItem'], queriedIndexes: [], sendsMail: false, memorySize: 256 },
  /**
   * The admin API: apps, destinations (deleted with DeleteItem), menu
   * publishing, dead letters (listed through GSI1). It also sends to the
   * webhook queue, consumes the DLQ and e-mails owners; the stack grants those.
   */
  'admin-api': {
    entry: 'admin/admin.ts',
    // BatchGetItem: destinations' health items beside them. BatchWriteItem: a publish's held items (paused destinations).
    tableActions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    // GSI3: an event's deliveries (`deliveries show` given an event id).
    queriedIndexes: [GSI1.indexName, GSI3.indexName],
    sendsMail: true,
    memorySize: 512,
  },
  /**
   * The producer API (docs/decisions/producers.md): an update reads its location (GetItem) and is written by one
   * conditional PutItem in its source's order (putInOrder), whose refusal a consistent GetItem tells apart as a
   * replay or stale; a kitchen day's snapshot is a second such put. UpdateItem: a stop result moves its command and
   * the scheduler's runtime, attributes of items others wrote, each by one conditional update (the scheduler's in
   * the report's order), never a read-and-put; a menu's publish confirms the replaced revision's outbox entry.
   * DeleteItem: the link of a location a campaign no longer lists, only if not newer than the update (a condition
   * BatchWriteItem cannot carry), and a menu's outbox entry whose body was refused. A new menu revision's fan-out is
   * the dispatcher's, woken on the fan-out queue. No index, no mail.
   */
  'producer-api': {
    entry: 'producers/producers.ts',
    tableActions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    queriedIndexes: [],
    sendsMail: false,
    memorySize: 512,
    // Ingest at the contract's cadences never takes the concurrency the customer functions read with (a reservation
    // is also a ceiling), nor waits for it. Sized for what the producer route lets through (PRODUCER_RATE_LIMIT, 562
    // a second) at PRODUCER_UPDATE_SECONDS each: 57, so the gateway's throttle answers first, never Lambda's.
    reservedConcurrency: Math.ceil(PRODUCER_RATE_LIMIT * PRODUCER_UPDATE_SECONDS),
  },

  /**
   * The fan-out, from the fan-out queue (its event source): a published menu's pages (the first, for a producer's
   * publish; the later ones) and resumed destinations' releases. A page reads the
   * group's destinations (GSI1) and their health items (BatchGetItem), creates their records, holds a paused one's
   * (BatchWriteItem), moves the outbox entry's cursor or takes it out (DeleteItem), and sends the page's deliveries
   * and the next page's wake-up; a release sends held deliveries and drops their held items.
   */
  'webhook-dispatcher': {
    entry: 'webhooks/dispatcher.ts',
    tableActions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    queriedIndexes: [GSI1.indexName],
    memorySize: 512,
    timeoutSeconds: FAN_OUT_QUEUES.functionTimeoutSeconds,
    sendsMail: false,
  },
  /**
   * The delivery queue's consumer, and only that: at most one attempt per record, retries through the message's
   * visibility. Reads the record, destination and application (BatchGetItem), writes the outcome and health,
   * lists (PutItem) or unlists (DeleteItem) a dead letter, queues an owner notice (PutItem), and wakes a resumed
   * destination's release on the fan-out queue.
   */
  'webhook-deliverer': {
    entry: 'webhooks/deliverer.ts',
    tableActions: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    queriedIndexes: [],
    memorySize: 512,
    timeoutSeconds: DERIVED.functionTimeoutSeconds,
    // Its reservation is the stage's delivererConcurrency (lib/constructs/webhooks.ts), with the event source's maximum.
    sendsMail: false,
  },
  /**
   * Schedule: settles menu events left in the outbox (DeleteItem), probes, releases and dead-letters paused
   * destinations' held deliveries (BatchGetItem of health, BatchWriteItem of held items), lists what is in
   * the DLQ, queues again the deliveries whose message vanished (found through GSI2), sends queued owner mail,
   * rotates the access-token key when it is due, sends again or expires emergency-stop commands still queued (found
   * through GSI1; the stack grants SendMessage on the stop-command queue): the jobs of lambdas/upkeep/upkeep.ts.
   */
  'webhook-sweeper': {
    entry: 'upkeep/sweeper.ts',
    tableActions: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem'],
    queriedIndexes: [GSI1.indexName, GSI2.indexName],
    memorySize: 512,
    // The DLQ pass plus room for dispatching and mail, inside the one-minute schedule.
    timeoutSeconds: DLQ_PASS_SECONDS + 20,
    // A scheduled run beside its retry or an operator's run: never throttled by the rest of the account.
    reservedConcurrency: 2,
    sendsMail: true,
  },
  /**
   * SNS subscriber of the mail-events topic (lib/constructs/mail-events.ts): marks the addresses SES reports
   * bouncing for good or complaining, one conditional PutItem each. Nothing else.
   */
  'mail-events': { entry: 'mail-events/mail-events.ts', tableActions: ['PutItem'], queriedIndexes: [], sendsMail: false, memorySize: 256 },
} as const satisfies Record<Family | 'admin-api' | 'producer-api' | 'mail-events' | `webhook-${string}`, FunctionSpec>;

export type FunctionName = keyof typeof FUNCTIONS;

/** A function's timeout when its row declares none; the stack and the local gateway both read it here. */
const DEFAULT_TIMEOUT_SECONDS = 10;
export const timeoutSecondsOf = (name: FunctionName): number => (FUNCTIONS[name] as FunctionSpec).timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS;
/** The non-HTTP webhook functions (their own construct adds the queue, schedule and alarm). */
export const WEBHOOK_FUNCTION_NAMES = [
  'webhook-dispatcher',
  'webhook-deliverer',
  'webhook-sweeper',
] as const satisfies readonly FunctionName[];
export type WebhookFunctionName = (typeof WEBHOOK_FUNCTION_NAMES)[number];
