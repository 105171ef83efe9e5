/** The beverage menu's scope: an application also needs it to receive the menu's events (contract 6.5 rule 1). */
export const BEVQ_SCOPE = 'bevq:read';

/** Every scope an application can hold (contract 5.3), declared once. */
export const SCOPES = [
  'locations:read',
  'sportsq:read',
  'shiftq:read',
  'matriq:read',
  'matriq:ai-scheduler:stop',
  'campaigns:read',
  'orderboard:read',
  BEVQ_SCOPE,
] as const;

export type Scope = (typeof SCOPES)[number];

/** Modules a location can have enabled; the discovery `modulesEnabled` keys. */
export const MODULES = ['shiftq', 'sportsq', 'matriq', 'campaigns', 'orderboard', 'bevq'] as const;
export type Module = (typeof MODULES)[number];
export type ModulesEnabled = Record<Module, boolean>;
