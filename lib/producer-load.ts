import { PRODUCER_CADENCE_MINUTES, PRODUCER_ROUTES, type Producer, type ProducerOperation } from '#lambdas/producers/routes';

/**
 * What the producers send at a platform's load, declared once: each feed (a producer route, and the shiftq resource
 * where the route serves several) and how often one location's update of it comes, from the contract's cadences
 * (2.12: every 5 minutes for sales, labor, kitchen averages, clock-ins, POS stock and sports data; employees and
 * shifts 5 to 15 minutes, taken at 5; the stock overlay every 5 minutes) and, where the contract gives none, a stated
 * assumption below. The producer route's throttle and reservation derive from it (lib/route-throttles.ts,
 * lib/functions.ts); the capacity model's write side (bench/capacity-writes.ts) puts measured units on each feed.
 */

/** The platform the stack is sized for: 10,000 locations. */
export const PRODUCER_LOCATIONS = 10_000;

const HOUR_MINUTES = 60;
const DAY_HOURS = 24;
const perHourEvery = (minutes: number) => HOUR_MINUTES / minutes;
/** The POS sync's clock (contract 2.12: every 5 minutes). */
const POS_EVERY = PRODUCER_CADENCE_MINUTES['pos-sync']!;
const SPORTS_EVERY = PRODUCER_CADENCE_MINUTES['sports-sync']!;
const DEVICES_EVERY = PRODUCER_CADENCE_MINUTES['device-platform']!;

/** Employees, jobs, shifts and time entries: the contract's 5 to 15 minutes, modelled at the fastest. */
const EMPLOYEES_EVERY_MINUTES = 5;
/** Assumed: the POS sends its reservation digest every 15 minutes (the contract: "on ingest of the digest"). */
const RESERVATION_DIGEST_MINUTES = 15;
/**
 * Assumed: 40 reviews a location a day (new ones and new versions of old ones, over four providers), each sent in a
 * batch of its own (the most requests a given number of reviews can take).
 */
export const REVIEWS_PER_LOCATION_PER_DAY = 40;
/** Assumed: device events (a device reporting, an availability change, a publish, a draft change) a location an hour, each a whole state. */
const DEVICE_EVENTS_PER_LOCATION_PER_HOUR = 12;
/** Assumed: one full menu rebuild a location a day (the contract: initial or manually forced syncs only). */
const MENU_REBUILDS_PER_LOCATION_PER_DAY = 1;
/** Assumed: one emergency stop a location a day, and one venue-directory update of each location a day (both on change). */
const STOPS_PER_LOCATION_PER_DAY = 1;
const LOCATION_UPDATES_PER_DAY = 1;
/** Assumed: one campaign update a day for every CAMPAIGN_LOCATIONS locations, each naming that many (a link each). */
export const CAMPAIGN_LOCATIONS = 100;
/** Assumed: the sports sync sends the schedule of two dates (today's and tomorrow's) on its clock, the same for every location. */
const SCHEDULE_DATES = 2;

export type Feed = {
  /** The feed's name in the model's tables. */
  name: string;
  operation: ProducerOperation;
  /** The shiftq resource of the route's `{resource}`, where it serves several. */
  resource?: string;
  /** Updates an hour: of each location, or of the whole platform (`platform`: one schedule for every location). */
  perHour: number;
  scope: 'location' | 'platform';
  /** Where the rate comes from. */
  basis: string;
};

const feed = (name: string, operation: ProducerOperation, perHour: number, basis: string, resource?: string): Feed => ({
  name,
  operation,
  ...(resource ? { resource } : {}),
  perHour,
  scope: 'location',
  basis,
});
const posClock = `every ${POS_EVERY} min (contract 2.12)`;

