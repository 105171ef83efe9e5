/**
 * The admin route table, declared once, as data. API Gateway
 * (lib/constructs/api.ts, IAM authorization on every method), the local
 * gateway and the admin function's dispatch are derived from it; the admin
 * function's input rules are keyed by operation in lambdas/admin/inputs.ts.
 * It is kept apart from the /v1 route table so the public OpenAPI document
 * never lists an admin route.
 */
export type AdminRoute = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway resource path below ADMIN_ROOT; `{name}` is a path parameter. */
  path: string;
  /** Unique name; the admin function's implementation of the route. */
  operation: string;
  summary: string;
  /** Status of success: 201 create, 202 queued, 204 deleted (no body); absent: 200. */
  status?: 201 | 202 | 204;
  /** A larger body than the usual 16 KiB (a whole menu, a load file); absent → parseJsonBody's default. */
  maxBodyBytes?: number;
};

/** A row as declared, under its operation: its method and its path below ADMIN_ROOT/v1, e.g. `POST /apps/{clientId}/revoke`. */
type AdminRow = Omit<AdminRoute, 'method' | 'path' | 'operation'> & { route: `${AdminRoute['method']} /${string}` };

/** Every admin path starts here; IAM guards everything below it (the local gateway: the admin key). */
export const ADMIN_ROOT = '/admin';
const V1 = `${ADMIN_ROOT}/v1`;

/**
 * Bounds parsing only: what decides is the size of the item the menu builds,
 * which the store measures (413 past DynamoDB's 400 KB). JSON spends more
 * bytes on names and quotes than DynamoDB does, so a storable menu's body may
 * be larger than 400 KB.
 */
const MAX_MENU_BODY_BYTES = 1024 * 1024;

/**
 * An operator's load file, whole (the loads check all of it before writing any). Lambda takes a 6 MB event, in
 * which the body's quotes and line breaks count escaped: 4 MiB of JSON leaves that room; a larger file is split.
 */
const MAX_LOAD_BODY_BYTES = 4 * 1024 * 1024;

