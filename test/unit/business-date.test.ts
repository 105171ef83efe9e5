import { describe, expect, it } from 'vitest';
import {
  activeBusinessDate,
  addDays,
  businessDayEndMs,
  businessDayStartMs,
  daysBetween,
  formatCompactDate,
  formatIsoDate,
  isValidTimeZone,
  localParts,
  parseCompactDate,
  parseIsoDate,
  zonedTimeToUtcMs,
  type CalendarDate,
} from '#contract/business-date';

const HOUR = 3_600_000;

/**
 * Instants are written as ISO timestamps with the zone's known UTC offset spelled out, so the
 * expected values never come from the code under test.
 */
function at(isoWithOffset: string): number {
  const ms = Date.parse(isoWithOffset);
  if (!/[+-]\d{2}:\d{2}$|Z$/.test(isoWithOffset) || Number.isNaN(ms)) throw new Error(`bad fixture ${isoWithOffset}`);
  return ms;
}

const date = (year: number, month: number, day: number): CalendarDate => ({ year, month, day });

describe('localParts', () => {
  it.each([
    ['America/New_York', '2026-02-03T00:00:00-05:00', [2026, 2, 3, 0, 0, 0]], // midnight is hour 0, never 24
    ['America/New_York', '2026-07-15T23:59:59-04:00', [2026, 7, 15, 23, 59, 59]],
    ['Europe/London', '2026-07-15T12:34:56+01:00', [2026, 7, 15, 12, 34, 56]],
    ['Asia/Tokyo', '2026-12-31T15:00:00Z', [2027, 1, 1, 0, 0, 0]], // +09:00
    ['Pacific/Kiritimati', '2026-02-03T10:00:00Z', [2026, 2, 4, 0, 0, 0]], // +14:00
    ['Pacific/Pago_Pago', '2026-02-03T10:00:00Z', [2026, 2, 2, 23, 0, 0]], // -11:00
    ['Asia/Kolkata', '2026-02-03T00:00:00Z', [2026, 2, 3, 5, 30, 0]], // +05:30
  ] as const)('%s at %s', (zone, iso, [year, month, day, hour, minute, second]) => {
    expect(localParts(zone, at(iso))).toEqual({ year, month, day, hour, minute, second });
  });

  it('throws RangeError for an unknown zone', () => {
    expect(() => localParts('Not/AZone', 0)).toThrow(RangeError);
  });
});

