import { createApp } from '#lambdas/admin/apps';
import { loadVenues, type VenueFile } from '#lambdas/producers/loads/venues';
import { SCOPES } from '#contract/scopes';
import { seedVenueModules } from './seed-venue-modules.js';
import { seedShiftq } from '#ingest/shiftq-demo-data';
import { type LocalStore } from './repositories.js';

export const DEMO_GROUP_ID = 'demo-group';

const ALL_MODULES = { shiftq: true, sportsq: true, matriq: true, campaigns: true, orderboard: true, bevq: true };

/** One group, four locations in four time zones (one outside the US on each side of UTC). */
export const DEMO_VENUES: VenueFile = {
  groups: [
    {
      groupId: DEMO_GROUP_ID,
      name: 'Demo Hospitality Group',
      locations: [
        {
          id: 'nyc-midtown',
          name: 'Midtown Taproom',
          locationShortName: 'Midtown',
          timezone: 'America/New_York',
          slug: 'midtown-taproom',
          modulesEnabled: ALL_MODULES,
        },
        {
          id: 'denver-union',
          name: 'Union Station Grill',
          locationShortName: 'Union',
          timezone: 'America/Denver',
          slug: 'union-station-grill',
          modulesEnabled: { ...ALL_MODULES, orderboard: false },
        },
        {
          id: 'london-soho',
          name: 'Soho Alehouse',
          locationShortName: 'Soho',
          timezone: 'Europe/London',
          slug: 'soho-alehouse',
          modulesEnabled: { ...ALL_MODULES, campaigns: false },
        },
        {
          id: 'sydney-harbour',
          name: 'Harbour Bar',
          locationShortName: 'Harbour',
          timezone: 'Australia/Sydney',
          slug: 'harbour-bar',
          modulesEnabled: { ...ALL_MODULES, matriq: false },
        },
      ],
    },
  ],
};

export type DemoCredentials = { groupId: string; clientId: string; clientSecret: string };

/** Seeds the demo venues and one group-wide application holding every scope. */
export async function seedDemo(store: LocalStore, now: number): Promise<DemoCredentials> {
  await loadVenues(store, DEMO_VENUES, now);
  await seedVenueModules(store, now);
  await seedShiftq(store, now, DEMO_GROUP_ID);
  return createDemoApp(store, now);
}

/** The demo group's application holding every scope; its secret is shown once, here. */
export async function createDemoApp(store: LocalStore, now: number): Promise<DemoCredentials> {
  const { app, clientSecret } = await createApp(
    store,
    { groupId: DEMO_GROUP_ID, name: 'Demo backend', scopes: [...SCOPES], ownerEmail: 'owner@demo.example' },
    now,
  );
  return { groupId: DEMO_GROUP_ID, clientId: app.clientId, clientSecret: clientSecret! };
}
