import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCampaigns } from '#lambdas/producers/loads/campaigns';
import { loadMatriq } from '#lambdas/producers/loads/matriq';
import { loadSports } from '#lambdas/producers/loads/sports';
import { AdminInputError } from '#domain/inputs';
import type { LocalRuntime } from '#local/runtime';
import { demoCampaignsFile, demoMatriqFile, demoSportsFile } from '#local/seed-venue-modules';
import { manualClock, scanTable, startTestRuntime } from '../support/runtime.js';

const clock = manualClock(Date.UTC(2026, 10, 22, 12, 0, 0));
let runtime: LocalRuntime;
beforeAll(async () => {
  runtime = await startTestRuntime({ clock });
});
afterAll(() => runtime?.stop());

const snapshot = async () =>
  JSON.stringify(
    (await scanTable(runtime))
      .filter((i) => !String(i.PK).startsWith('RATE'))
      .sort((a, b) => `${a.PK}${a.SK}`.localeCompare(`${b.PK}${b.SK}`)),
  );

describe('venue-module ingest: bad input writes nothing', () => {
  const sports = () => structuredClone(demoSportsFile(clock.now())) as any;
  it.each([
    ['an impossible schedule date', (f: any) => (f.schedules[0].date = '2026-02-30')],
    ['a repeated event id', (f: any) => f.schedules[0].events.push(f.schedules[0].events[0])],
    ['viewing for an unknown event', (f: any) => (f.viewing[0].options['no-such-event'] = [])],
    ['an unknown location', (f: any) => (f.environments[0].locationId = 'atlantis')],
    ['a logo path', (f: any) => (f.schedules[0].events[0].league.image = '../secret.svg')],
    ['an unknown field', (f: any) => (f.schedules[0].events[0].extra = 1)],
    ['a programming package not in packages', (f: any) => (f.environments[0].programmingPackageId = 'nope')],
  ])('sports: %s', async (_name, mutate) => {
    const before = await snapshot();
    const file = sports();
    mutate(file);
    await expect(loadSports(runtime.store, file, clock.now())).rejects.toThrow(AdminInputError);
    expect(await snapshot()).toBe(before);
  });

  it('matriq: scheduler device not among devices; bad draft time', async () => {
    const before = await snapshot();
    const a = structuredClone(demoMatriqFile(clock.now())) as any;
    a.locations[0].scheduler.deviceIds.push('ghost');
    await expect(loadMatriq(runtime.store, a, clock.now())).rejects.toThrow(/not among devices/);
    const b = structuredClone(demoMatriqFile(clock.now())) as any;
    b.locations[0].scheduler.draft.items[0].start = '25:00';
    await expect(loadMatriq(runtime.store, b, clock.now())).rejects.toThrow(AdminInputError);
    expect(await snapshot()).toBe(before);
  });

  it('campaigns: ends before it starts; unknown location', async () => {
    const before = await snapshot();
    const a = structuredClone(demoCampaignsFile(clock.now())) as any;
    a.campaigns[0].endsAt = a.campaigns[0].startsAt;
    await expect(loadCampaigns(runtime.store, a, clock.now())).rejects.toThrow(/endsAt/);
    const b = structuredClone(demoCampaignsFile(clock.now())) as any;
    b.campaigns[1].locationIds = ['atlantis'];
    await expect(loadCampaigns(runtime.store, b, clock.now())).rejects.toThrow(/unknown locations/);
    expect(await snapshot()).toBe(before);
  });

  it('valid files load and are repeatable', async () => {
    await expect(loadSports(runtime.store, demoSportsFile(clock.now()), clock.now())).resolves.toEqual({
      schedules: 4,
      environments: 4,
      viewing: 8,
    });
    await expect(loadCampaigns(runtime.store, demoCampaignsFile(clock.now()), clock.now())).resolves.toEqual({ campaigns: 4 });
  });
});
