import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { businessDayStartMs } from '#contract/business-date';
import { retentionEndMs } from '#lambdas/shiftq/records';
import { businessDateQuery } from '#contract/schemas/requests';
import { clockInsView } from '#lambdas/shiftq/clock-ins';
import { employeesView } from '#lambdas/shiftq/current-views';
import { decodePageToken, encodePageToken } from '#lambdas/shiftq/reviews';
import { laborView, rankLocations, salesView } from '#lambdas/shiftq/sales';

describe('review page tokens', () => {
  const binding = { groupId: 'g1', locationId: 'l1', filters: '{"minRating":4}' };
  const token = encodePageToken('key-1', { ...binding, after: 'SHIFTQ#REVIEW#2026-11-20T10:00:00.000Z#r9' });

  it('round-trips the position for the same location and filters', () => {
    expect(decodePageToken('key-1', token, binding)).toBe('SHIFTQ#REVIEW#2026-11-20T10:00:00.000Z#r9');
  });

  it('refuses a token for another location, group or filter set', () => {
    expect(() => decodePageToken('key-1', token, { ...binding, locationId: 'l2' })).toThrow(/pageToken/);
    expect(() => decodePageToken('key-1', token, { ...binding, groupId: 'g2' })).toThrow(/pageToken/);
    expect(() => decodePageToken('key-1', token, { ...binding, filters: '{}' })).toThrow(/pageToken/);
  });

  it('refuses tampered, forged and malformed tokens with a 400', () => {
    const [payload, signature] = token.split('.') as [string, string];
    const forgedPayload = Buffer.from(JSON.stringify({ v: 1, g: 'g1', l: 'l1', f: binding.filters, a: 'SHIFTQ#REVIEW#9999' })).toString(
      'base64url',
    );
    for (const bad of [
      `${forgedPayload}.${signature}`,
      `${payload}.${signature.slice(0, -2)}AA`,
      encodePageToken('another-key', { ...binding, after: 'x' }),
      'not-a-token',
      `${payload}.${signature}.extra`,
      '',
    ]) {
      let status = 0;
      try {
        decodePageToken('key-1', bad, binding);
      } catch (err) {
        status = (err as { status: number }).status;
      }
      expect(status, bad).toBe(400);
    }
  });
});

describe('business-date query', () => {
  const parse = (q: Record<string, string>) => v.safeParse(businessDateQuery, q);
  it('accepts either name, or both when equal', () => {
    expect(parse({ businessDate: '20261120' }).success).toBe(true);
    expect(parse({ businessDay: '20261120' }).success).toBe(true);
    expect(parse({ businessDate: '20261120', businessDay: '20261120' }).success).toBe(true);
    expect(parse({}).success).toBe(true);
  });
  it.each([['20260230'], ['20261301'], ['2026-11-20'], ['2026112'], ['abcdefgh'], ['202611200'], ['00000101']])('refuses %s', (value) => {
    expect(parse({ businessDate: value }).success).toBe(false);
    expect(parse({ businessDay: value }).success).toBe(false);
  });
  it('refuses two different dates', () => {
    expect(parse({ businessDate: '20261120', businessDay: '20261121' }).success).toBe(false);
  });
});

describe('retention end (TTL)', () => {
  it('is the end of the business date 366 days later, in local time across DST', () => {
    // 20251101 + 366 days = 20261102; that business date ends 04:01 EST on 20261103.
    expect(retentionEndMs('America/New_York', '20251101')).toBe(businessDayStartMs('America/New_York', '20261103'));
    expect(new Date(retentionEndMs('America/New_York', '20251101')).toISOString()).toBe('2026-11-03T09:01:00.000Z');
  });
});

