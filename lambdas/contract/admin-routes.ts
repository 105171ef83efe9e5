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
  /** A larger body than the usual 16 KiB (a whole menu); absent → parseJsonBody's default. */
  maxBodyBytes?: number;
};

/** A row as declared: its method and its path below ADMIN_ROOT/v1, e.g. `POST /apps/{clientId}/revoke`. */
type AdminRow = Omit<AdminRoute, 'method' | 'path'> & { route: `${AdminRoute['method']} /${string}` };

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

const ROWS = [
  {
    route: 'POST /apps',
    operation: 'createApp',
    status: 201,
    summary: 'Create a client_credentials application; the client secret is in this response only',
  },
  {
    route: 'GET /apps',
    operation: 'listApps',
    summary: 'List applications, optionally of one group or matching q (an id, or part of a name); never a secret',
  },
  { route: 'GET /apps/{clientId}', operation: 'showApp', summary: 'Show one application' },
  {
    route: 'POST /apps/{clientId}/revoke',
    operation: 'revokeApp',
    summary: 'Revoke an application; its tokens fail on their next use',
  },
  {
    route: 'POST /apps/{clientId}/rotate-secret',
    operation: 'rotateClientSecret',
    summary:
      "New client secret, in this response only; the replaced one keeps working for overlapHours (0 to 168); endOldTokens (always with 0) ends the older secrets' tokens with it",
  },
  {
    route: 'GET /token-keys',
    operation: 'listTokenKeys',
    summary: "The access-token key's versions: which signs, which verify until when, which are revoked; never a key",
  },
  {
    route: 'POST /token-keys/rotate',
    operation: 'rotateTokenKey',
    summary: 'A new access-token key version signs from now; the replaced one verifies its tokens until they expire',
  },
  {
    route: 'POST /token-keys/{version}/revoke',
    operation: 'revokeTokenKey',
    summary: 'Revoke an access-token key version: its tokens are refused from now on (a new version signs if it did)',
  },
  {
    route: 'GET /legacy-credentials',
    operation: 'legacyReport',
    summary: 'Legacy bearer credentials with their application and last use, oldest first',
  },
  {
    route: 'POST /legacy-credentials',
    operation: 'createLegacyApp',
    status: 201,
    summary: 'Create an application with a legacy bearer credential; the credential is in this response only',
  },
  { route: 'GET /groups', operation: 'listGroups', summary: 'List groups' },
  { route: 'PUT /groups/{groupId}', operation: 'putGroup', summary: 'Create or rename a group' },
  {
    route: 'GET /groups/{groupId}/locations',
    operation: 'listLocations',
    summary: 'List the locations of a group',
  },
  {
    route: 'PUT /groups/{groupId}/locations/{locationId}',
    operation: 'putLocation',
    summary: 'Create or replace a location of an existing group; modules not enabled are disabled',
  },
  {
    route: 'POST /destinations',
    operation: 'addDestination',
    status: 201,
    summary: 'Add a webhook destination; the signing secret is in this response only',
  },
  {
    route: 'GET /destinations',
    operation: 'listDestinations',
    summary: 'List destinations, optionally of one application or matching q (an id, or part of a name or host); never a secret',
  },
  {
    route: 'GET /destinations/{destinationId}',
    operation: 'showDestination',
    summary: 'Health, safe hostname, last success and failure, the last three deliveries',
  },
  {
    route: 'PATCH /destinations/{destinationId}',
    operation: 'editDestination',
    summary: 'Change name, URL (blank keeps it) or locations; the secret is kept',
  },
  {
    route: 'DELETE /destinations/{destinationId}',
    operation: 'removeDestination',
    status: 204,
    summary: 'Delete a destination with its subscription and secret',
  },
  {
    route: 'GET /destinations/{destinationId}/deliveries',
    operation: 'listDeliveries',
    summary: "A destination's deliveries, newest first, since a time, of one status if asked",
  },
  {
    route: 'GET /destinations/{destinationId}/hourly',
    operation: 'hourlyOutcomes',
    summary: "A destination's deliveries of the last 24 hours by hour and status",
  },
  {
    route: 'POST /destinations/{destinationId}/rotate-secret',
    operation: 'rotateSecret',
    summary: 'New signing secret, in this response only; the old one is invalid at once',
  },
  {
    route: 'POST /destinations/{destinationId}/test',
    operation: 'sendTest',
    status: 202,
    summary: 'Queue a signed customer_api.webhook.test for a covered location',
  },
  {
    route: 'POST /destinations/{destinationId}/disable',
    operation: 'disableDestination',
    summary: 'Stop dispatching to a destination',
  },
  {
    route: 'POST /destinations/{destinationId}/enable',
    operation: 'enableDestination',
    summary: 'Dispatch to a destination again',
  },
  {
    route: 'GET /deliveries',
    operation: 'listEventDeliveries',
    summary: "An event's deliveries, one per destination, each with its timeline",
  },
  {
    route: 'GET /deliveries/{deliveryId}',
    operation: 'showDelivery',
    summary: "One delivery's story: status, next attempt and the timeline of its attempts and redrives; never a body",
  },
  {
    route: 'GET /menus',
    operation: 'listMenus',
    summary: "A group's locations with their menus' revision, last publish, source health and waiting events",
  },
  {
    route: 'PUT /menus/{groupId}/{locationId}',
    operation: 'publishMenu',
    maxBodyBytes: MAX_MENU_BODY_BYTES,
    summary: "Publish a rebuilt beverage menu (the shape of the API's data.menu)",
  },
  {
    route: 'GET /dead-letters',
    operation: 'listDeadLetters',
    summary: "Dead-lettered webhook deliveries with their destination's name, of one destination or matching q if asked, and the DLQ depth",
  },
  {
    route: 'GET /dead-letters/{deliveryId}',
    operation: 'showDeadLetter',
    summary: 'One dead letter with its payload and backoff history',
  },
  {
    route: 'POST /dead-letters/{deliveryId}/redrive',
    operation: 'redriveDeadLetter',
    summary: 'Queue one dead letter again; attempts start over',
  },
  {
    route: 'POST /dead-letters/redrive',
    operation: 'redriveAllDeadLetters',
    summary: "Queue dead letters again a bounded page at a time: all, one destination's (destinationId), or a selection (deliveryIds)",
  },
  {
    route: 'GET /mail-suppressions',
    operation: 'listMailSuppressions',
    summary: 'Owner addresses no mail goes to: SES reported them bouncing for good or complaining',
  },
  // The address goes in the body: an e-mail address is no path id.
  {
    route: 'POST /mail-suppressions/lift',
    operation: 'liftMailSuppression',
    summary: 'Send owner mail to a suppressed address again, once its owner mended the mailbox',
  },
  {
    route: 'GET /audit',
    operation: 'listAudit',
    summary: 'Changes made through this API, newest first: who, what, when, the request id; of one application or destination if asked',
  },
] as const satisfies readonly AdminRow[];

export type AdminOperation = (typeof ROWS)[number]['operation'];

export const ADMIN_ROUTES = ROWS.map(({ route, ...row }): AdminRoute & { operation: AdminOperation } => {
  const [method, path] = route.split(' ') as [AdminRoute['method'], string];
  return { method, path: `${V1}${path}`, ...row };
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