describe('activeBusinessDate at the 04:01 boundary', () => {
  // [zone, offset on 2026-02-03 (northern winter, southern summer)]
  const zones = [
    ['America/New_York', '-05:00'], // EST
    ['Europe/London', '+00:00'], // GMT
    ['Asia/Tokyo', '+09:00'], // JST, no DST
    ['Australia/Sydney', '+11:00'], // AEDT
    ['Pacific/Kiritimati', '+14:00'], // no DST
    ['Pacific/Pago_Pago', '-11:00'], // no DST
  ] as const;
  const cases = [
    ['00:00:00', '20260202'],
    ['03:30:00', '20260202'],
    ['04:00:00', '20260202'],
    ['04:00:59', '20260202'],
    ['04:01:00', '20260203'],
    ['04:01:01', '20260203'],
    ['12:00:00', '20260203'],
    ['23:59:59', '20260203'],
  ] as const;

  for (const [zone, offset] of zones) {
    it.each(cases)(`${zone}: 2026-02-03 %s local -> %s`, (time, expected) => {
      expect(activeBusinessDate(zone, at(`2026-02-03T${time}${offset}`))).toBe(expected);
    });
  }

  it.each([
    ['America/New_York', '-04:00'], // EDT
    ['Europe/London', '+01:00'], // BST
    ['Australia/Sydney', '+10:00'], // AEST
  ] as const)('%s in July (offset %s): 03:30 is the previous day, 04:01 the new one', (zone, offset) => {
    expect(activeBusinessDate(zone, at(`2026-07-15T03:30:00${offset}`))).toBe('20260714');
    expect(activeBusinessDate(zone, at(`2026-07-15T04:00:59${offset}`))).toBe('20260714');
    expect(activeBusinessDate(zone, at(`2026-07-15T04:01:00${offset}`))).toBe('20260715');
  });

  it('follows the location zone, not UTC: one instant, business dates two days apart', () => {
    const instant = at('2026-02-03T14:30:00Z');
    expect(activeBusinessDate('Pacific/Kiritimati', instant)).toBe('20260204'); // 2026-02-04 04:30 +14
    expect(activeBusinessDate('Pacific/Pago_Pago', instant)).toBe('20260202'); // 2026-02-03 03:30 -11
    expect(activeBusinessDate('UTC', instant)).toBe('20260203');
  });

  it('crosses the year boundary', () => {
    expect(activeBusinessDate('America/New_York', at('2027-01-01T03:59:00-05:00'))).toBe('20261231');
    expect(activeBusinessDate('America/New_York', at('2027-01-01T04:01:00-05:00'))).toBe('20270101');
    expect(activeBusinessDate('Pacific/Kiritimati', at('2027-01-01T03:59:00+14:00'))).toBe('20261231');
    expect(activeBusinessDate('Asia/Tokyo', at('2027-01-01T00:30:00+09:00'))).toBe('20261231');
  });

  it('handles leap days', () => {
    expect(activeBusinessDate('Europe/London', at('2024-02-29T03:30:00+00:00'))).toBe('20240228');
    expect(activeBusinessDate('Europe/London', at('2024-02-29T04:01:00+00:00'))).toBe('20240229');
    expect(activeBusinessDate('Europe/London', at('2024-03-01T03:30:00+00:00'))).toBe('20240229');
    expect(activeBusinessDate('Europe/London', at('2025-03-01T03:30:00+00:00'))).toBe('20250228');
  });
});

describe('activeBusinessDate on DST nights', () => {
  it.each([
    // New York spring-forward 2026-03-08: 02:00 EST (-05) jumps to 03:00 EDT (-04).
    ['America/New_York', '2026-03-08T01:59:59-05:00', '20260307'],
    ['America/New_York', '2026-03-08T03:00:00-04:00', '20260307'],
    ['America/New_York', '2026-03-08T03:30:00-04:00', '20260307'],
    ['America/New_York', '2026-03-08T04:00:59-04:00', '20260307'],
    ['America/New_York', '2026-03-08T04:01:00-04:00', '20260308'],
    // New York fall-back 2026-11-01: 02:00 EDT (-04) falls back to 01:00 EST (-05); 01:30 happens twice.
    ['America/New_York', '2026-11-01T01:30:00-04:00', '20261031'],
    ['America/New_York', '2026-11-01T01:30:00-05:00', '20261031'],
    ['America/New_York', '2026-11-01T03:30:00-05:00', '20261031'],
    ['America/New_York', '2026-11-01T04:00:00-05:00', '20261031'],
    ['America/New_York', '2026-11-01T04:01:00-05:00', '20261101'],
    // London spring-forward 2026-03-29: 01:00 GMT (+00) jumps to 02:00 BST (+01).
    ['Europe/London', '2026-03-29T00:59:59+00:00', '20260328'],
    ['Europe/London', '2026-03-29T02:30:00+01:00', '20260328'],
    ['Europe/London', '2026-03-29T04:00:59+01:00', '20260328'],
    ['Europe/London', '2026-03-29T04:01:00+01:00', '20260329'],
    // London fall-back 2026-10-25: 02:00 BST (+01) falls back to 01:00 GMT (+00); 01:30 happens twice.
    ['Europe/London', '2026-10-25T01:30:00+01:00', '20261024'],
    ['Europe/London', '2026-10-25T01:30:00+00:00', '20261024'],
    ['Europe/London', '2026-10-25T04:00:59+00:00', '20261024'],
    ['Europe/London', '2026-10-25T04:01:00+00:00', '20261025'],
    // Sydney fall-back 2026-04-05: 03:00 AEDT (+11) falls back to 02:00 AEST (+10).
    ['Australia/Sydney', '2026-04-05T02:30:00+11:00', '20260404'],
    ['Australia/Sydney', '2026-04-05T02:30:00+10:00', '20260404'],
    ['Australia/Sydney', '2026-04-05T04:01:00+10:00', '20260405'],
    // Sydney spring-forward 2026-10-04: 02:00 AEST (+10) jumps to 03:00 AEDT (+11).
    ['Australia/Sydney', '2026-10-04T01:59:59+10:00', '20261003'],
    ['Australia/Sydney', '2026-10-04T03:30:00+11:00', '20261003'],
    ['Australia/Sydney', '2026-10-04T04:01:00+11:00', '20261004'],
  ] as const)('%s at %s -> %s', (zone, iso, expected) => {
    expect(activeBusinessDate(zone, at(iso))).toBe(expected);
  });
});

