import { awsClients, buildMessagingDeps } from '#lambdas/webhooks/deps';
import { ADMIN_REPOSITORIES, type AdminDeps, type AdminStore } from './deps.js';
import { ADMIN_ROUTES, type AdminRoute } from '#contract/admin-routes';
import { fromConsole } from './console-access.js';
import { ApiError } from '#contract/errors';
import { isId } from '#contract/ids';
import { httpShell, inputRefusal, jsonResponse } from '#platform/http';
import { parseJsonBody, validatedQuery } from '#platform/input';
import { pathResolver, routeOfEvent } from '#platform/api-handler';
import { destinationOwner, recordChange } from './audit.js';
import { ADMIN_INPUTS } from './inputs.js';
import { operations } from './operations.js';
import { configFromEnv } from '#platform/config';
import { sesMailer } from '#platform/ses-mailer';

const resolveAdminPath = pathResolver<AdminRoute>(ADMIN_ROUTES);
const NOT_FOUND = 'No admin resource exists at this path.';

/**
 * The admin HTTP API: apps, destinations, menu publishing and dead letters,
 * the same domain functions the admin CLI runs. Who may call it is decided
 * before this runs (IAM on every method in AWS, the admin key locally), so it
 * only routes, validates and maps the domain's refusals to statuses.
 */
export function createHandler(deps: AdminDeps) {
  return httpShell('admin', deps, { refusalOf: inputRefusal }).handler(async (originalEvent, context) => {
    const { event, consoleUser } = fromConsole(originalEvent);
    // The IAM principal API Gateway verified, or the console's signed-in user; null locally, where the admin key stands in.
    context.caller = consoleUser ?? event.requestContext.identity?.userArn ?? null;
    const { route, params } = routeOfEvent<AdminRoute>(event, ADMIN_ROUTES, resolveAdminPath, NOT_FOUND);
    const operation = route.operation as keyof typeof operations;
    context.operation = operation;
    // Every admin path parameter is an id; one that breaks the id rule names nothing.
    if (!Object.values(params).every(isId)) throw new ApiError('not_found', NOT_FOUND);
    const input = ADMIN_INPUTS[operation] ?? {};
    const query = input.query ? validatedQuery(event, input.query, Object.keys(input.query.entries)) : {};
    // Routes without a body schema take no body at all.
    if (!input.body && event.body) throw new ApiError('invalid_request', 'This request takes no body.');
    const body = input.body ? parseJsonBody(event, input.body, route.maxBodyBytes) : undefined;
    // Every route but a read changes something: it is recorded once it has succeeded (docs/decisions/audit.md).
    const changes = route.method !== 'GET';
    const before = changes ? await destinationOwner(deps, params) : {};
    const now = deps.clock.now();
    const remainingMs = () => context.getRemainingTimeInMillis();
    const document = await operations[operation]({ params, query, body, now, remainingMs }, deps);
    if (changes) {
      const { requestId } = event.requestContext;
      const actor = context.caller ?? LOCAL_ACTOR;
      // The change is made: a trail that cannot be written is an operator's alarm, never the caller's error (a retry would change twice).
      await recordChange(deps, { operation, requestId, actor, at: now, params, before, body, document }).catch((err: Error) =>
        deps.logger.error('audit entry not written', { requestId, operation, error: err.name }),
      );
    }
    if (route.status === 204) return { statusCode: 204, headers: { 'Cache-Control': 'no-store' }, body: '' };
    return jsonResponse(route.status ?? 200, document);
  });
}

/** Who changed something locally, where the admin key stands in for IAM. */
const LOCAL_ACTOR = 'local-admin-key';

/** The Lambda entry (lib/functions.ts). */
export const handler = createHandler(
  buildMessagingDeps<AdminStore>(awsClients(), { mailer: sesMailer(configFromEnv().mailFrom) }, ADMIN_REPOSITORIES),
);
