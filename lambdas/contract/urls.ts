import { ASSETS_ROUTES, BEVQ_ROUTES, type Route } from './routes.js';

/**
 * A route's path with its `{param}`s filled in (each value URL-encoded); the
 * route table is the only spelling of a path. Looked up in its family's list,
 * so a bundle carries only that list.
 */
function pathOf(routes: readonly Route[], operation: Route['operation'], params: Record<string, string>): string {
  const path = routes.find((r) => r.operation === operation)?.path;
  if (path === undefined) throw new Error(`no route ${operation}`);
  return path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path} needs ${name}`);
    return encodeURIComponent(value);
  });
}

/** The public URL of a sports logo (contract 2.8 rule 4), or null when there is no image. */
export function sportsLogoUrl(baseUrl: string, name: string | null): string | null {
  return name === null ? null : `${baseUrl}${pathOf(ASSETS_ROUTES, 'sportsLogo', { name })}`;
}

/** The menu a webhook event points at (its `resource`) and bevq's status names (contract 6.3). */
export function menuResourcePath(groupId: string, locationId: string): string {
  return pathOf(BEVQ_ROUTES, 'bevqMenu', { group_id: groupId, location_id: locationId });
}