describe('businessDayStartMs / businessDayEndMs', () => {
  it.each([
    // [zone, business date, start, exclusive end, length in hours]
    ['America/New_York', '20260203', '2026-02-03T04:01:00-05:00', '2026-02-04T04:01:00-05:00', 24],
    // 20260307 spans the spring-forward night and 20261031 the fall-back night.
    ['America/New_York', '20260307', '2026-03-07T04:01:00-05:00', '2026-03-08T04:01:00-04:00', 23],
    ['America/New_York', '20260308', '2026-03-08T04:01:00-04:00', '2026-03-09T04:01:00-04:00', 24],
    ['America/New_York', '20261031', '2026-10-31T04:01:00-04:00', '2026-11-01T04:01:00-05:00', 25],
    ['America/New_York', '20261101', '2026-11-01T04:01:00-05:00', '2026-11-02T04:01:00-05:00', 24],
    ['America/New_York', '20261231', '2026-12-31T04:01:00-05:00', '2027-01-01T04:01:00-05:00', 24],
    ['Europe/London', '20260328', '2026-03-28T04:01:00+00:00', '2026-03-29T04:01:00+01:00', 23],
    ['Europe/London', '20261024', '2026-10-24T04:01:00+01:00', '2026-10-25T04:01:00+00:00', 25],
    ['Europe/London', '20240229', '2024-02-29T04:01:00+00:00', '2024-03-01T04:01:00+00:00', 24],
    ['Australia/Sydney', '20260404', '2026-04-04T04:01:00+11:00', '2026-04-05T04:01:00+10:00', 25],
    ['Australia/Sydney', '20261003', '2026-10-03T04:01:00+10:00', '2026-10-04T04:01:00+11:00', 23],
    ['Asia/Tokyo', '20260308', '2026-03-08T04:01:00+09:00', '2026-03-09T04:01:00+09:00', 24],
    ['Pacific/Kiritimati', '20261231', '2026-12-31T04:01:00+14:00', '2027-01-01T04:01:00+14:00', 24],
    ['Pacific/Pago_Pago', '20260203', '2026-02-03T04:01:00-11:00', '2026-02-04T04:01:00-11:00', 24],
  ] as const)('%s %s runs %s .. %s (%ih)', (zone, businessDate, start, end, hours) => {
    const startMs = businessDayStartMs(zone, businessDate);
    const endMs = businessDayEndMs(zone, businessDate);
    expect(startMs).toBe(at(start));
    expect(endMs).toBe(at(end));
    expect(endMs - startMs).toBe(hours * HOUR);
    expect(activeBusinessDate(zone, startMs)).toBe(businessDate);
    expect(activeBusinessDate(zone, startMs - 1)).not.toBe(businessDate);
    expect(activeBusinessDate(zone, endMs - 1)).toBe(businessDate);
    expect(activeBusinessDate(zone, endMs)).not.toBe(businessDate);
  });

  it('rejects a business date that is not strict YYYYMMDD', () => {
    expect(() => businessDayStartMs('UTC', '20260230')).toThrow(RangeError);
    expect(() => businessDayEndMs('UTC', '2026-02-03')).toThrow(RangeError);
  });
});

