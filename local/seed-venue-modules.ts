import { loadCampaigns } from '#lambdas/producers/loads/campaigns';
import { loadMatriq } from '#lambdas/producers/loads/matriq';
import { loadSports, type SportsFile } from '#lambdas/producers/loads/sports';
import { activeBusinessDate, addDays, formatCompactDate, formatIsoDate, parseCompactDate } from '#contract/business-date';
import { type LocalStore } from './repositories.js';

/**
 * Demo sports, display-device and campaign data for the demo group, relative
 * to `now` and deterministic. Dates are Midtown's business date D and its
 * neighbours: schedules for D-1..D+2; viewing data for Midtown D-1..D+1
 * (so D+2 is stale), Union D..D+1 with one provider down (partial), Harbour
 * D..D+2, and none for Soho (its viewing data is missing).
 */
const GROUP = 'demo-group';
const HOUR = 3_600_000;

type Sides = [home: [id: string, name: string], away: [id: string, name: string]];
const LEAGUES = {
  nfl: {
    sport: { id: 'football', name: 'Football' },
    league: { id: 'nfl', name: 'National Football League', abbreviation: 'NFL', image: 'nfl.svg' },
  },
  nba: {
    sport: { id: 'basketball', name: 'Basketball' },
    league: { id: 'nba', name: 'National Basketball Association', abbreviation: 'NBA', image: 'nba.svg' },
  },
  epl: {
    sport: { id: 'soccer', name: 'Soccer' },
    league: { id: 'epl', name: 'Premier League', abbreviation: 'EPL', image: 'premier-league.svg' },
  },
};

function event(date: string, league: keyof typeof LEAGUES, utcTime: string, [home, away]: Sides, venue: [string, string, string, string]) {
  const team = ([id, name]: [string, string], role: string) => ({
    type: 'team',
    id,
    name,
    role,
    image: 'team-badge.png',
    score: '',
    winner: false,
  });
  return {
    id: `${date.replaceAll('-', '')}-${league}-${home[0]}-${away[0]}`,
    name: `${away[1]} at ${home[1]}`,
    startsAt: `${date}T${utcTime}:00Z`,
    ...LEAGUES[league],
    participants: [team(home, 'home'), team(away, 'away')],
    eventImage: LEAGUES[league].league.image,
    venue: { id: venue[0], name: venue[1], city: venue[2], state: '', country: venue[3], indoor: league === 'nba' },
  };
}

function eventsOf(date: string) {
  return [
    event(
      date,
      'epl',
      '15:00',
      [
        ['ars', 'Arsenal'],
        ['che', 'Chelsea'],
      ],
      ['emirates', 'Emirates Stadium', 'London', 'GB'],
    ),
    event(
      date,
      'nba',
      '00:30',
      [
        ['bos', 'Boston Celtics'],
        ['lal', 'Los Angeles Lakers'],
      ],
      ['td-garden', 'TD Garden', 'Boston', 'US'],
    ),
    event(
      date,
      'nfl',
      '18:00',
      [
        ['nyg', 'New York Giants'],
        ['dal', 'Dallas Cowboys'],
      ],
      ['metlife', 'MetLife Stadium', 'East Rutherford', 'US'],
    ),
  ];
}

const NETWORKS = {
  nfl: { id: 'fox', name: 'FOX', type: 'broadcast' },
  nba: { id: 'espn', name: 'ESPN', type: 'cable' },
  epl: { id: 'nbcsn', name: 'Peacock Sports', type: 'streaming' },
};
const CHANNELS = { fox: '5', espn: '206', nbcsn: '220' };

function viewingOf(date: string, locationId: string, provider: { id: string; name: string; type: string }) {
  const options = Object.fromEntries(
    eventsOf(date).map((e) => {
      const network = NETWORKS[e.league.id as keyof typeof NETWORKS];
      return [e.id, [{ provider, network, channel: CHANNELS[network.id as keyof typeof CHANNELS], available: true }]];
    }),
  );
  return { groupId: GROUP, locationId, date, options };
}

function environment(locationId: string, providers: { id: string; name: string; available: boolean; logo: string }[]) {
  return {
    groupId: GROUP,
    locationId,
    providers: providers.map((p) => ({
      ...p,
      type: 'satellite',
      availabilityState: p.available ? 'ACTIVE' : 'OUTAGE',
      lineupId: `${p.id}-${locationId}`,
      market: locationId.split('-')[0]!.toUpperCase(),
      channels: Object.entries(CHANNELS).map(([network, number]) => ({ number, name: network.toUpperCase(), type: 'sports' })),
    })),
    regionalSportsNetworks: [{ id: 'msg', name: 'MSG Network', channel: '634' }],
    programmingPackageId: 'sports-pack',
    packages: [
      { id: 'sports-pack', name: 'Sports Pack', type: 'programming', image: 'directv.svg', enabled: true },
      { id: 'nfl-sunday-ticket', name: 'NFL Sunday Ticket', type: 'addon', image: 'nfl.svg', enabled: true },
      { id: 'nba-league-pass', name: 'NBA League Pass', type: 'addon', image: 'nba.svg', enabled: false },
    ],
  };
}

