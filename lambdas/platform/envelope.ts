import type { ApiRequest } from './api-handler.js';
import { jsonResponse, type HttpResponse } from './http.js';
import { isLocationRoute, resourceName } from '#contract/routes';

/** The common envelope of contract 2.1 around a resource's data. */
export function envelope(req: ApiRequest, data: unknown, resource = resourceName(req.route)) {
  return {
    ok: true as const,
    version: 'v1' as const,
    resource,
    groupId: req.params.group_id!,
    ...(isLocationRoute(req.route) ? { locationId: req.params.location_id! } : {}),
    generatedAt: new Date(req.now).toISOString(),
    data,
  };
}

export function ok(req: ApiRequest, data: unknown, headers: Record<string, string> = {}): HttpResponse {
  return jsonResponse(200, envelope(req, data), headers);
}
