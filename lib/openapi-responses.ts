import type { GenericSchema } from 'valibot';
import * as bevq from '#contract/schemas/bevq';
import * as campaigns from '#lambdas/campaigns/schemas';
import * as discovery from '#contract/schemas/discovery';
import * as matriq from '#contract/schemas/matriq';
import * as orderboard from '#lambdas/orderboard/schemas';
import * as shiftq from '#lambdas/shiftq/schemas';
import * as shiftqKitchen from '#lambdas/shiftq/kitchen-schemas';
import * as sportsq from '#contract/schemas/sportsq';

/** The modules of the response schemas: the OpenAPI document names the schemas they export after them (openapi.ts). */
export const RESPONSE_MODULES = { bevq, campaigns, discovery, matriq, orderboard, shiftqKitchen, shiftq, sportsq };

/**
 * The envelope `data` schema of each /v1 operation that answers JSON, by
 * the route table's operation name. Only the OpenAPI document and the tests
 * read it, so no function bundle carries the response schemas.
 */
export const RESPONSE_DATA: Readonly<Record<string, GenericSchema>> = {
  listLocations: discovery.locationsData,
  groupModules: discovery.groupModulesData,
  locationModules: discovery.locationModulesData,
  locationSummary: discovery.locationSummaryData,
  bevqGroup: bevq.bevqGroupData,
  bevqLocation: bevq.bevqLocationData,
  bevqMenu: bevq.bevqMenuData,
  sportsGuide: sportsq.guideData,
  sportsProvider: sportsq.providerData,
  sportsPackages: sportsq.packagesData,
  sportsProgramming: sportsq.programmingData,
  matriqOverview: matriq.overviewData,
  matriqGateway: matriq.gatewayData,
  matriqDevices: matriq.devicesData,
  matriqProviderAvailable: matriq.providerAvailableData,
  providerAvailableAlias: matriq.providerAvailableData,
  matriqAiScheduler: matriq.aiSchedulerData,
  matriqEmergencyStop: matriq.emergencyStopData,
  groupCampaigns: campaigns.groupCampaignsData,
  locationCampaigns: campaigns.locationCampaignsData,
  orderboard: orderboard.orderboardData,
  shiftqOverview: shiftq.overviewData,
  shiftqSales: shiftq.salesData,
  shiftqLabor: shiftq.laborData,
  shiftqKitchen: shiftq.kitchenData,
  shiftqClockIns: shiftq.clockInsData,
  shiftqPosMenu: shiftq.posMenuData,
  shiftqEmployees: shiftq.employeesData,
  shiftqReservations: shiftq.reservationsData,
  shiftqToastReservations: shiftq.reservationsData,
  shiftqReviews: shiftq.reviewsData,
  shiftqGroupLeaderboard: shiftq.groupLeaderboardData,
};
