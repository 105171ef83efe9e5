import type * as schemas from '#contract/schemas/matriq';
import { familyRoutes, readRow, type FamilyRows } from '#contract/routes';
import { emergencyStopBody } from '#contract/schemas/requests';

/** A matriq read: matriq:read governs it. */
const read = readRow<typeof schemas>('matriq:read');

/** The matriq family's routes (a route is one row: docs/development.md#adding-a-route). */
export const MATRIQ_ROUTES = familyRoutes('matriq', [
  read({
    path: '/v1/{group_id}/{location_id}/matriq',
    operation: 'matriqOverview',
    summary: 'Display-device overview: device ids, provider count, Auto Scheduler published/running',
    mix: 3,
    response: 'overviewData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/matriq/gateway',
    operation: 'matriqGateway',
    summary: "The location's device gateway and its health",
    mix: 1,
    response: 'gatewayData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/matriq/devices',
    operation: 'matriqDevices',
    summary: 'Display devices and their health',
    mix: 2,
    response: 'devicesData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/matriq/providerAvailable',
    operation: 'matriqProviderAvailable',
    legacy: true,
    summary: 'Provider availability for the active business date (legacy compatibility shape)',
    mix: 1,
    response: 'providerAvailableData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/providerAvailable',
    operation: 'providerAvailableAlias',
    legacy: true,
    summary: 'Direct alias of matriq/providerAvailable',
    mix: 0.5,
    response: 'providerAvailableData',
  }),
  read({
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler',
    operation: 'matriqAiScheduler',
    summary: 'Auto Scheduler state, the current published draft and the emergency-stop action',
    mix: 1,
    response: 'aiSchedulerData',
  }),
  {
    method: 'POST',
    path: '/v1/{group_id}/{location_id}/matriq/aiScheduler/emergency-stop',
    operation: 'matriqEmergencyStop',
    scope: 'matriq:ai-scheduler:stop',
    body: emergencyStopBody,
    fields: {
      reason: 'Why the stop is requested; a default text when absent',
      deviceId: "One of the Auto Scheduler's deviceIds; default: its first",
    },
    summary: 'Queue an emergency stop of the Auto Scheduler (Idempotency-Key supported)',
    mix: 0.05,
    response: 'emergencyStopData',
  },
] as const satisfies FamilyRows<typeof schemas>);
