import { resourceName } from '#contract/routes';
import { MODULES, type Module } from '#contract/scopes';
import type { Context } from './context.js';
import type { Discovery, Location } from './discovery.js';
import { bearer, pathOf, route, type Reply } from './http.js';
import { Check, type Report } from './report.js';
import { envelope, isA } from './shape.js';

/** Reads one route (skipped when the token lacks its scope); `more` adds route-specific rows. */
type Reader = (
  operation: string,
  location?: Location,
  params?: Record<string, string>,
  more?: (check: Check, reply: Reply) => void,
) => Promise<Reply | null>;

/** One read per module (contract 4), at the first location that has the module enabled. */
const READS: Record<Module, (read: Reader, enabled: [Location, ...Location[]], report: Report) => Promise<unknown>> = {
  shiftq: (read, [location]) => read('shiftqOverview', location),
  sportsq: async (read, [location]) => {
    await read('sportsProvider', location);
    // Today where the venue is: the date a customer's screen would ask for.
    const date = new Intl.DateTimeFormat('en-CA', { timeZone: location.timezone, dateStyle: 'short' }).format(new Date());
    await read('sportsProgramming', location, { date }, (check, reply) => {
      const data = reply.json?.data;
      check.equal('data.date', date, data?.date);
      isA(check, 'data.health.schedule.status', data?.health?.schedule?.status, 'string');
      isA(check, 'data.health.providerAvailability.status', data?.health?.providerAvailability?.status, 'string');
    });
  },
  matriq: (read, [location]) => read('matriqOverview', location),
  campaigns: (read, [location]) => read('locationCampaigns', location),
  orderboard: (read, [location]) => read('orderboard', location),
  bevq: async (read, enabled, report) => {
    // The group resource says which locations have a published menu; the menu is 404 until one is published.
    const group = await read('bevqGroup');
    const published = enabled.find((l) => group?.json?.data?.locations?.some((g: any) => g?.id === l.id && g?.menu?.available === true));
    await read('bevqLocation', published ?? enabled[0]);
    if (published) await read('bevqMenu', published);
    else report.skip('read bevq/menu', 'no location has a published menu');
  },
};

/** Every module read; returns the bodies, where the logo check looks for an image URL. */
export async function moduleReads(ctx: Context, token: string, discovery: Discovery): Promise<string[]> {
  const bodies: string[] = [];
  const read: Reader = async (operation, location, params = {}, more) => {
    const target = route(operation);
    const resource = resourceName(target).replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? name);
    const name = `read ${resource} (${location?.id ?? 'group'})`;
    if (!discovery.scopes.includes(target.scope!)) {
      ctx.report.skip(name, `the token lacks ${target.scope}`);
      return null;
    }
    const path = pathOf(operation, { group_id: ctx.groupId, ...(location ? { location_id: location.id } : {}), ...params });
    const reply = await ctx.http(path, { headers: bearer(token) });
    bodies.push(reply.text);
    const check = envelope(new Check(name), reply, { resource, groupId: ctx.groupId, locationId: location?.id });
    more?.(check, reply);
    const etag = reply.headers.get('etag');
    if (target.conditional) check.holds('ETag', 'present', etag !== null, '(absent)');
    ctx.report.add(check);
    if (target.conditional && etag) await conditionalReads(ctx, token, path, name, etag);
    return reply;
  };

  for (const module of MODULES) {
    const enabled = discovery.locations.filter((l) => l.modulesEnabled?.[module] === true);
    const [first, ...rest] = enabled;
    if (first) await READS[module](read, [first, ...rest], ctx.report);
    else ctx.report.skip(`read ${module}`, `no location has ${module} enabled`);
  }
  return bodies;
}

/** Contract 4 rule 3: the exact ETag, its weak form and `*` answer 304 with an empty body; another validator 200. */
async function conditionalReads(ctx: Context, token: string, path: string, name: string, etag: string): Promise<void> {
  const cases: [string, string, number][] = [
    ['the exact ETag', etag, 304],
    ['its weak form', etag.startsWith('W/') ? etag : `W/${etag}`, 304],
    ['*', '*', 304],
    ['another validator', '"smoke-no-match"', 200],
  ];
  for (const [label, validator, status] of cases) {
    const reply = await ctx.http(path, { headers: { ...bearer(token), 'If-None-Match': validator } });
    const check = new Check(`${name}: If-None-Match ${label}`).equal('status', status, reply.status);
    if (status === 304) check.equal('body', '(empty)', reply.bytes.length ? `${reply.bytes.length} bytes` : '(empty)');
    ctx.report.add(check);
  }
}