describe('zonedTimeToUtcMs', () => {
  it.each([
    ['UTC', [2026, 2, 3], 4, 1, '2026-02-03T04:01:00Z'],
    ['Asia/Kathmandu', [2026, 2, 3], 4, 1, '2026-02-03T04:01:00+05:45'],
    // Spring-forward gaps: the wall time does not exist, so the result is the first instant after the gap.
    ['America/New_York', [2026, 3, 8], 2, 30, '2026-03-08T03:00:00-04:00'],
    ['Europe/London', [2026, 3, 29], 1, 30, '2026-03-29T02:00:00+01:00'],
    ['Australia/Sydney', [2026, 10, 4], 2, 30, '2026-10-04T03:00:00+11:00'],
    // Samoa skipped 2011-12-30 entirely (-10:00 to +14:00).
    ['Pacific/Apia', [2011, 12, 30], 12, 0, '2011-12-31T00:00:00+14:00'],
    // Fall-back overlaps: the wall time happens twice, so the result is the earlier instant.
    ['America/New_York', [2026, 11, 1], 1, 30, '2026-11-01T01:30:00-04:00'],
    ['Europe/London', [2026, 10, 25], 1, 30, '2026-10-25T01:30:00+01:00'],
    ['Australia/Sydney', [2026, 4, 5], 2, 30, '2026-04-05T02:30:00+11:00'],
    // Just outside the transitions the single valid instant is returned.
    ['America/New_York', [2026, 11, 1], 2, 30, '2026-11-01T02:30:00-05:00'],
    ['America/New_York', [2026, 3, 8], 1, 59, '2026-03-08T01:59:00-05:00'],
    ['Australia/Sydney', [2026, 4, 5], 3, 0, '2026-04-05T03:00:00+10:00'],
  ] as const)('%s %j %i:%i -> %s', (zone, [y, m, d], hour, minute, expected) => {
    expect(zonedTimeToUtcMs(zone, date(y, m, d), hour, minute)).toBe(at(expected));
  });
});

describe('parseCompactDate', () => {
  it.each([
    ['20260203', date(2026, 2, 3)],
    ['20261231', date(2026, 12, 31)],
    ['20240229', date(2024, 2, 29)], // divisible by 4
    ['20000229', date(2000, 2, 29)], // divisible by 400
    ['10000101', date(1000, 1, 1)],
    ['99991231', date(9999, 12, 31)],
  ] as const)('accepts %s', (value, expected) => {
    expect(parseCompactDate(value)).toEqual(expected);
  });

  it.each([
    '20260230',
    '20260231',
    '20260431',
    '20250229', // not a leap year
    '19000229', // divisible by 100 but not 400
    '20261301',
    '20260001',
    '20260100',
    '20260132',
    '09991231', // year below 1000
    '2026023',
    '202602030',
    ' 20260203',
    '20260203 ',
    '20260203\n',
    '2026-02-03',
    '+2026023',
    '2026O203',
    '２０２６０２０３', // full-width digits
    '',
  ])('rejects %j', (value) => {
    expect(parseCompactDate(value)).toBeNull();
  });
});

describe('parseIsoDate', () => {
  it.each([
    ['2026-02-03', date(2026, 2, 3)],
    ['2024-02-29', date(2024, 2, 29)],
    ['2000-02-29', date(2000, 2, 29)],
    ['2026-12-31', date(2026, 12, 31)],
  ] as const)('accepts %s', (value, expected) => {
    expect(parseIsoDate(value)).toEqual(expected);
  });

  it.each([
    '2026-02-30',
    '2025-02-29',
    '1900-02-29',
    '2026-13-01',
    '2026-00-10',
    '2026-01-00',
    '2026-2-3',
    '2026-02-3',
    '20260203',
    '2026-02-03T00:00',
    '2026-02-03Z',
    ' 2026-02-03',
    '2026/02/03',
    '0999-12-31',
    '',
  ])('rejects %j', (value) => {
    expect(parseIsoDate(value)).toBeNull();
  });
});

