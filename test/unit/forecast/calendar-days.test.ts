import { calendarOn, isMonthEnd, isMonthStart } from '../../../shared/domain/forecast/methods';

/** Month starts and ends as `Date` tells them, on every day the model's table holds and beyond. */
describe('month-start and month-end days', () => {
  const DAY = 86_400_000;
  const byDate = (day: number) => {
    const d = new Date(day * DAY);
    const next = new Date((day + 1) * DAY);
    return { start: d.getUTCDate() === 1, end: next.getUTCDate() === 1 };
  };

  it('agrees with Date on every day from 1969 to 2201, across the table edges', () => {
    const first = Date.UTC(1969, 0, 1) / DAY;
    const last = Date.UTC(2201, 11, 31) / DAY;
    let starts = 0;
    let ends = 0;
    for (let day = first; day <= last; day++) {
      const want = byDate(day);
      if (isMonthStart(day) !== want.start || isMonthEnd(day) !== want.end)
        throw new Error(`day ${day} (${new Date(day * DAY).toISOString().slice(0, 10)})`);
      if (want.start) starts++;
      if (want.end) ends++;
    }
    // 233 years of 12 months each.
    expect(starts).toBe(233 * 12);
    expect(ends).toBe(233 * 12);
  });

  it('adds the effects of the day: the 1st, the last day, both on neither', () => {
    const c = { monthStart: 5, monthEnd: -2 };
    expect(calendarOn(Date.UTC(2024, 2, 1) / DAY, c)).toBe(5);
    expect(calendarOn(Date.UTC(2024, 1, 29) / DAY, c)).toBe(-2);
    expect(calendarOn(Date.UTC(2023, 1, 28) / DAY, c)).toBe(-2);
    expect(calendarOn(Date.UTC(2024, 1, 28) / DAY, c)).toBe(0);
    expect(calendarOn(Date.UTC(2250, 0, 1) / DAY, c)).toBe(5);
  });
});
