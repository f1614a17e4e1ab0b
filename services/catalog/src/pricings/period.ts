/** A Pricing's billing period, e.g. "1 month", "1 year", "14 days". */
export interface Period {
  count: number;
  unit: 'day' | 'week' | 'month' | 'year';
}

const PERIOD_PATTERN = /^\s*(\d{1,4})\s*(day|week|month|year)s?\s*$/i;

/** Parses "N day(s)/week(s)/month(s)/year(s)" (N ≥ 1); null for anything else. */
export function parsePeriod(text: string): Period | null {
  const match = PERIOD_PATTERN.exec(text);
  if (!match) return null;
  const count = Number(match[1]);
  if (count < 1) return null;
  return { count, unit: (match[2] ?? '').toLowerCase() as Period['unit'] };
}

const daysInMonth = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** Calendar months in UTC; the day is clamped to the target month (Jan 31 + 1 month = Feb 28/29). */
function addMonths(start: Date, months: number): Date {
  const end = new Date(start.getTime());
  const targetMonth = start.getUTCMonth() + months;
  const year = start.getUTCFullYear() + Math.floor(targetMonth / 12);
  const month = ((targetMonth % 12) + 12) % 12;
  end.setUTCFullYear(year, month, Math.min(start.getUTCDate(), daysInMonth(year, month)));
  return end;
}

const DAY_MS = 86_400_000;

export function addPeriod(start: Date, period: Period): Date {
  switch (period.unit) {
    case 'day':
      return new Date(start.getTime() + period.count * DAY_MS);
    case 'week':
      return new Date(start.getTime() + period.count * 7 * DAY_MS);
    case 'month':
      return addMonths(start, period.count);
    case 'year':
      return addMonths(start, period.count * 12);
  }
}

/** End of a membership that starts at `start`; null (open-ended) when the period is unparseable. */
export function endOfPeriod(start: Date, periodText: string): Date | null {
  const period = parsePeriod(periodText);
  return period ? addPeriod(start, period) : null;
}
