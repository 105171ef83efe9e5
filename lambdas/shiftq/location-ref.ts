import type { ApiRequest } from '#platform/api-handler';
import type { Location } from '#data/locations';

/** The location as shiftq responses name it. */
export const locationRef = (l: Location) => ({ id: l.id, name: l.name, timezone: l.timezone });

/** The absolute base of a location's shiftq links. */
export const locationPath = (req: ApiRequest, l: Location) =>
  `${req.baseUrl}/v1/${encodeURIComponent(l.groupId)}/${encodeURIComponent(l.id)}/shiftq`;
