import type * as v from 'valibot';
import type { aiSchedulerData, devicesData, emergencyStopData, gatewayData, StopStatus } from '#contract/schemas/matriq';

/** The Auto Scheduler as shown (contract/schemas/matriq.ts), and its draft, whose content is stored beside its state rather than under `draft`. */
type Shown = v.InferOutput<typeof aiSchedulerData>;
type ShownDraft = NonNullable<Shown['currentPublishedDraft']>;
import {
  applied,
  type Db,
  itemsOfPage,
  groupPartition,
  withoutKeys,
  getItem,
  gsi1Partition,
  putItem,
  queryPage,
  updateItem,
  putInOrder,
  newerThanStored,
  type OrderedOutcome,
  type SourceOrder,
} from './store.js';

/** A location's display devices, gateway and Auto Scheduler state, as reported by its gateway. */
export type MatriqState = {
  groupId: string;
  locationId: string;
  updatedAt: string;
  // As the answers show them, but their health: that is judged on every read from lastSeenAt.
  gateway: Omit<v.InferOutput<typeof gatewayData>['gateway'], 'health'>;
  devices: Omit<v.InferOutput<typeof devicesData>['devices'][number], 'health'>[];
  scheduler: Pick<Shown, 'deviceIds' | 'statusUpdatedAt' | 'publishedDraftUpdatedAt'> &
    Pick<Shown['status'], 'running'> &
    Shown['status']['runtime'] & { draft: (Omit<ShownDraft, 'draft'> & ShownDraft['draft']) | null };
};

/**
 * One emergency-stop command, from the POST that queued it to the gateway's result. The command is its own outbox
 * entry (docs/decisions/matriq.md, "How a stop reaches the gateway"): while queued it sits in a sharded GSI1
 * partition, oldest first, where the sweeper finds it to send it again or expire it.
 */
export type StopCommand = Omit<v.InferOutput<typeof emergencyStopData>, 'refresh'> & {
  groupId: string;
  locationId: string;
  /** Who asked, and a hash of what they asked: an Idempotency-Key retry must match both. */
  clientId: string;
  requestFingerprint: string;
} & StopDelivery;

/** How a command travels to the gateway: its expiry, and its sends on the stop-command queue. */
type StopDelivery = {
  /** Past it the command is never sent again and becomes failed (`failure: 'expired'`); the message carries it too. */
  expiresAt: string;
  /** Its first send; null until one is known to have gone out. */
  publishedAt: string | null;
  /** Its last send; null before the first. */
  lastSentAt: string | null;
  /** Sends so far (at most STOP_COMMAND_MAX_SENDS). */
  sends: number;
  /** Why the service ended it failed itself: `expired`; null otherwise (a gateway's failure is its report). */
  failure: 'expired' | null;
};

/**
 * How long a command may take to reach its gateway: 10 minutes (docs/decisions/matriq.md says why). Past it, the
 * gateway discards the message and the sweeper ends the command failed.
 */
export const STOP_COMMAND_LIFETIME_MS = 10 * 60_000;
/** Sends of one command at most: the first and the sweeper's re-sends. */
export const STOP_COMMAND_MAX_SENDS = 5;

/** Queued commands spread over this many index partitions (their ids end in hex). */
const QUEUED_SHARDS = 4;

/** A location's device state's sort-key prefix; the location id follows. */
const STATE = 'MATRIQ#';

export const matriqKeys = {
  state: (groupId: string, locationId: string) => ({ PK: groupPartition(groupId), SK: `${STATE}${locationId}` }),
  /** Commands are found by id alone (the gateway reports results by command id). */
  command: (commandId: string) => ({ PK: `MATRIQ_COMMAND#${commandId}`, SK: 'COMMAND' }),
  /** The GSI1 partition a queued command waits in: its id's last hex digit spreads them. */
  queuedShard: (commandId: string) => `STOP_QUEUED#${parseInt(commandId.slice(-1), 16) % QUEUED_SHARDS}`,
  queuedShards: () => Array.from({ length: QUEUED_SHARDS }, (_, i) => `STOP_QUEUED#${i}`),
};

/** A new command's delivery: due at once, unsent, expiring STOP_COMMAND_LIFETIME_MS after its request unless told. */
export type NewStopCommand = Omit<StopCommand, keyof StopDelivery> & Partial<Pick<StopDelivery, 'expiresAt'>>;

