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

/** The module a scope reads, so a location without that module refuses the scope's routes. */
export function moduleOfScope(scope: Scope): Module | null {
  const prefix = scope.split(':')[0];
  return (MODULES as readonly string[]).includes(prefix!) ? (prefix as Module) : null;
}