export function demoSportsFile(now: number): SportsFile {
  const d = parseCompactDate(activeBusinessDate('America/New_York', now))!;
  const day = (offset: number) => formatIsoDate(addDays(d, offset));
  const directv = { id: 'directv', name: 'DIRECTV', type: 'satellite' };
  const foxtel = { id: 'foxtel', name: 'Foxtel', type: 'satellite' };
  return {
    schedules: [-1, 0, 1, 2].map((o) => ({ date: day(o), events: eventsOf(day(o)) })),
    environments: [
      environment('nyc-midtown', [{ id: 'directv', name: 'DIRECTV', available: true, logo: 'directv.svg' }]),
      environment('denver-union', [
        { id: 'directv', name: 'DIRECTV', available: true, logo: 'directv.svg' },
        { id: 'dish', name: 'DISH', available: false, logo: 'dish.svg' },
      ]),
      environment('london-soho', [{ id: 'sky', name: 'Sky', available: true, logo: 'sky.svg' }]),
      environment('sydney-harbour', [{ id: 'foxtel', name: 'Foxtel', available: true, logo: 'foxtel.svg' }]),
    ],
    viewing: [
      ...[-1, 0, 1].map((o) => viewingOf(day(o), 'nyc-midtown', directv)),
      ...[0, 1].map((o) => viewingOf(day(o), 'denver-union', directv)),
      ...[0, 1, 2].map((o) => viewingOf(day(o), 'sydney-harbour', foxtel)),
    ],
  };
}

export function demoMatriqFile(now: number) {
  const ago = (ms: number) => new Date(now - ms).toISOString();
  const device = (id: string, name: string, zone: string, seenAgoMs: number | null) => ({
    id,
    name,
    type: 'tv',
    zone,
    lastSeenAt: seenAgoMs === null ? null : ago(seenAgoMs),
  });
  const gateway = (id: string) => ({ id, name: 'Matrix gateway', model: 'MQ-200', firmwareVersion: '4.2.1', lastSeenAt: ago(60_000) });
  const nycDay = activeBusinessDate('America/New_York', now);
  const denverYesterday = formatCompactDate(addDays(parseCompactDate(activeBusinessDate('America/Denver', now))!, -1));
  return {
    locations: [
      {
        groupId: GROUP,
        locationId: 'nyc-midtown',
        gateway: gateway('gw-nyc-1'),
        devices: [
          device('tv-nyc-bar-1', 'Bar left', 'bar', 60_000),
          device('tv-nyc-bar-2', 'Bar right', 'bar', 10 * 60_000),
          device('tv-nyc-patio-1', 'Patio', 'patio', 2 * HOUR),
        ],
        scheduler: {
          deviceIds: ['tv-nyc-bar-1', 'tv-nyc-bar-2'],
          running: true,
          lastStartAt: ago(3 * HOUR),
          draft: {
            businessDay: nycDay,
            published: true,
            status: 'published',
            title: 'Game day',
            items: [
              { id: 'slot-1', start: '13:00', end: '16:00', eventTitle: 'Dallas Cowboys at New York Giants' },
              { id: 'slot-2', start: '19:30', end: '22:00', eventTitle: 'Los Angeles Lakers at Boston Celtics' },
            ],
          },
        },
      },
      {
        groupId: GROUP,
        locationId: 'denver-union',
        gateway: gateway('gw-den-1'),
        devices: [device('tv-den-1', 'Main room', 'main', 2 * 60_000), device('tv-den-2', 'Back room', 'back', null)],
        scheduler: {
          deviceIds: ['tv-den-1'],
          running: false,
          lastStartAt: ago(30 * HOUR),
          lastStopAt: ago(20 * HOUR),
          // Yesterday's draft: never shown as current.
          draft: { businessDay: denverYesterday, published: true, status: 'published', title: 'Yesterday', items: [] },
        },
      },
      {
        groupId: GROUP,
        locationId: 'london-soho',
        gateway: gateway('gw-lon-1'),
        devices: [device('tv-lon-1', 'Pub screen', 'main', 3 * 60_000)],
        scheduler: { deviceIds: ['tv-lon-1'], running: false },
      },
    ],
  };
}

export function demoCampaignsFile(now: number) {
  const at = (ms: number) => new Date(now + ms).toISOString();
  const DAY = 24 * HOUR;
  const campaign = (id: string, name: string, locationIds: string[], from: number, to: number, paused = false) => ({
    groupId: GROUP,
    id,
    name,
    locationIds,
    startsAt: at(from),
    endsAt: at(to),
    paused,
  });
  return {
    campaigns: [
      campaign('game-day-specials', 'Game day specials', ['nyc-midtown', 'denver-union', 'london-soho'], -7 * DAY, 7 * DAY),
      campaign('playoff-watch', 'Playoff watch parties', ['nyc-midtown'], 3 * DAY, 30 * DAY),
      campaign('happy-hour', 'Happy hour screens', ['nyc-midtown'], -DAY, 10 * DAY, true),
      campaign('autumn-menu', 'Autumn menu', ['denver-union'], -60 * DAY, -2 * DAY),
    ],
  };
}

/** Seeds sports, display-device and campaign demo data (after the demo venues exist). */
export async function seedVenueModules(store: LocalStore, now: number): Promise<void> {
  await loadSports(store, demoSportsFile(now), now);
  await loadMatriq(store, demoMatriqFile(now), now);
  await loadCampaigns(store, demoCampaignsFile(now), now);
}
