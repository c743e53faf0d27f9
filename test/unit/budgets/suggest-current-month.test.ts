import { seededRandom } from '../../../infra/local/demo-data/random';
import { monthFigures } from '../../../shared/domain/budgets/status';
import { monthlySuggestion } from '../../../shared/domain/budgets/suggest';

/**
 * The suggestion's current month is its budget status's month-end forecast, on every day of a
 * month: the status forecasts to the month's end, the suggestion's later months to the last
 * month's end, and a backtest made at another horizon may choose another method.
 */
describe('a budget suggestion for the current month', () => {
  const DAY = 86_400_000;
  const rand = seededRandom(7);
  const points = new Map<string, number>();
  // Through 31 October 2025: a noisy weekly pattern with a level shift 6 weeks before the end.
  for (let t = 0; t < 214; t++) {
    const date = new Date(Date.UTC(2025, 3, 1) + t * DAY).toISOString().slice(0, 10);
    points.set(date, (t > 168 ? 160 : 100) + (t % 7 < 5 ? 30 : 0) + rand() * 25);
  }

  it.each(['2025-10-01', '2025-10-15', '2025-10-27', '2025-10-29', '2025-10-30'])(
    'with data through %s: the status month-end forecast, and the next months ahead',
    (dataThrough) => {
      const s = monthlySuggestion(points, dataThrough, ['2025-10', '2025-11', '2025-12'], '2025-10');
      const status = monthFigures(points, '2025-10', dataThrough, 0).forecast;
      expect(status).not.toBeNull();
      const round2 = (x: number) => Math.round(x * 100) / 100;
      expect(s?.['2025-10']).toEqual({
        value: round2(status!.value),
        lower80: round2(status!.lower80),
        upper80: round2(status!.upper80),
      });
      for (const m of ['2025-11', '2025-12']) {
        expect(s?.[m]?.value).toBeGreaterThan(0);
        expect(s?.[m]?.lower80).toBeLessThanOrEqual(s?.[m]?.value as number);
        expect(s?.[m]?.upper80).toBeGreaterThanOrEqual(s?.[m]?.value as number);
      }
    },
  );
});
