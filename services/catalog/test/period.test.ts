import { describe, expect, it } from 'vitest';
import { addPeriod, endOfPeriod, parsePeriod } from '../src/pricings/period.js';

const utc = (text: string) => new Date(`${text}Z`);

describe('parsePeriod', () => {
  it('reads "N unit(s)" in any case and spacing', () => {
    expect(parsePeriod('1 month')).toEqual({ count: 1, unit: 'month' });
    expect(parsePeriod('14 days')).toEqual({ count: 14, unit: 'day' });
    expect(parsePeriod(' 2  Weeks ')).toEqual({ count: 2, unit: 'week' });
    expect(parsePeriod('1 YEAR')).toEqual({ count: 1, unit: 'year' });
  });

  it('refuses anything else', () => {
    for (const text of ['', 'monthly', '0 days', '-1 day', '1.5 months', '1 fortnight', 'month', '12345 days']) {
      expect(parsePeriod(text), text).toBeNull();
    }
  });
});

describe('addPeriod', () => {
  it('adds days and weeks exactly, keeping the time of day', () => {
    expect(addPeriod(utc('2025-03-30T10:15:00'), { count: 14, unit: 'day' })).toEqual(utc('2025-04-13T10:15:00'));
    expect(addPeriod(utc('2025-12-29T00:00:00'), { count: 2, unit: 'week' })).toEqual(utc('2026-01-12T00:00:00'));
  });

  it('adds calendar months and years, clamping the day to the target month', () => {
    expect(addPeriod(utc('2025-01-31T08:00:00'), { count: 1, unit: 'month' })).toEqual(utc('2025-02-28T08:00:00'));
    expect(addPeriod(utc('2024-01-31T08:00:00'), { count: 1, unit: 'month' })).toEqual(utc('2024-02-29T08:00:00'));
    expect(addPeriod(utc('2025-11-15T00:00:00'), { count: 3, unit: 'month' })).toEqual(utc('2026-02-15T00:00:00'));
    expect(addPeriod(utc('2024-02-29T12:00:00'), { count: 1, unit: 'year' })).toEqual(utc('2025-02-28T12:00:00'));
  });
});

describe('endOfPeriod', () => {
  it('is open-ended (null) for an unparseable period', () => {
    expect(endOfPeriod(utc('2025-01-01T00:00:00'), 'lifetime')).toBeNull();
    expect(endOfPeriod(utc('2025-01-01T00:00:00'), '1 year')).toEqual(utc('2026-01-01T00:00:00'));
  });
});
