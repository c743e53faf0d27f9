import { seededRandom } from '../../../infra/local/demo-data/random';
import { forecastSeries, forecastTotal } from '../../../shared/domain/forecast';
import { toDate, toDay } from '../../../shared/domain/forecast/days';
import { errorModelOf } from '../../../shared/domain/forecast/forecast';

/**
 * A one-day bucket's interval against the definition, written here the slow way: the backtest's
 * errors at that day's horizon over every origin (NaN left out), sorted, their nearest-rank
 * 2.5/10/90/97.5 % values (the 95 % ones at least the 80 % ones stretched as a normal's are)
 * added to the day's forecast, clipped at the bucket's actual part for a series without negatives.
 */
function dayBounds(errors: Map<number, Float64Array>, h: number, value: number, nonNegative: boolean) {
  const pool = [...errors.values()].map((e) => e[h - 1] ?? Number.NaN).filter((v) => !Number.isNaN(v));
  pool.sort((a, b) => a - b);
  const n = pool.length;
  const at = (p: number) => pool[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))] as number;
  const mid = at(0.5);
  const s = 1.96 / 1.2816;
  const clip = (v: number) => (nonNegative ? Math.max(0, v) : v);
  return {
    lower95: clip(value + Math.min(at(0.025), mid + (at(0.1) - mid) * s)),
    lower80: clip(value + at(0.1)),
    upper80: clip(value + at(0.9)),
    upper95: clip(value + Math.max(at(0.975), mid + (at(0.9) - mid) * s)),
  };
}

describe('a one-day bucket of the forecast', () => {
  it.each([
    ['a weekly series with noise', false, 28],
    ['a series with credits (negative days)', true, 28],
    ['a short horizon', false, 7],
  ])('%s: its interval is that day’s backtest errors’ quantiles', (_name, credits, horizon) => {
    const rand = seededRandom(horizon * 7 + (credits ? 1 : 0));
    const from = '2024-01-01';
    const values = Array.from({ length: 300 }, (_, t) => {
      const v = (t % 7 >= 5 ? 40 : 100) * (1 + 0.2 * (rand() - 0.5));
      return credits && t % 9 === 0 ? v - 150 : Math.round(v * 100) / 100;
    });
    const history = { from, values };
    const f = forecastSeries(history, { horizonDays: horizon });
    const model = errorModelOf(f);
    expect(model).toBeDefined();
    const last = toDay(from) + values.length - 1;
    for (let h = 1; h <= horizon; h++) {
      const day = toDate(last + h);
      const t = forecastTotal(f, history, day, day);
      const value = f.points[h - 1]?.value ?? Number.NaN;
      expect(t.forecast).toBe(value);
      const want = dayBounds(model?.errors ?? new Map(), h, value, !credits);
      expect({ lower95: t.lower95, lower80: t.lower80, upper80: t.upper80, upper95: t.upper95 }).toEqual({
        lower95: expect.closeTo(want.lower95, 9),
        lower80: expect.closeTo(want.lower80, 9),
        upper80: expect.closeTo(want.upper80, 9),
        upper95: expect.closeTo(want.upper95, 9),
      });
    }
  });
});
