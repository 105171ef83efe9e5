import { resourceName } from '#contract/routes';
import type { Context } from './context.js';
import { bearer, pathOf, route } from './http.js';
import { Check } from './report.js';
import { conforms, envelope, generatedAt, mismatches, type Spec } from './shape.js';
import { CLIENT_CREDENTIALS } from '#contract/credentials';

/** The contract's discovery fields (2.2), written here from the contract rather than taken from the service's schemas. */
const TOKEN_BLOCK: Spec = {
  scopeType: 'string',
  scopes: 'array',
  rateLimitPerMinute: 'number',
  expiresAt: 'string?null',
  accessTokenExpiresAt: 'string?null',
  credentialType: 'string',
  status: 'string',
  tokenPrefix: 'string',
};
const LOCATION: Spec = {
  id: 'string',
  name: 'string',
  locationShortName: 'string',
  timezone: 'string',
  slug: 'string',
  status: 'string',
  modulesEnabled: 'object',
  resources: 'array',
  endpoints: 'object',
};
const ENDPOINTS: Spec = { root: 'string', modules: 'string', shiftq: 'string', sportsq: 'string', matriq: 'string' };
const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy'];

export type Location = { id: string; timezone: string; modulesEnabled: Record<string, boolean> };
export type Discovery = { scopes: string[]; locations: Location[] };

/** GET /v1/{g}/locations: the envelope, the token block, every location's fields and the rate-limit headers. */
export async function discoveryCheck({ http, report, groupId }: Context, token: string): Promise<Discovery | null> {
  const reply = await http(pathOf('listLocations', { group_id: groupId }), { headers: bearer(token) });
  const data = reply.json?.data ?? {};
  const locations: unknown[] = Array.isArray(data.locations) ? data.locations : [];
  const locationFaults = locations.flatMap((l: any, i) => {
    // A missing endpoints object is already one of the location's own mismatches.
    const endpoints = l?.endpoints && typeof l.endpoints === 'object' ? mismatches(l.endpoints, ENDPOINTS) : [];
    return [...mismatches(l, LOCATION), ...endpoints.map((m) => `endpoints.${m}`)].map((m) => `${l?.id ?? `#${i}`} ${m}`);
  });
  const missingHeaders = RATE_HEADERS.filter((h) => !reply.headers.has(h));

  const check = envelope(new Check('discovery: locations'), reply, { resource: resourceName(route('listLocations')), groupId });
  generatedAt(check, reply);
  conforms(check, 'data.token', data.token, TOKEN_BLOCK)
    .equal('data.token.credentialType', CLIENT_CREDENTIALS, data.token?.credentialType)
    .equal('data.token.status', 'active', data.token?.status)
    // A smoke run needs somewhere to read from; a group without locations cannot show the modules work.
    .holds('data.locations', 'at least one', locations.length > 0, 'none')
    .holds('data.locations[]', 'have the contract fields', locationFaults.length === 0, locationFaults.join(', '))
    .holds('RateLimit-* headers', 'present', missingHeaders.length === 0, `missing ${missingHeaders.join(', ')}`)
    .equal('RateLimit-Limit', String(data.token?.rateLimitPerMinute), reply.headers.get('ratelimit-limit') ?? undefined);
  report.add(check);

  // The module reads go on whenever there is something to pick from, so one missing header hides nothing else.
  const scopes = data.token?.scopes;
  const usable = Array.isArray(scopes) && locationFaults.length === 0 && locations.length > 0;
  return usable ? { scopes, locations: locations as Location[] } : null;
}
