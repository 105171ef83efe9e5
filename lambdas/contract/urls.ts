/** The paths of the two routes other rooms link to: their rows (bevq, assets) and the links below spell them from here. */
export const MENU_PATH = '/v1/{group_id}/{location_id}/bevq/menu';
export const SPORTS_LOGO_PATH = '/v1/assets/sports-logo/{name}';

/** A route's path with its `{param}`s filled in, each value URL-encoded. */
function pathOf(path: string, params: Record<string, string>): string {
  return path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${path} needs ${name}`);
    return encodeURIComponent(value);
  });
}

/** The public URL of a sports logo (contract 2.8 rule 4), or null when there is no image. */
export function sportsLogoUrl(baseUrl: string, name: string | null): string | null {
  return name === null ? null : `${baseUrl}${pathOf(SPORTS_LOGO_PATH, { name })}`;
}

/** The menu a webhook event points at (its `resource`) and bevq's status names (contract 6.3). */
export function menuResourcePath(groupId: string, locationId: string): string {
  return pathOf(MENU_PATH, { group_id: groupId, location_id: locationId });
}

/** The absolute URL of a location's resources, `/v1/{group_id}/{location_id}` with each id URL-encoded: answers' links extend it. */
export function locationUrl(baseUrl: string, location: { groupId: string; id: string }): string {
  return `${baseUrl}/v1/${encodeURIComponent(location.groupId)}/${encodeURIComponent(location.id)}`;
}