const ROWS = {
  createApp: {
    route: 'POST /apps',
    status: 201,
    summary: 'Create a client_credentials application; the client secret is in this response only',
  },
  listApps: {
    route: 'GET /apps',
    summary: 'List applications, optionally of one group or matching q (an id, or part of a name); never a secret',
  },
  showApp: { route: 'GET /apps/{clientId}', summary: 'Show one application' },
  revokeApp: {
    route: 'POST /apps/{clientId}/revoke',
    summary: 'Revoke an application; its tokens fail on their next use',
  },
  rotateClientSecret: {
    route: 'POST /apps/{clientId}/rotate-secret',
    summary:
      "New client secret, in this response only; the replaced one keeps working for overlapHours (0 to 168); endOldTokens (always with 0) ends the older secrets' tokens with it",
  },
  listTokenKeys: {
    route: 'GET /token-keys',
    summary: "The access-token key's versions: which signs, which verify until when, which are revoked; never a key",
  },
  rotateTokenKey: {
    route: 'POST /token-keys/rotate',
    summary: 'A new access-token key version signs from now; the replaced one verifies its tokens until they expire',
  },
  revokeTokenKey: {
    route: 'POST /token-keys/{version}/revoke',
    summary: 'Revoke an access-token key version: its tokens are refused from now on (a new version signs if it did)',
  },
  legacyReport: {
    route: 'GET /legacy-credentials',
    summary: 'Legacy bearer credentials with their application and last use, oldest first',
  },
  createLegacyApp: {
    route: 'POST /legacy-credentials',
    status: 201,
    summary: 'Create an application with a legacy bearer credential; the credential is in this response only',
  },
  listGroups: { route: 'GET /groups', summary: 'List groups' },
  putGroup: { route: 'PUT /groups/{groupId}', summary: 'Create or rename a group' },
  listLocations: {
    route: 'GET /groups/{groupId}/locations',
    summary: 'List the locations of a group',
  },
  putLocation: {
    route: 'PUT /groups/{groupId}/locations/{locationId}',
    summary: 'Create or replace a location of an existing group; modules not enabled are disabled',
  },
  addDestination: {
    route: 'POST /destinations',
    status: 201,
    summary: 'Add a webhook destination; the signing secret is in this response only',
  },
  listDestinations: {
    route: 'GET /destinations',
    summary: 'List destinations, optionally of one application or matching q (an id, or part of a name or host); never a secret',
  },
  showDestination: {
    route: 'GET /destinations/{destinationId}',
    summary: 'Health, safe hostname, last success and failure, the last three deliveries',
  },
  editDestination: {
    route: 'PATCH /destinations/{destinationId}',
    summary: 'Change name, URL (blank keeps it) or locations; the secret is kept',
  },
  removeDestination: {
    route: 'DELETE /destinations/{destinationId}',
    status: 204,
    summary: 'Delete a destination with its subscription and secret',
  },
  listDeliveries: {
    route: 'GET /destinations/{destinationId}/deliveries',
    summary: "A destination's deliveries, newest first, since a time, of one status if asked",
  },
  hourlyOutcomes: {
    route: 'GET /destinations/{destinationId}/hourly',
    summary: "A destination's deliveries of the last 24 hours by hour and status",
  },
  rotateSecret: {
    route: 'POST /destinations/{destinationId}/rotate-secret',
    summary: 'New signing secret, in this response only; the old one is invalid at once',
  },
  sendTest: {
    route: 'POST /destinations/{destinationId}/test',
    status: 202,
    summary: 'Queue a signed customer_api.webhook.test for a covered location',
  },
  disableDestination: {
    route: 'POST /destinations/{destinationId}/disable',
    summary: 'Stop dispatching to a destination',
  },
  enableDestination: {
    route: 'POST /destinations/{destinationId}/enable',
    summary: 'Dispatch to a destination again',
  },
  listEventDeliveries: {
    route: 'GET /deliveries',
    summary: "An event's deliveries, one per destination, each with its timeline",
  },
  showDelivery: {
    route: 'GET /deliveries/{deliveryId}',
    summary: "One delivery's story: status, next attempt and the timeline of its attempts and redrives; never a body",
  },
  listMenus: {
    route: 'GET /menus',
    summary: "A group's locations with their menus' revision, last publish, source health and waiting events",
  },
  showMenu: {
    route: 'GET /menus/{groupId}/{locationId}',
    summary: "A location's published menu (the API's data.menu), as publishMenu takes it back",
  },
  publishMenu: {
    route: 'PUT /menus/{groupId}/{locationId}',
    maxBodyBytes: MAX_MENU_BODY_BYTES,
    summary: "Publish a rebuilt beverage menu (the shape of the API's data.menu)",
  },
  loadVenues: {
    route: 'POST /loads/venues',
    maxBodyBytes: MAX_LOAD_BODY_BYTES,
    summary: 'Create or replace groups with their locations from a venue file {groups}; nothing is written unless all of it is valid',
  },
  loadShiftq: {
    route: 'POST /loads/shiftq/{groupId}/{locationId}',
    maxBodyBytes: MAX_LOAD_BODY_BYTES,
    summary: "Load a location's staff-and-operations entries {entries}; nothing is written unless every entry is valid",
  },
  loadSports: {
    route: 'POST /loads/sports',
    maxBodyBytes: MAX_LOAD_BODY_BYTES,
    summary:
      'Load sports schedules, provider environments and viewing data {schedules?, environments?, viewing?}, all valid or none written',
  },
  loadMatriq: {
    route: 'POST /loads/matriq',
    maxBodyBytes: MAX_LOAD_BODY_BYTES,
    summary: "Replace display-device state {locations}, each listed location's; nothing is written unless all of it is valid",
  },
  loadCampaigns: {
    route: 'POST /loads/campaigns',
    maxBodyBytes: MAX_LOAD_BODY_BYTES,
    summary: 'Create or replace campaigns {campaigns}; nothing is written unless every campaign and its locations are valid',
  },
  reportStopResult: {
    route: 'PUT /matriq/commands/{commandId}/result',
    summary: "Record the gateway's result {status: applied|failed} for an emergency-stop command; the same again is harmless",
  },
  listDeadLetters: {
    route: 'GET /dead-letters',
    summary: "Dead-lettered webhook deliveries with their destination's name, of one destination or matching q if asked, and the DLQ depth",
  },
  showDeadLetter: {
    route: 'GET /dead-letters/{deliveryId}',
    summary: 'One dead letter with its payload and backoff history',
  },
  redriveDeadLetter: {
    route: 'POST /dead-letters/{deliveryId}/redrive',
    summary: 'Queue one dead letter again; attempts start over',
  },
  redriveAllDeadLetters: {
    route: 'POST /dead-letters/redrive',
    summary: "Queue dead letters again a bounded page at a time: all, one destination's (destinationId), or a selection (deliveryIds)",
  },
  listMailSuppressions: {
    route: 'GET /mail-suppressions',
    summary: 'Owner addresses no mail goes to: SES reported them bouncing for good or complaining',
  },
  // The address goes in the body: an e-mail address is no path id.
  liftMailSuppression: {
    route: 'POST /mail-suppressions/lift',
    summary: 'Send owner mail to a suppressed address again, once its owner mended the mailbox',
  },
  listAudit: {
    route: 'GET /audit',
    summary: 'Changes made through this API, newest first: who, what, when, the request id; of one application or destination if asked',
  },
} as const satisfies Record<string, AdminRow>;

export type AdminOperation = keyof typeof ROWS;

export const ADMIN_ROUTES = Object.entries(ROWS).map(([operation, { route, ...row }]): AdminRoute & { operation: AdminOperation } => {
  const [method, path] = route.split(' ') as [AdminRoute['method'], string];
  return { method, path: `${V1}${path}`, operation: operation as AdminOperation, ...row };
});

/**
 * The admin API's IAM-authorized catch-all: any other method or path below
 * ADMIN_ROOT reaches the admin function (its 404, or 405 with Allow), never
 * the unauthenticated `$default` route. A greedy variable takes one segment or more.
 */
export const ADMIN_PROXY_PATH = `${ADMIN_ROOT}/{proxy+}`;

/** Whether API Gateway sends this (decoded) path to an admin route, and so asks for a SigV4 signature first. */
export function isAdminPath(path: string): boolean {
  return path.startsWith(`${ADMIN_ROOT}/`) && path.length > ADMIN_ROOT.length + 1;
}

/**
 * The console's prefix to the same admin function (docs/decisions/console.md):
 * API Gateway allows one authorizer per route, so the console's Cognito
 * (JWT) routes mirror the IAM-authorized ones below another prefix.
 */
export const CONSOLE_API_ROOT = '/console-api';
/** The Cognito group whose members may use the console. */
export const CONSOLE_ADMIN_GROUP = 'admins';
export const consolePathOf = (adminPath: string): string => `${CONSOLE_API_ROOT}${adminPath.slice(ADMIN_ROOT.length)}`;
/** The admin path a console path stands for; null for any other path. */
export const adminPathOf = (path: string): string | null =>
  path.startsWith(`${CONSOLE_API_ROOT}/`) ? `${ADMIN_ROOT}${path.slice(CONSOLE_API_ROOT.length)}` : null;