export function matriqRepo(db: Db) {
  /** A command, and the order of the report that completed it (null while it is queued). */
  async function commandResult(commandId: string): Promise<{ command: StopCommand; resultOrder: SourceOrder | null } | null> {
    const item = await getItem(db, matriqKeys.command(commandId), true);
    if (!item) return null;
    const resultOrder = typeof item.sourceMs === 'number' ? { sourceMs: item.sourceMs, sequence: Number(item.sequence) } : null;
    return { command: withoutKeys<StopCommand>(item), resultOrder };
  }
  return {
    async get(groupId: string, locationId: string): Promise<MatriqState | null> {
      const item = await getItem(db, matriqKeys.state(groupId, locationId));
      return item ? withoutKeys<MatriqState>(item) : null;
    },
    /**
     * The states of a page of locations (`locationIds` in id order), by location id: one Query over their range,
     * whose read units follow the states' bytes, where a read of each would take at least half a unit apiece.
     */
    async statesOfPage(groupId: string, locationIds: readonly string[]): Promise<Map<string, MatriqState>> {
      const items = await itemsOfPage(db, groupId, STATE, locationIds, false);
      return new Map([...items].map(([id, item]) => [id, withoutKeys<MatriqState>(item)]));
    },
    /** A location's state as its gateway reported it, whole, in the source's order. */
    putInOrder: (state: MatriqState, order: SourceOrder): Promise<OrderedOutcome> =>
      putInOrder(db, { ...matriqKeys.state(state.groupId, state.locationId), ...state }, order),
    /**
     * The scheduler's runtime after the gateway applied a stop, `at` the stop's time, in the order of the report that
     * completed it: one conditional UpdateItem that also moves the state's order there, so an older state report
     * arriving later is stale (it cannot start the scheduler again) and a newer one stands (the stop is left out).
     * False when the state is absent or newer; setting the same values twice is harmless.
     */
    async markStopped(groupId: string, locationId: string, at: string, order: SourceOrder): Promise<boolean> {
      const newer = newerThanStored(order);
      return applied(
        updateItem(db, {
          Key: matriqKeys.state(groupId, locationId),
          ConditionExpression: `attribute_exists(PK) AND (${newer.ConditionExpression})`,
          UpdateExpression:
            'SET scheduler.emergencyStopActive = :true, scheduler.running = :false, scheduler.lastStopAt = :at, scheduler.statusUpdatedAt = :at, updatedAt = :at, sourceMs = :ms, #seq = :seq',
          ExpressionAttributeNames: newer.ExpressionAttributeNames,
          ExpressionAttributeValues: { ...newer.ExpressionAttributeValues, ':true': true, ':false': false, ':at': at },
        }),
      );
    },
    getCommand: async (commandId: string): Promise<StopCommand | null> => (await commandResult(commandId))?.command ?? null,
    commandResult,
    /**
     * Creates the command, queued and unsent, in its queued partition, unless its id exists; false when it already
     * did (an idempotent retry). Returns the command as stored.
     */
    async createCommand(input: NewStopCommand): Promise<StopCommand | null> {
      const command: StopCommand = {
        ...input,
        expiresAt: input.expiresAt ?? new Date(Date.parse(input.requestedAt) + STOP_COMMAND_LIFETIME_MS).toISOString(),
        publishedAt: null,
        lastSentAt: null,
        sends: 0,
        failure: null,
      };
      const created = await applied(
        putItem(db, {
          Item: {
            ...matriqKeys.command(command.commandId),
            GSI1PK: matriqKeys.queuedShard(command.commandId),
            GSI1SK: `${command.requestedAt}#${command.commandId}`,
            ...command,
          },
          ConditionExpression: 'attribute_not_exists(PK)',
        }),
      );
      return created ? command : null;
    },
    /**
     * Records a send of a queued command that had been sent `seen` times (the first also as its publication); false
     * when it is no longer queued or another send was recorded meanwhile (the message went out all the same: at
     * least once).
     */
    markSent: (commandId: string, seen: number, at: string) =>
      applied(
        updateItem(db, {
          Key: matriqKeys.command(commandId),
          ConditionExpression: '#status = :queued AND sends = :seen',
          UpdateExpression: `SET sends = :next, lastSentAt = :at${seen === 0 ? ', publishedAt = :at' : ''}`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':queued': 'queued', ':seen': seen, ':next': seen + 1, ':at': at },
        }),
      ),
    /** Queued commands of one partition, oldest first, at most `limit` (the index may still list one just completed). */
    async queuedCommands(shard: string, limit: number): Promise<StopCommand[]> {
      const { items } = await queryPage(db, gsi1Partition(shard), limit);
      return items.map((item) => withoutKeys<StopCommand>(item));
    },
    /**
     * Ends a queued command past its expiry as failed (`failure: 'expired'`), out of the queued partition; false when
     * it is no longer queued (a report came first) or not yet expired.
     */
    expireCommand: (commandId: string, at: string) =>
      applied(
        updateItem(db, {
          Key: matriqKeys.command(commandId),
          ConditionExpression: '#status = :queued AND expiresAt <= :at',
          UpdateExpression: 'SET #status = :failed, completedAt = :at, failure = :expired REMOVE GSI1PK, GSI1SK',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':queued': 'queued', ':failed': 'failed', ':expired': 'expired', ':at': at },
        }),
      ),
    /**
     * Moves a queued command to its result, keeping the order of the report that brought it (its result's order, which
     * a repeated report re-applies the stop in), out of the queued partition; false when it is not queued any more.
     */
    async completeCommand(commandId: string, status: Exclude<StopStatus, 'queued'>, at: string, order: SourceOrder): Promise<boolean> {
      return applied(
        updateItem(db, {
          Key: matriqKeys.command(commandId),
          ConditionExpression: '#status = :queued',
          UpdateExpression: 'SET #status = :status, completedAt = :at, sourceMs = :ms, #seq = :seq REMOVE GSI1PK, GSI1SK',
          ExpressionAttributeNames: { '#status': 'status', '#seq': 'sequence' },
          ExpressionAttributeValues: { ':queued': 'queued', ':status': status, ':at': at, ':ms': order.sourceMs, ':seq': order.sequence },
        }),
      );
    },
  };
}
