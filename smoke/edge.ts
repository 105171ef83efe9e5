import type { Context } from './context.js';
import { bearer, httpClient, pathOf, type Reply } from './http.js';
import { Check } from './report.js';
import { errorShape } from './shape.js';

/**
 * What a stage behind its edge owes (docs/operations.md, "Domain and edge"), given the API Gateway URL the edge
 * fronts (`--origin-url`): the origin refuses whoever skips the edge (no secret: 403 before anything is read),
 * CloudFront caches nothing, and absolute URLs in the documents name the base URL, never the origin's host.
 * The smoke run never knows the origin secret: these checks only see what any client can see.
 */
export async function edgeChecks(
  { http, report, groupId }: Context,
  token: string | null,
  edge: { baseUrl: string; originUrl: string },
): Promise<void> {
  const origin = httpClient(edge.originUrl);
  const base = edge.baseUrl.replace(/\/+$/, '');
  const originHost = new URL(edge.originUrl).host;
  const locations = pathOf('listLocations', { group_id: groupId });

  // Straight to the origin, with a valid token when there is one: refused all the same, in the contract's shape.
  const direct = await origin(locations, token ? { headers: bearer(token) } : {});
  report.add(errorShape(new Check('edge: the origin refuses a direct /v1 call'), direct, 403, 'forbidden'));
  const directToken = await origin(pathOf('issueToken'), {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials&client_id=smoke-edge-check&client_secret=none',
  });
  report.add(errorShape(new Check('edge: the origin refuses a direct token request'), directToken, 403, 'forbidden'));

  // The OpenAPI document says it may be cached (public, max-age=300): through the edge, the second read still is no hit.
  const openapi = pathOf('openapi');
  const first = await http(openapi);
  const second = await http(openapi);
  const hits = [first, second].map(cacheHeader);
  report.add(
    new Check('edge: nothing cached').equal('status', '200, 200', `${first.status}, ${second.status}`).holds(
      'X-Cache',
      'never a hit',
      hits.every((h) => !/^hit\b/i.test(h)),
      hits.join('; '),
    ),
  );

  // Absolute URLs: the OpenAPI server and, with a token, every location's endpoints.
  const urls: string[] = [second.json?.servers?.[0]?.url].filter((u): u is string => typeof u === 'string');
  const serverOk = urls[0] === base;
  if (token) {
    const discovery = await http(locations, { headers: bearer(token) });
    for (const location of (discovery.json?.data?.locations ?? []) as { endpoints?: Record<string, unknown> }[]) {
      urls.push(...Object.values(location.endpoints ?? {}).filter((u): u is string => typeof u === 'string'));
    }
  }
  const strays = urls.filter((u) => !(u === base || u.startsWith(`${base}/`)) || new URL(u).host === originHost);
  report.add(
    new Check('edge: absolute URLs on the base URL')
      .holds('OpenAPI servers[0].url', base, serverOk, urls[0] ?? '(absent)')
      .holds('endpoints', `below ${base}, not ${originHost}`, strays.length === 0, strays.slice(0, 3).join(', ') || 'none checked')
      .holds(
        'URLs checked',
        token ? 'the server and every endpoint' : 'the server (no token for discovery)',
        urls.length > (token ? 1 : 0),
        String(urls.length),
      ),
  );
}

/** CloudFront's X-Cache ("Miss from cloudfront", "Hit from cloudfront", …); absent when nothing set it. */
function cacheHeader(reply: Reply): string {
  return reply.headers.get('x-cache') ?? '(absent)';
}
