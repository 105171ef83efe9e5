/**
 * Refresh cadences of contract 2.12, declared once and quoted by every
 * resource's `refresh` block: one constant per family, so a family's bundle
 * carries only its own.
 */
export const DISCOVERY_REFRESH = { cadence: 'on_demand', description: 'Computed on each request from the current configuration.' } as const;
export const BEVQ_REFRESH = {
  cadence: 'targeted_projection_updates',
  description:
    'Updated by targeted projection updates when a rebuilt menu is published; sync conditionally with ETag / If-None-Match, prompted by bevq.menu.updated webhooks.',
} as const;
export const SPORTSQ_REFRESH = {
  cadence: 'every_5_minutes',
  description: 'Schedules, provider environments and location viewing data are refreshed every 5 minutes.',
} as const;
export const MATRIQ_REFRESH = {
  cadence: 'on_product_events',
  description:
    'Updated on authorized product events: device reporting, availability change, Auto Scheduler publish, draft change, stop, emergency stop.',
} as const;

/** The matriq overview's sub-resources: its `endpoints` and its `refresh`, keyed by sub-resource (2.1), name each. */
export const MATRIQ_RESOURCES = ['gateway', 'devices', 'providerAvailable', 'aiScheduler'] as const;

export const CAMPAIGNS_REFRESH = {
  cadence: 'on_demand',
  description: 'Read from the current campaign configuration on each request.',
} as const;
export const ORDERBOARD_REFRESH = { cadence: 'coming_soon', description: 'Order-board resources are not available yet.' } as const;
export const SHIFTQ_REFRESH = {
  sales: { cadence: 'every_5_minutes', description: 'Sales snapshots are refreshed every 5 minutes.' },
  labor: { cadence: 'every_5_minutes', description: 'Labor summaries are refreshed every 5 minutes.' },
  kitchen: { cadence: 'every_5_minutes', description: 'Kitchen ticket averages are refreshed every 5 minutes.' },
  posMenu: {
    cadence: 'every_5_minutes',
    description: 'The POS stock overlay refreshes every 5 minutes; menu changes are patched into the base snapshot.',
  },
  clockIns: {
    cadence: 'every_5_minutes',
    description: 'Clock-ins, manager-on-duty coverage and role groups are refreshed every 5 minutes.',
  },
  employees: {
    cadence: 'every_5_to_15_minutes',
    description: 'Employees, jobs, shifts and time entries are refreshed every 5 to 15 minutes.',
  },
  reservations: { cadence: 'on_ingest', description: 'Updated when the POS reservation digest is ingested.' },
  reviews: { cadence: 'on_ingest', description: 'Updated when provider reviews are ingested.' },
  groupLeaderboard: { cadence: 'every_5_minutes', description: 'Computed from location sales and labor, which refresh every 5 minutes.' },
} as const;

/** The resources whose cadence the shiftq overview gives, in order. */
export const SHIFTQ_REFRESH_KEYS = [
  'sales',
  'labor',
  'kitchen',
  'posMenu',
  'clockIns',
  'employees',
  'reservations',
] as const satisfies readonly (keyof typeof SHIFTQ_REFRESH)[];
