import type { GenericSchema } from 'valibot';
import * as bevq from './bevq.js';
import * as campaigns from './campaigns.js';
import * as discovery from './discovery.js';
import * as matriq from './matriq.js';
import * as orderboard from './orderboard.js';
import * as shiftq from './shiftq.js';
import * as sportsq from './sportsq.js';

/** The modules of the response schemas: the OpenAPI document names the schemas they export after them (openapi.ts). */
export const RESPONSE_MODULES = { bevq, campaigns, discovery, matriq, orderboard, shiftq, sportsq };

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
