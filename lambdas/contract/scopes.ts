/** Every scope an application can hold (contract 5.3), declared once. */
export const SCOPES = [
  'locations:read',
  'sportsq:read',
  'shiftq:read',
  'matriq:read',
  'matriq:ai-scheduler:stop',
  'campaigns:read',
  'orderboard:read',
  'bevq:read',
] as const;

export type Scope = (typeof SCOPES)[number];

/** Modules a location can have enabled; the discovery `modulesEnabled` keys. */
export const MODULES = ['shiftq', 'sportsq', 'matriq', 'campaigns', 'orderboard', 'bevq'] as const;
export type Module = (typeof MODULES)[number];
export type ModulesEnabled = Record<Module, boolean>;
