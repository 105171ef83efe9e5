import type { Route } from '#contract/routes';

/**
 * Each /v1 route's one-line summary, for the OpenAPI document only: kept out
 * of the route table so no function bundle carries documentation text.
 */
export const ROUTE_SUMMARIES: Record<Route['operation'], string> = {
  issueToken: 'Exchange client credentials for a 24-hour access token',
  openapi: 'This OpenAPI 3.1 document',
  listLocations: 'Accessible locations, enabled modules, granted resources and the token block',
  groupModules: 'Modules of the group and which accessible locations have each enabled',
  locationModules: "A location's modules, whether each is granted, and its granted resources",
  locationSummary: 'Location summary (the `root` endpoint)',
  bevqGroup: 'Beverage-menu availability across the accessible locations of the group',
  bevqLocation: "A location's beverage-menu status and menu endpoint",
  bevqMenu: 'The complete beverage menu (ETag; If-None-Match gives 304 when unchanged)',
  sportsGuide: 'Legacy sports guide for one date (default: the current business date); retained for existing integrations',
  sportsProvider: "The location's sports provider environment and today's provider-availability health",
  sportsPackages: 'Legacy package catalog plus the canonical packages projection',
  sportsProgramming: 'Programming for exactly one date (YYYY-MM-DD) with schedule and provider health; never another day',
  matriqOverview: 'Display-device overview: device ids, provider count, Auto Scheduler published/running',
  matriqGateway: "The location's device gateway and its health",
  matriqDevices: 'Display devices and their health',
  matriqProviderAvailable: 'Provider availability for the active business date (legacy compatibility shape)',
  providerAvailableAlias: 'Direct alias of matriq/providerAvailable',
  matriqAiScheduler: 'Auto Scheduler state, the current published draft and the emergency-stop action',
  matriqEmergencyStop: 'Queue an emergency stop of the Auto Scheduler (Idempotency-Key supported)',
  groupCampaigns: 'Campaigns across the accessible campaign-enabled locations of the group',
  locationCampaigns: "A location's campaigns and its display-device status",
  orderboard: 'Order-board placeholder (coming soon)',
  sportsLogo: 'A sports logo image (public; long-lived cache, ETag)',
  shiftqOverview: 'Overview: summary counts of the current business date (2.3)',
  shiftqSales: 'Sales snapshot of a business date with a same-weekday prior-week compare',
  shiftqLabor: 'Labor summary of a business date',
  shiftqKitchen: 'Kitchen ticket averages: current snapshot and the requested business date (2.4)',
  shiftqClockIns: 'Clock-ins, role coverage and attendance exceptions of the current business date',
  shiftqPosMenu: 'POS menu with its stock overlay',
  shiftqEmployees: 'Employee, job, shift and time-entry collections',
  shiftqReservations: 'Reservations from the POS reservation digest (2.5)',
  shiftqToastReservations: 'Alias of shiftq/reservations (2.5)',
  shiftqReviews: 'Provider-neutral reviews, newest first, with bounded filters and opaque signed page tokens (2.6)',
  shiftqGroupLeaderboard: 'Accessible locations ranked by net sales and lowest labor, discounts and voids percentages (2.7)',
};
