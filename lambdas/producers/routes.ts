/**
 * The producer route table, declared once, as data: the platform's systems that own venue data write it here
 * (docs/decisions/producers.md). API Gateway (one IAM-authorized catch-all below PRODUCER_ROOT), each producer's
 * policy (execute-api:Invoke on its own routes), the local gateway's producer keys and the producer function's
 * dispatch derive from it. Kept apart from the /v1 table so the public OpenAPI document never lists a producer route.
 */

/** The classes of producer: each a policy of its own, allowed its own routes only. */
export const PRODUCERS = ['venue-directory', 'pos-sync', 'sports-sync', 'device-platform', 'campaign-system'] as const;
export type Producer = (typeof PRODUCERS)[number];

/**
 * Minutes between the updates a class sends at the least, when it sends on a clock (contract 2.12: every 5 minutes
 * for the POS and sports data; the device platform's gateway health, assumed at the same pace); null when it sends
 * on change only, so its silence says nothing. A producer quiet past its stage's threshold raises an alarm.
 */
export const PRODUCER_CADENCE_MINUTES: Record<Producer, number | null> = {
  'venue-directory': null,
  'pos-sync': 5,
  'sports-sync': 5,
  'device-platform': 5,
  'campaign-system': null,
};

export type ProducerRoute = {
  method: 'PUT' | 'PATCH';
  /** API Gateway path below PRODUCER_ROOT; `{name}` is a path parameter. */
  path: string;
  /** Unique name; the producer function's implementation of the route. */
  operation: string;
  /** Who may call it. */
  producer: Producer;
  summary: string;
  /** A larger body than the usual 16 KiB (a kitchen day's tickets); absent → parseJsonBody's default. */
  maxBodyBytes?: number;
};

/** Every producer path starts here; IAM guards everything below it (the local gateway: the producer keys). */
export const PRODUCER_ROOT = '/producer';
const V1 = `${PRODUCER_ROOT}/v1`;

/**
 * Bounds parsing only: what decides is the size of the item an update builds (gzipped, within one item), which the
 * function measures. API Gateway and Lambda allow 6 MB; a busy kitchen day's tickets take a few.
 */
const MAX_UPDATE_BODY_BYTES = 6 * 1000 * 1000;

type ProducerRow = Omit<ProducerRoute, 'method' | 'path' | 'operation'> & { route: `${ProducerRoute['method']} /${string}` };

const ROWS = {
  putGroup: { route: 'PUT /groups/{groupId}', producer: 'venue-directory', summary: 'A group, created or renamed' },
  putLocation: {
    route: 'PUT /groups/{groupId}/locations/{locationId}',
    producer: 'venue-directory',
    summary: 'A location of an existing group, whole: modules not enabled are disabled',
  },
  putSportsSchedule: {
    route: 'PUT /sports/schedules/{date}',
    producer: 'sports-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "A calendar date's league schedule, the same for every location, whole",
  },
  putSportsEnvironment: {
    route: 'PUT /sports/{groupId}/{locationId}/environment',
    producer: 'sports-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "A location's provider environment: providers with their lineups, packages, regional sports networks",
  },
  putSportsViewing: {
    route: 'PUT /sports/{groupId}/{locationId}/viewing/{date}',
    producer: 'sports-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "A location's ways to watch each event of a date's schedule",
  },
  putShiftqDay: {
    route: 'PUT /shiftq/{groupId}/{locationId}/{resource}/{businessDate}',
    producer: 'pos-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "One business date of a location's kitchen tickets, sales, labor or clock-ins, whole",
  },
  putShiftqCurrent: {
    route: 'PUT /shiftq/{groupId}/{locationId}/{resource}',
    producer: 'pos-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "A location's POS menu and stock, employees or reservations digest as it is now, whole",
  },
  // Its literal segment wins over putShiftqCurrent's {resource}: pathResolver prefers a literal to a parameter.
  putShiftqReviews: {
    route: 'PUT /shiftq/{groupId}/{locationId}/reviews',
    producer: 'pos-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "A batch of a location's reviews, each replacing an older version of itself",
  },
  putMatriqState: {
    route: 'PUT /matriq/{groupId}/{locationId}/state',
    producer: 'device-platform',
    summary: "A location's device state, whole: its gateway, devices and Auto Scheduler",
  },
  putMatriqProviders: {
    route: 'PUT /matriq/{groupId}/{locationId}/providers',
    producer: 'device-platform',
    summary: "Whether each provider's feed is reachable at a location, for the providers the device platform watches there",
  },
  putMatriqStopResult: {
    route: 'PUT /matriq/commands/{commandId}/result',
    producer: 'device-platform',
    summary: "The gateway's result of an emergency-stop command: applied or failed",
  },
  putMenu: {
    route: 'PUT /menus/{groupId}/{locationId}',
    producer: 'pos-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "A location's beverage menu rebuilt whole (initial or forced sync); its source health is the reports'",
  },
  patchMenuStock: {
    route: 'PATCH /menus/{groupId}/{locationId}',
    producer: 'pos-sync',
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "The POS stock overlay: the changed items' availability and their sizes' prices and availability",
  },
  putMenuReconciliation: {
    route: 'PUT /menus/{groupId}/{locationId}/reconciliation',
    producer: 'pos-sync',
    summary: "The result of a POS reconciliation, succeeded or failed: what the menu's sourceHealth follows",
  },
  putCampaign: {
    route: 'PUT /campaigns/{groupId}/{campaignId}',
    producer: 'campaign-system',
    // Up to 1,000 location ids.
    maxBodyBytes: MAX_UPDATE_BODY_BYTES,
    summary: "A group's campaign, whole: its name, dates, pause and the locations it shows at",
  },
} as const satisfies Record<string, ProducerRow>;

export type ProducerOperation = keyof typeof ROWS;

export const PRODUCER_ROUTES = Object.entries(ROWS).map(
  ([operation, { route, ...row }]): ProducerRoute & { operation: ProducerOperation } => {
    const [method, path] = route.split(' ') as [ProducerRoute['method'], string];
    return { method, path: `${V1}${path}`, operation: operation as ProducerOperation, ...row };
  },
);

/** The IAM-authorized catch-all: any other method or path below PRODUCER_ROOT reaches the producer function's 404 or 405. */
export const PRODUCER_PROXY_PATH = `${PRODUCER_ROOT}/{proxy+}`;

/** Whether API Gateway sends this (decoded) path to the producer catch-all, and so asks for a SigV4 signature first. */
export const isProducerPath = (path: string): boolean => path.startsWith(`${PRODUCER_ROOT}/`) && path.length > PRODUCER_ROOT.length + 1;

/**
 * What a producer's policy allows, as execute-api resource paths below the stage (`PUT/producer/v1/shiftq/*`): each
 * of its routes with every path parameter a wildcard (IAM's `*` spans `/`, so a route's prefix up to its first
 * parameter stands for it).
 */
export function invokePathsOf(producer: Producer): string[] {
  const paths = PRODUCER_ROUTES.filter((r) => r.producer === producer).map((r) => `${r.method}${r.path.replace(/\{.*$/, '*')}`);
  return [...new Set(paths)].sort();
}
