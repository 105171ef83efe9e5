/** Refresh cadences of contract 2.12, declared once and quoted by every resource's `refresh` block. */
export const REFRESH = {
  discovery: { cadence: 'on_demand', description: 'Computed on each request from the current configuration.' },
} as const;
