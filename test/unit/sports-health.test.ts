import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { availabilityOf, freshnessOf, providerStatusOf, scheduleHealthOf, type HealthInputs } from '#domain/sports-health';
import { programmingDateParams, sportsLogoParams } from '#contract/schemas/requests';

const env = (providers = [{ available: true, channels: [1, 2] }], updatedAt = '2026-11-22T10:00:00Z') => ({
  updatedAt,
  providers,
  packages: [1, 2, 3],
});
const viewing = (date: string, updatedAt = '2026-11-22T11:00:00Z', options: Record<string, unknown[]> = { e1: [1], e2: [] }) => ({
  date,
  updatedAt,
  options,
});
const inputs = (over: Partial<HealthInputs> = {}): HealthInputs => ({
  requestedDate: '2026-11-22',
  environment: env(),
  viewing: viewing('2026-11-22'),
  scheduledEventIds: ['e1', 'e2'],
  ...over,
});

describe('programming date path', () => {
  it.each([
    ['2026-02-03', true],
    ['2028-02-29', true],
    ['2026-12-31', true],
    ['2026-02-30', false],
    ['2025-02-29', false],
    ['2026-13-01', false],
    ['2026-00-10', false],
    ['2026-01-00', false],
    ['2026-2-3', false],
    ['20260203', false],
    ['2026-02-03 ', false],
    ['0999-01-01', false],
    ['', false],
  ])('%s → %s', (date, valid) => {
    expect(v.safeParse(programmingDateParams, { date }).success).toBe(valid);
  });
});

describe('logo names', () => {
  it.each([
    ['nfl.svg', true],
    ['team-badge.png', true],
    ['../x.svg', false],
    ['a/b.svg', false],
    ['x.SVG', false],
    ['x.svg.png.exe', false],
  ])('%s → %s', (name, valid) => expect(v.safeParse(sportsLogoParams, { name }).success).toBe(valid));
});

describe('freshness', () => {
  it('is computed from the dates', () => {
    expect(freshnessOf('2026-11-22', '2026-11-22')).toBe('EXACT_DATE');
    expect(freshnessOf('2026-11-22', '2026-11-20')).toBe('STALE_DATE');
    expect(freshnessOf('2026-11-22', null)).toBe('MISSING');
    expect(freshnessOf('2026-11-22', '2026-11-23')).toBe('MISSING');
  });
});

describe('provider status', () => {
  it('AVAILABLE with exact, complete, current data', () => expect(providerStatusOf(inputs())).toBe('AVAILABLE'));
  it('UNAVAILABLE when the location has no viewing data (valid schedule)', () =>
    expect(providerStatusOf(inputs({ viewing: null }))).toBe('PROVIDER_DATA_UNAVAILABLE'));
  it('UNAVAILABLE when only an earlier day exists (never substituted)', () =>
    expect(providerStatusOf(inputs({ viewing: viewing('2026-11-21') }))).toBe('PROVIDER_DATA_UNAVAILABLE'));
  it('UNAVAILABLE without a provider environment', () =>
    expect(providerStatusOf(inputs({ environment: null }))).toBe('PROVIDER_DATA_UNAVAILABLE'));
  it('STALE when the lineup changed after the viewing data was computed', () =>
    expect(providerStatusOf(inputs({ environment: env(undefined, '2026-11-22T12:00:00Z') }))).toBe('PROVIDER_DATA_STALE'));
  it('PARTIAL when a provider is down', () =>
    expect(
      providerStatusOf(
        inputs({
          environment: env([
            { available: true, channels: [] },
            { available: false, channels: [] },
          ]),
        }),
      ),
    ).toBe('PROVIDER_DATA_PARTIAL'));
  it('PARTIAL when a scheduled event has no viewing entry (an empty list counts as an entry)', () => {
    expect(providerStatusOf(inputs({ scheduledEventIds: ['e1', 'e2', 'e3'] }))).toBe('PROVIDER_DATA_PARTIAL');
    expect(providerStatusOf(inputs({ scheduledEventIds: ['e2'] }))).toBe('AVAILABLE');
  });
  it('is judged apart from the schedule: no schedule still has provider health', () => {
    expect(scheduleHealthOf(null)).toEqual({ status: 'SCHEDULE_DATA_UNAVAILABLE', eventCount: 0 });
    expect(providerStatusOf(inputs({ scheduledEventIds: null }))).toBe('AVAILABLE');
    expect(scheduleHealthOf({ events: [] })).toEqual({ status: 'AVAILABLE', eventCount: 0 });
  });
});

describe('availability object', () => {
  it('counts and dates for exact data', () => {
    expect(availabilityOf(inputs())).toEqual({
      status: 'AVAILABLE',
      requestedDate: '2026-11-22',
      effectiveDate: '2026-11-22',
      freshness: 'EXACT_DATE',
      updatedAt: '2026-11-22T11:00:00Z',
      providerCount: 1,
      channelCount: 2,
      packageCount: 3,
      viewingOptionCount: 1,
    });
  });
  it('stale: reports the earlier date but counts none of its options', () => {
    expect(availabilityOf(inputs({ viewing: viewing('2026-11-20') }))).toMatchObject({
      status: 'PROVIDER_DATA_UNAVAILABLE',
      effectiveDate: '2026-11-20',
      freshness: 'STALE_DATE',
      viewingOptionCount: 0,
      updatedAt: '2026-11-22T10:00:00Z',
    });
  });
  it('missing everything', () => {
    expect(availabilityOf(inputs({ viewing: null, environment: null }))).toMatchObject({
      status: 'PROVIDER_DATA_UNAVAILABLE',
      effectiveDate: null,
      freshness: 'MISSING',
      updatedAt: null,
      providerCount: 0,
      packageCount: 0,
    });
  });
});