describe('formatting and calendar arithmetic', () => {
  it('formats zero-padded dates', () => {
    expect(formatCompactDate(date(2026, 2, 3))).toBe('20260203');
    expect(formatIsoDate(date(2026, 2, 3))).toBe('2026-02-03');
    expect(formatCompactDate(date(2026, 12, 31))).toBe('20261231');
    expect(formatIsoDate(date(1000, 1, 1))).toBe('1000-01-01');
  });

  it.each(['20240229', '20261231', '10000101'])('round-trips %s through both formats', (compact) => {
    const parsed = parseCompactDate(compact);
    if (!parsed) throw new Error(`${compact} should parse`);
    expect(formatCompactDate(parsed)).toBe(compact);
    const iso = formatIsoDate(parsed);
    expect(parseIsoDate(iso)).toEqual(parsed);
  });

  it.each([
    [date(2024, 2, 28), 1, date(2024, 2, 29)],
    [date(2024, 2, 28), 2, date(2024, 3, 1)],
    [date(2025, 2, 28), 1, date(2025, 3, 1)],
    [date(2026, 3, 1), -1, date(2026, 2, 28)],
    [date(2026, 12, 31), 1, date(2027, 1, 1)],
    [date(2027, 1, 1), -1, date(2026, 12, 31)],
    [date(2026, 3, 7), 1, date(2026, 3, 8)], // DST weekends are ordinary calendar days
    [date(2026, 1, 1), 365, date(2027, 1, 1)],
    [date(2026, 2, 3), 0, date(2026, 2, 3)],
  ] as const)('addDays(%j, %i) = %j', (from, days, expected) => {
    expect(addDays(from, days)).toEqual(expected);
  });

  it('counts whole calendar days between dates', () => {
    expect(daysBetween(date(2026, 1, 1), date(2027, 1, 1))).toBe(365);
    expect(daysBetween(date(2024, 1, 1), date(2025, 1, 1))).toBe(366);
    expect(daysBetween(date(2026, 3, 1), date(2026, 3, 31))).toBe(30);
    expect(daysBetween(date(2026, 3, 31), date(2026, 3, 1))).toBe(-30);
    expect(daysBetween(date(2026, 2, 3), date(2026, 2, 3))).toBe(0);
  });
});

describe('isValidTimeZone', () => {
  it.each(['America/New_York', 'Europe/London', 'Asia/Tokyo', 'Pacific/Kiritimati', 'UTC', 'Etc/UTC'])('accepts %s', (zone) => {
    expect(isValidTimeZone(zone)).toBe(true);
  });

  it.each(['', 'Not/AZone', '+05:00', '-11:00', 'America/New York', 'new_york'])('rejects %j', (zone) => {
    expect(isValidTimeZone(zone)).toBe(false);
  });
});

describe('property: an instant lies inside its own business day', () => {
  const zones = [
    'America/New_York',
    'Europe/London',
    'Asia/Tokyo',
    'Australia/Sydney',
    'Pacific/Kiritimati',
    'Pacific/Pago_Pago',
    'Asia/Kathmandu', // +05:45
    'Australia/Lord_Howe', // 30-minute DST shift
    'America/St_Johns', // -03:30 with DST
  ];

  it('holds for 2,000 seeded instants in every zone', () => {
    // Numerical Recipes LCG: deterministic, so a failure reproduces.
    let seed = 0x2026_0203;
    const next = (): number => {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      return seed / 2 ** 32;
    };
    const from = at('2024-01-01T00:00:00Z');
    const span = at('2029-01-01T00:00:00Z') - from;

    let checked = 0;
    for (let i = 0; i < 2_000; i += 1) {
      // Whole seconds, so about one sample in 700 per zone lands within a minute of a boundary.
      const t = from + Math.floor(next() * (span / 1000)) * 1000;
      for (const zone of zones) {
        const businessDate = activeBusinessDate(zone, t);
        const start = businessDayStartMs(zone, businessDate);
        const end = businessDayEndMs(zone, businessDate);
        if (!(start <= t && t < end)) {
          throw new Error(`${zone} ${new Date(t).toISOString()} -> ${businessDate} [${start}, ${end})`);
        }
        checked += 1;
      }
    }
    expect(checked).toBe(2_000 * zones.length);
  });
});
