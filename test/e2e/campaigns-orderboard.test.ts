import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignKeys } from '#lambdas/campaigns/records';
import { loadCampaigns } from '#lambdas/producers/loads/campaigns';
import type { LocalRuntime } from '#local/runtime';
import { call, manualClock, startTestRuntime, tokenFor, watchingDynamo } from '../support/runtime.js';

const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
let runtime: LocalRuntime;

beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
});
afterAll(() => runtime?.stop());

describe('campaigns', () => {
  it('location: its campaigns with computed status and device status', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['campaigns:read'] });
    const reply = await call(runtime, '/v1/demo-group/nyc-midtown/campaigns', { token });
    expect(reply.status).toBe(200);
    const data = reply.body.data;
    expect(data.location).toEqual({ id: 'nyc-midtown', name: 'Midtown Taproom', timezone: 'America/New_York' });
    expect(Object.fromEntries(data.campaigns.map((c: { id: string; status: string }) => [c.id, c.status]))).toEqual({
      'game-day-specials': 'active',
      'happy-hour': 'paused',
      'playoff-watch': 'scheduled',
    });
    expect(data.deviceStatus).toEqual({ healthy: 1, warning: 1, offline: 1 });
    expect(data.refresh.cadence).toBe('on_demand');
  });

  it('location without the module is refused', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['campaigns:read'] });
    expect((await call(runtime, '/v1/demo-group/london-soho/campaigns', { token })).body.error.code).toBe('module_not_enabled');
  });

  it("group: only the token's campaign-enabled locations, campaigns limited to them", async () => {
    const { token } = await tokenFor(runtime, { scopes: ['campaigns:read'] });
    const data = (await call(runtime, '/v1/demo-group/campaigns', { token })).body.data;
    expect(data.group).toEqual({ id: 'demo-group', name: 'Demo Hospitality Group' });
    expect(data.locations.map((l: { id: string }) => l.id)).toEqual(['denver-union', 'nyc-midtown', 'sydney-harbour']);
    const specials = data.campaigns.find((c: { id: string }) => c.id === 'game-day-specials');
    expect(specials.locationIds).toEqual(['nyc-midtown', 'denver-union']); // london-soho has campaigns disabled
    expect(data.campaigns.find((c: { id: string }) => c.id === 'autumn-menu').status).toBe('ended');
    expect(data.deviceStatus).toEqual({ healthy: 2, warning: 1, offline: 2 });

    const { token: denverOnly } = await tokenFor(runtime, { scopes: ['campaigns:read'], allowedLocationIds: ['denver-union'] });
    const narrow = (await call(runtime, '/v1/demo-group/campaigns', { token: denverOnly })).body.data;
    expect(narrow.locations.map((l: { id: string }) => l.id)).toEqual(['denver-union']);
    expect(narrow.campaigns.map((c: { id: string }) => c.id).sort()).toEqual(['autumn-menu', 'game-day-specials']);
    expect(narrow.campaigns.every((c: { locationIds: string[] }) => c.locationIds.join() === 'denver-union')).toBe(true);
  });
});

describe('campaign links (one small item per location and campaign)', () => {
  /** The Queries' sort-key conditions sent while `run` runs. */
  async function queriesSent(run: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    await watchingDynamo(
      runtime,
      (input) => {
        const values = input.ExpressionAttributeValues;
        if (input.KeyConditionExpression) sent.push(String(values?.[':sk'] ?? `${values?.[':from']}..${values?.[':to']}`));
      },
      run,
    );
    return sent;
  }
  const locationCampaigns = async (token: string) =>
    (await call(runtime, '/v1/demo-group/nyc-midtown/campaigns', { token })).body.data.campaigns;
  const groupCampaigns = async (token: string) => (await call(runtime, '/v1/demo-group/campaigns', { token })).body.data.campaigns;

  it("a location reads its own campaigns' links, never the group's campaigns; a page reads its locations' range", async () => {
    const { token } = await tokenFor(runtime, { scopes: ['campaigns:read'] });
    const location = await queriesSent(() => locationCampaigns(token));
    expect(location).toContain('CAMPAIGN_AT#nyc-midtown#');
    expect(location).not.toContain(campaignKeys.prefix);
    const group = await queriesSent(() => groupCampaigns(token));
    expect(group).toContain('CAMPAIGN_AT#denver-union#..CAMPAIGN_AT#sydney-harbour#\uffff');
    // The page's device states too: one Query over its range, not a read of each.
    expect(group).toContain('MATRIQ#denver-union..MATRIQ#sydney-harbour');
    expect(group).not.toContain(campaignKeys.prefix);
  });

  it('a campaign loaded again with fewer locations leaves the ones it dropped', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['campaigns:read'] });
    const campaign = {
      groupId: 'demo-group',
      id: 'links-test',
      name: 'Links',
      startsAt: '2026-11-01T00:00:00Z',
      endsAt: '2026-12-01T00:00:00Z',
    };
    await loadCampaigns(runtime.store, { campaigns: [{ ...campaign, locationIds: ['nyc-midtown', 'denver-union'] }] }, clock.now());
    expect((await locationCampaigns(token)).map((c: { id: string }) => c.id)).toContain('links-test');
    // A later load: a later observation of its source (the CLI stamps its own time).
    clock.advance(1);
    await loadCampaigns(runtime.store, { campaigns: [{ ...campaign, locationIds: ['denver-union'] }] }, clock.now());
    expect((await locationCampaigns(token)).map((c: { id: string }) => c.id)).not.toContain('links-test');
    expect((await groupCampaigns(token)).find((c: { id: string }) => c.id === 'links-test').locationIds).toEqual(['denver-union']);
  });
});

describe('orderboard', () => {
  it('is a coming-soon placeholder', async () => {
    const { token } = await tokenFor(runtime, { scopes: ['orderboard:read'] });
    const reply = await call(runtime, '/v1/demo-group/nyc-midtown/orderboard', { token });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ status: 'coming_soon', message: expect.any(String), refresh: { cadence: 'coming_soon' } });
    expect((await call(runtime, '/v1/demo-group/denver-union/orderboard', { token })).status).toBe(403);
  });
});