describe('clock-in alerts', () => {
  const start = '2026-11-20T15:00:00.000Z';
  const shift = (jobCode = 'SRV') => ({ start, end: '2026-11-20T23:00:00.000Z', jobCode });
  const person = (id: string, over: object) => ({
    employeeId: id,
    employeeName: id,
    roleGroup: 'Server',
    isManager: false,
    scheduled: shift(),
    punch: null,
    ...over,
  });
  const view = clockInsView({
    asOf: '2026-11-20T16:00:00.000Z',
    entries: [
      person('on-time', { punch: { jobCode: 'SRV', clockedInAt: '2026-11-20T14:55:00.000Z', clockedOutAt: null } }),
      person('early', { punch: { jobCode: 'SRV', clockedInAt: '2026-11-20T14:49:00.000Z', clockedOutAt: null } }),
      person('late', { punch: { jobCode: 'SRV', clockedInAt: '2026-11-20T15:06:00.000Z', clockedOutAt: null } }),
      person('wrong-job', { punch: { jobCode: 'BAR', clockedInAt: '2026-11-20T15:00:00.000Z', clockedOutAt: null } }),
      person('missing', {}),
      person('walk-in', {
        scheduled: null,
        roleGroup: 'Kitchen',
        isManager: true,
        punch: { jobCode: 'MGR', clockedInAt: '2026-11-20T15:30:00.000Z', clockedOutAt: null },
      }),
      person('left', { punch: { jobCode: 'SRV', clockedInAt: '2026-11-20T15:00:00.000Z', clockedOutAt: '2026-11-20T15:40:00.000Z' } }),
    ],
  });

  it('counts each exception once by its rule', () => {
    expect(view.exceptionCounts).toEqual({
      wrongJobCodeClockIns: 1,
      scheduledButMissing: 1,
      clockedInButNotScheduled: 1,
      earlyClockIns: 1,
      lateClockIns: 1,
    });
    expect(view.alerts.map((a) => `${a.type}:${a.employeeId}`).sort()).toEqual(
      [
        'clocked_in_not_scheduled:walk-in',
        'early_clock_in:early',
        'late_clock_in:late',
        'scheduled_but_missing:missing',
        'wrong_job_code:wrong-job',
      ].sort(),
    );
  });

  it('reports who is clocked in, managers on duty and role coverage', () => {
    expect(view.clockedInCount).toBe(5);
    expect(view.managerOnDutyCount).toBe(1);
    expect(view.roleCoverage).toEqual([
      { roleGroup: 'Kitchen', scheduledCount: 0, clockedInCount: 1, managerOnDuty: true },
      { roleGroup: 'Server', scheduledCount: 6, clockedInCount: 4, managerOnDuty: false },
    ]);
  });

  it('does not call someone missing before the grace period ends', () => {
    const early = clockInsView({ asOf: '2026-11-20T15:04:00.000Z', entries: [person('soon', {})] });
    expect(early.exceptionCounts.scheduledButMissing).toBe(0);
  });
});

describe('sales, labor and ranking', () => {
  const sales = {
    updatedAt: '2026-11-20T20:00:00.000Z',
    currency: 'USD',
    grossSales: 1000,
    netSales: 900,
    discounts: 50,
    voids: 20,
    refunds: 0,
    tax: 72,
    tips: 100,
    orderCount: 30,
    guestCount: 50,
    hourly: [],
    categories: [],
    employees: [
      { employeeId: 'b', employeeName: 'B', netSales: 300 },
      { employeeId: 'a', employeeName: 'A', netSales: 300 },
      { employeeId: 'c', employeeName: 'C', netSales: 400 },
    ],
  };
  it('derives percentages and ranks the leaderboard by net sales, ties by id', () => {
    const view = salesView(sales, 'America/New_York');
    expect(view).toMatchObject({ discountsPercent: 5, voidsPercent: 2, averageCheck: 30 });
    expect(view.leaderboard.map((r) => [r.employeeId, r.rank])).toEqual([
      ['c', 1],
      ['a', 2],
      ['b', 3],
    ]);
  });
  it('computes labor percent against the same date’s net sales only', () => {
    const labor = {
      updatedAt: sales.updatedAt,
      currency: 'USD',
      roles: [{ roleGroup: 'Server', regularHours: 10, overtimeHours: 2, laborCost: 180, employeeCount: 2 }],
    };
    expect(laborView(labor, sales)).toMatchObject({ laborPercent: 20, totalHours: 12, salesPerLaborHour: 75 });
    expect(laborView(labor, null)).toMatchObject({ laborPercent: null, salesPerLaborHour: null });
  });
  it('orders the four leaderboards', () => {
    const row = (id: string, netSales: number, laborPercent: number, discountsPercent: number, voidsPercent: number) => ({
      locationId: id,
      locationName: id,
      locationShortName: id,
      businessDate: '20261120',
      netSales,
      laborPercent,
      discountsPercent,
      voidsPercent,
    });
    const ranked = rankLocations([row('x', 100, 30, 2, 1), row('y', 300, 20, 3, 0.5), row('z', 200, 25, 1, 2)]);
    expect(ranked.byNetSales.map((r) => r.locationId)).toEqual(['y', 'z', 'x']);
    expect(ranked.byLowestLaborPercent.map((r) => r.locationId)).toEqual(['y', 'z', 'x']);
    expect(ranked.byLowestDiscountsPercent.map((r) => r.locationId)).toEqual(['z', 'x', 'y']);
    expect(ranked.byLowestVoidsPercent.map((r) => r.locationId)).toEqual(['y', 'x', 'z']);
  });
});

describe('employees', () => {
  it('counts hires within the 30 days before the business date as new', () => {
    const view = employeesView(
      {
        updatedAt: '2026-11-20T20:00:00.000Z',
        employees: ['2026-11-20', '2026-10-22', '2026-10-21', '2026-11-21'].map((hiredOn, i) => ({
          id: `e${i}`,
          displayName: `E${i}`,
          jobCodes: [],
          isManager: false,
          hiredOn,
        })),
        jobs: [],
        shifts: [],
        timeEntries: [],
      },
      '20261120',
    );
    expect(view.employees.map((e) => e.newTeamMember)).toEqual([true, true, false, false]);
    expect(view.newTeamMemberCount).toBe(2);
  });
});
