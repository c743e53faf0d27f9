import { seededRandom } from '../../../infra/local/demo-data/random';
import { horizonQuantiles } from '../../../shared/domain/forecast/accuracy';

/**
 * `horizonQuantiles` against the definition, written here the slow way: for each horizon h, every
 * origin's errors at the horizons within ±10 % of h (at least ±1), NaN left out, sorted; the
 * nearest-rank 2.5/10/50/90/97.5 % values, the 95 % bounds at least the 80 % ones stretched as a
 * normal's are; past the backtest horizon the last one widened by √(h / hb).
 */
function reference(errors: Map<number, Float64Array>, hb: number, horizon: number, origins: number[]) {
  const rank = (n: number, p: number) => Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1));
  const out: number[][] = [];
  for (let h = 1; h <= Math.min(hb, horizon); h++) {
    const k = Math.max(1, Math.round(h / 10));
    const pool: number[] = [];
    for (const o of origins)
      for (let j = Math.max(1, h - k); j <= Math.min(hb, h + k); j++) {
        const v = errors.get(o)?.[j - 1];
        if (v !== undefined && !Number.isNaN(v)) pool.push(v);
      }
    pool.sort((a, b) => a - b);
    const n = pool.length;
    if (!n) {
      out.push([0, 0, 0, 0]);
      continue;
    }
    const at = (p: number) => pool[rank(n, p)] as number;
    const mid = at(0.5);
    const s = 1.96 / 1.2816;
    out.push([
      Math.min(at(0.025), mid + (at(0.1) - mid) * s),
      at(0.1),
      at(0.9),
      Math.max(at(0.975), mid + (at(0.9) - mid) * s),
    ]);
  }
  const last = out[out.length - 1] ?? [0, 0, 0, 0];
  for (let h = hb + 1; h <= horizon; h++) out.push(last.map((v) => v * Math.sqrt(h / hb)));
  return out;
}

describe('error quantiles per horizon', () => {
  it.each([
    [28, 28, 84],
    [7, 7, 84],
    [90, 90, 84],
    [14, 40, 42],
    [3, 3, 10],
  ])('hb %i, horizon %i, %i origins: the definition’s values', (hb, horizon, count) => {
    const rand = seededRandom(hb * 1000 + count);
    const errors = new Map<number, Float64Array>();
    const origins: number[] = [];
    for (let o = 0; o < count; o++) {
      origins.push(100 + o);
      // Ties (values on a coarse grid), negative and positive errors, NaN past the history.
      errors.set(
        100 + o,
        Float64Array.from({ length: hb }, (_, j) =>
          o + j >= count + hb - 5 ? Number.NaN : Math.round((rand() - 0.4) * 40) / 4,
        ),
      );
    }
    const got = horizonQuantiles(errors, hb, horizon, origins);
    expect(got).toHaveLength(horizon);
    const want = reference(errors, hb, horizon, origins);
    const digits = (qs: number[][]) => qs.map((q) => q.map((v) => Number(v.toPrecision(12))));
    expect(digits(got)).toEqual(digits(want));
  });
});
