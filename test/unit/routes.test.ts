import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FAMILIES, resourceName, type Route } from '#contract/routes';
import { ROUTES } from '#lambdas/discovery/all-routes';
import { pathResolver } from '#platform/api-handler';

const resolvePath = pathResolver(ROUTES);

const routeByTemplate = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.path === path);

// The repository's copy of the contract (test/unit/contract-copy.test.ts keeps it identical to the shared one).
const SPEC = new URL('../../spec/customer-api-v1.md', import.meta.url);

/** Endpoint rows of the contract's section 4 table: method and path with the contract's placeholders. */
function contractEndpoints(): { method: string; path: string }[] {
  const text = readFileSync(SPEC, 'utf8');
  return [...text.matchAll(/^\| (GET|POST) \| `([^`]+)` \|/gm)].map(([, method, path]) => ({
    method: method!,
    path: path!.replace('{YYYY-MM-DD}', '{date}'),
  }));
}

/** Contract endpoints whose modules are built by later work, listed so the gap is visible. */
// Every module is routed now; nothing is expected to be missing.
const NOT_YET_ROUTED = /(?!)/;

describe('the route table', () => {
  it('routes every contract endpoint it claims, and nothing the contract lacks', () => {
    const contract = contractEndpoints();
    expect(contract.length).toBeGreaterThan(30);
    const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
    const routed = new Set(ROUTES.map(key));
    const expected = contract.filter((e) => !NOT_YET_ROUTED.test(e.path)).map(key);
    expect(expected).toContain('POST /oauth/token');
    for (const endpoint of expected) expect(routed, endpoint).toContain(endpoint);
    const contractKeys = new Set(contract.map(key));
    const extra = ROUTES.map(key).filter((k) => !contractKeys.has(k));
    // Ours beyond the contract's table: the OpenAPI document, and the logo files 2.8 rule 4 points at.
    expect(extra).toEqual(['GET /v1/openapi.json', 'GET /v1/assets/sports-logo/{name}']);
  });

  it("keeps each family's rows in its room, each list holding only its own routes, and every list gathered once", async () => {
    const gathered: Route[] = [];
    for (const family of FAMILIES) {
      const module = (await import(`../../lambdas/${family}/routes.ts`)) as Record<string, readonly Route[]>;
      const list = module[`${family.toUpperCase()}_ROUTES`];
      expect(list?.length, family).toBeGreaterThan(0);
      expect(
        list!.every((r) => r.family === family),
        family,
      ).toBe(true);
      gathered.push(...list!);
    }
    expect(new Set(ROUTES)).toEqual(new Set(gathered));
    expect(ROUTES).toHaveLength(gathered.length);
  });

  it('gives every route a summary and a weight in the mix, and describes only fields its rules have', () => {
    for (const route of ROUTES) {
      expect(route.summary.length, route.operation).toBeGreaterThan(10);
      expect(route.mix, route.operation).toBeGreaterThan(0);
      const ruleFields = [route.query, route.params, route.body].flatMap((rule) =>
        rule && 'entries' in rule ? Object.keys(rule.entries as object) : [],
      );
      for (const field of Object.keys(route.fields ?? {})) expect(ruleFields, `${route.operation}: ${field}`).toContain(field);
    }
  });

  it('has unique method+path pairs and unique operation names', () => {
    expect(new Set(ROUTES.map((r) => `${r.method} ${r.path}`)).size).toBe(ROUTES.length);
    expect(new Set(ROUTES.map((r) => r.operation)).size).toBe(ROUTES.length);
  });

  it('prefers literal segments over parameters, as API Gateway does', () => {
    const hit = resolvePath('GET', '/v1/g1/locations');
    expect(hit && 'match' in hit && hit.match.route.operation).toBe('listLocations');
    const root = resolvePath('GET', '/v1/g1/loc-1');
    expect(root && 'match' in root && root.match).toEqual({
      route: routeByTemplate('GET', '/v1/{group_id}/{location_id}'),
      params: { group_id: 'g1', location_id: 'loc-1' },
    });
  });

  it('takes parameters from the decoded path as an HTTP API hands it over, and tells a wrong method from an unknown path', () => {
    const hit = resolvePath('GET', '/v1/g 1/l%2/modules');
    expect(hit && 'match' in hit && hit.match.params).toEqual({ group_id: 'g 1', location_id: 'l%2' });
    expect(resolvePath('DELETE', '/v1/g1/locations')).toEqual({ allowed: ['GET'] });
    expect(resolvePath('GET', '/v1/g1/l1/unknown/deeper')).toBeNull();
    expect(resolvePath('GET', '/v1//locations')).toEqual(null);
  });

  it('names resources by their path below the location', () => {
    expect(resourceName(routeByTemplate('GET', '/v1/{group_id}/locations')!)).toBe('locations');
    expect(resourceName(routeByTemplate('GET', '/v1/{group_id}/{location_id}/modules')!)).toBe('modules');
    expect(resourceName(routeByTemplate('GET', '/v1/{group_id}/{location_id}')!)).toBe('location');
  });
});