export const PRODUCER_FEEDS: readonly Feed[] = [
  feed('sales', 'putShiftqDay', perHourEvery(POS_EVERY), posClock, 'sales'),
  feed('labor', 'putShiftqDay', perHourEvery(POS_EVERY), posClock, 'labor'),
  feed('kitchen tickets', 'putShiftqDay', perHourEvery(POS_EVERY), posClock, 'kitchen'),
  feed('clock-ins', 'putShiftqDay', perHourEvery(POS_EVERY), posClock, 'clockIns'),
  feed('POS menu and stock', 'putShiftqCurrent', perHourEvery(POS_EVERY), posClock, 'posMenu'),
  feed('employees and shifts', 'putShiftqCurrent', perHourEvery(EMPLOYEES_EVERY_MINUTES), '5 to 15 min, at 5', 'employees'),
  feed(
    'reservations digest',
    'putShiftqCurrent',
    perHourEvery(RESERVATION_DIGEST_MINUTES),
    `a digest every ${RESERVATION_DIGEST_MINUTES} min (assumed)`,
    'reservations',
  ),
  feed(
    'reviews',
    'putShiftqReviews',
    REVIEWS_PER_LOCATION_PER_DAY / DAY_HOURS,
    `${REVIEWS_PER_LOCATION_PER_DAY} a day, one a batch (assumed)`,
  ),
  feed('menu stock overlay', 'patchMenuStock', perHourEvery(POS_EVERY), `every ${POS_EVERY} min (contract 2.12)`),
  feed('menu reconciliation report', 'putMenuReconciliation', perHourEvery(POS_EVERY), 'one a stock sync'),
  feed(
    'menu rebuild',
    'putMenu',
    MENU_REBUILDS_PER_LOCATION_PER_DAY / DAY_HOURS,
    `${MENU_REBUILDS_PER_LOCATION_PER_DAY} a day (assumed; forced syncs only)`,
  ),
  feed('sports environment', 'putSportsEnvironment', perHourEvery(SPORTS_EVERY), `every ${SPORTS_EVERY} min (contract 2.12)`),
  feed("sports viewing, today's", 'putSportsViewing', perHourEvery(SPORTS_EVERY), `every ${SPORTS_EVERY} min (contract 2.12)`),
  {
    name: 'sports schedules',
    operation: 'putSportsSchedule',
    perHour: SCHEDULE_DATES * perHourEvery(SPORTS_EVERY),
    scope: 'platform',
    basis: `${SCHEDULE_DATES} dates every ${SPORTS_EVERY} min, for every location at once`,
  },
  feed(
    'device state',
    'putMatriqState',
    perHourEvery(DEVICES_EVERY) + DEVICE_EVENTS_PER_LOCATION_PER_HOUR,
    `gateway health every ${DEVICES_EVERY} min + ${DEVICE_EVENTS_PER_LOCATION_PER_HOUR} device events an hour (assumed)`,
  ),
  feed('provider availability', 'putMatriqProviders', perHourEvery(DEVICES_EVERY), `every ${DEVICES_EVERY} min (assumed)`),
  feed(
    'emergency-stop results',
    'putMatriqStopResult',
    STOPS_PER_LOCATION_PER_DAY / DAY_HOURS,
    `${STOPS_PER_LOCATION_PER_DAY} a day (assumed)`,
  ),
  feed('locations', 'putLocation', LOCATION_UPDATES_PER_DAY / DAY_HOURS, `${LOCATION_UPDATES_PER_DAY} a day (assumed)`),
  feed(
    'campaigns',
    'putCampaign',
    1 / DAY_HOURS / CAMPAIGN_LOCATIONS,
    `1 a day per ${CAMPAIGN_LOCATIONS} locations, ${CAMPAIGN_LOCATIONS} links each (assumed)`,
  ),
  // A group's own update (putGroup: its name) is left out: one a group, on a rename.
];

/** The producer class a feed's route belongs to. */
export const producerOf = (feed: Pick<Feed, 'operation'>): Producer =>
  PRODUCER_ROUTES.find((r) => r.operation === feed.operation)!.producer;

/** A feed's updates a second at `locations` locations. */
export const feedRate = (feed: Feed, locations: number): number => (feed.scope === 'location' ? locations : 1) * (feed.perHour / 3600);

/** Every producer's updates a second at `locations` locations. */
export const producerRequestsPerSecond = (locations: number): number => PRODUCER_FEEDS.reduce((n, f) => n + feedRate(f, locations), 0);
