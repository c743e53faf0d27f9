import { seededRandom } from '../../../infra/local/demo-data/random';
import { forecastDays, forecastSeries, forecastTotal, selectionOf } from '../../../shared/domain/forecast';

/**
 * The forecasting model on series whose right answer is known: every expected figure is computed
 * here from the function that generated the series, never from the model's own output.
 */
const DAY = 86_400_000;
const START = Date.UTC(2024, 0, 1); // a Monday
const dateOf = (t: number) => new Date(START + t * DAY).toISOString().slice(0, 10);
const series = (days: number, f: (t: number) => number) =>
  Array.from({ length: days }, (_, t) => ({ date: dateOf(t), value: f(t) }));
const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
const WEEK = [100, 120, 130, 125, 110, 40, 30]; // Monday … Sunday

function gaussian(seed: number): () => number {
  const rand = seededRandom(seed);
  return () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

describe('forecastSeries: known structure', () => {
  test('a pure weekly pattern is reproduced exactly', () => {
    const f = forecastSeries(
      series(140, (t) => WEEK[t % 7] ?? 0),
      { horizonDays: 28 },
    );
    expect(f.fallback).toBeUndefined();
    f.points.forEach((p, i) => {
      expect(p.date).toBe(dateOf(140 + i));
      expect(p.value).toBeCloseTo(WEEK[(140 + i) % 7] ?? 0, 6);
    });
    expect(f.accuracy?.wape).toBeCloseTo(0, 6);
  });

  test('a pure linear trend is extrapolated', () => {
    const line = (t: number) => 200 + 1.5 * t;
    const f = forecastSeries(series(200, line), { horizonDays: 90 });
    f.points.forEach((p, i) => {
      expect(p.value).toBeCloseTo(line(200 + i), 4);
    });
  });

  test('a trend on a weekly pattern is extrapolated with the pattern', () => {
    const y = (t: number) => (WEEK[t % 7] ?? 0) + 0.8 * t;
    const f = forecastSeries(series(210, y), { horizonDays: 28 });
    f.points.forEach((p, i) => {
      expect(p.value).toBeCloseTo(y(210 + i), 4);
    });
  });

  test('a level shift two weeks before the end is followed, where the four-week weekday mean averages it away', () => {
    const noise = gaussian(1);
    const level = (t: number) => (t < 266 ? 100 : 160);
    const history = series(280, (t) => (level(t) * (WEEK[t % 7] ?? 0) * (1 + 0.02 * noise())) / 100);
    const expected = sum(Array.from({ length: 28 }, (_, i) => (160 * (WEEK[(280 + i) % 7] ?? 0)) / 100));
    const f = forecastSeries(history, { horizonDays: 28 });
    expect(Math.abs(sum(f.points.map((p) => p.value)) / expected - 1)).toBeLessThan(0.06);
    // The legacy baseline, on the same history, averages two old and two new weeks: 130 for 160.
    const daily = new Map(history.map((r) => [r.date, r.value]));
    const legacy = sum(forecastDays(daily, START + 279 * DAY, 28).map((d) => d.value));
    expect(Math.abs(legacy / expected - 1)).toBeGreaterThan(0.15);
  });

  test('a month-start charge is forecast on the 1st, a month-end one on the last day, and nowhere else', () => {
    const noise = gaussian(2);
    const y = (t: number) => {
      const d = new Date(START + t * DAY);
      const first = d.getUTCDate() === 1 ? 1000 : 0;
      const last = new Date(START + (t + 1) * DAY).getUTCDate() === 1 ? 300 : 0;
      return (WEEK[t % 7] ?? 0) * (1 + 0.02 * noise()) + first + last;
    };
    // History through 2024-10-15; the forecast covers 2024-10-31, 2024-11-01, 2024-11-30, 2024-12-01.
    const days = 289;
    expect(dateOf(days - 1)).toBe('2024-10-15');
    const f = forecastSeries(series(days, y), { horizonDays: 60 });
    for (const p of f.points) {
      const d = new Date(`${p.date}T00:00:00Z`);
      const t = (d.getTime() - START) / DAY;
      const base = WEEK[t % 7] ?? 0;
      const extra = d.getUTCDate() === 1 ? 1000 : new Date(d.getTime() + DAY).getUTCDate() === 1 ? 300 : 0;
      expect(Math.abs(p.value - (base + extra))).toBeLessThan(0.08 * base + 0.05 * extra + 1);
    }
  });

  test('a month-start charge that changed (a support plan raised three months ago) is forecast at its new amount', () => {
    const noise = gaussian(4);
    const raisedFrom = Date.UTC(2024, 7, 1); // 2024-08-01: 1,000 on the 1st before, 2,500 from then on
    const charge = (t: number) => {
      const at = START + t * DAY;
      if (new Date(at).getUTCDate() !== 1) return 0;
      return at >= raisedFrom ? 2500 : 1000;
    };
    // History through 2024-10-15: seven 1sts at 1,000, three at 2,500.
    const days = 289;
    const f = forecastSeries(
      series(days, (t) => (WEEK[t % 7] ?? 0) * (1 + 0.02 * noise()) + charge(t)),
      { horizonDays: 60 },
    );
    for (const p of f.points) {
      const t = (Date.parse(`${p.date}T00:00:00Z`) - START) / DAY;
      const base = WEEK[t % 7] ?? 0;
      const extra = p.date.endsWith('-01') ? 2500 : 0;
      expect(Math.abs(p.value - (base + extra))).toBeLessThan(0.08 * base + 0.05 * extra + 1);
    }
    expect(f.calendar.monthStart).toBeGreaterThan(2500 * 0.95);
  });

  test('a month-start charge that stopped three months ago is no longer forecast', () => {
    const noise = gaussian(5);
    const stoppedFrom = Date.UTC(2024, 7, 1); // 1,000 on the 1st until 2024-07-01, none from 2024-08-01
    const y = (t: number) => {
      const at = START + t * DAY;
      const charge = new Date(at).getUTCDate() === 1 && at < stoppedFrom ? 1000 : 0;
      return (WEEK[t % 7] ?? 0) * (1 + 0.02 * noise()) + charge;
    };
    const f = forecastSeries(series(289, y), { horizonDays: 60 });
    for (const p of f.points) {
      const base = WEEK[((Date.parse(`${p.date}T00:00:00Z`) - START) / DAY) % 7] ?? 0;
      expect(Math.abs(p.value - base)).toBeLessThan(0.08 * base + 1);
    }
    expect(f.calendar.monthStart).toBe(0);
  });

  test('a sparse series (seven days in ten at zero) is forecast at its mean rate, never below zero', () => {
    const rand = seededRandom(3);
    const history = series(364, () => (rand() < 0.3 ? 300 : 0));
    const f = forecastSeries(history, { horizonDays: 28 });
    for (const p of f.points) {
      expect(p.value).toBeGreaterThanOrEqual(0);
      expect(p.lower95).toBeGreaterThanOrEqual(0);
      expect(p.upper80).toBeGreaterThan(p.lower80);
    }
    // The true mean is 0.3 × 300 = 90 a day; the forecast of the 28 days is near 28 × 90.
    expect(Math.abs(sum(f.points.map((p) => p.value)) / (28 * 90) - 1)).toBeLessThan(0.2);
    // Most actual days are 0, so a daily MAPE is meaningless: the accuracy gives none, but a WAPE.
    expect(f.accuracy?.mape).toBeNull();
    expect(f.accuracy?.wape).toBeGreaterThan(0);
  });

  test('negative days (credits) are forecast as negative: a credit series and a monthly credit on the 1st', () => {
    const noise = gaussian(4);
    const credits = forecastSeries(
      series(200, () => -50 * (1 + 0.05 * noise())),
      { horizonDays: 14 },
    );
    for (const p of credits.points) {
      expect(p.value).toBeGreaterThan(-55);
      expect(p.value).toBeLessThan(-45);
      expect(p.lower95).toBeLessThan(p.value);
      expect(p.upper95).toBeGreaterThan(p.value);
    }
    const monthly = forecastSeries(
      series(
        289,
        (t) => 100 * (1 + 0.02 * noise()) - (new Date(START + t * DAY).getUTCDate() === 1 ? 400 : 0),
      ),
      { horizonDays: 31 },
    );
    const first = monthly.points.find((p) => p.date === '2024-11-01');
    expect(first?.value).toBeGreaterThan(-330);
    expect(first?.value).toBeLessThan(-270);
    const other = monthly.points.find((p) => p.date === '2024-11-02');
    expect(Math.abs((other?.value ?? 0) - 100)).toBeLessThan(8);
  });

  test('a history under four weeks falls back to the weekday mean of the available weeks, and says so', () => {
    // 21 days: three whole weeks of the pattern with +10, +0, -10 per week.
    const history = series(21, (t) => (WEEK[t % 7] ?? 0) + (t < 7 ? 10 : t < 14 ? 0 : -10));
    const f = forecastSeries(history, { horizonDays: 10 });
    expect(f.fallback?.reason).toBe('short-history');
    expect(f.method).toBe('weekday-mean');
    expect(f.accuracy).toBeNull();
    f.points.forEach((p, i) => {
      expect(p.value).toBeCloseTo(WEEK[(21 + i) % 7] ?? 0, 9);
      expect(p.upper80).toBeGreaterThan(p.value);
      expect(p.upper95).toBeGreaterThan(p.upper80);
    });
  });

  test('a short history still gives a bucket total whose intervals hold the true total of the pattern', () => {
    const history = series(21, (t) => (WEEK[t % 7] ?? 0) + (t < 7 ? 10 : t < 14 ? 0 : -10));
    const f = forecastSeries(history, { horizonDays: 14 });
    // Days 21 … 27: one whole week of the pattern, whose expected total is the pattern's sum.
    const week = forecastTotal(f, history, dateOf(21), dateOf(27));
    expect(week.actualDays).toBe(0);
    expect(week.forecastDays).toBe(7);
    expect(week.value).toBeCloseTo(sum(WEEK), 6);
    expect(week.lower80).toBeLessThan(sum(WEEK));
    expect(week.upper80).toBeGreaterThan(sum(WEEK));
    expect(week.lower95).toBeLessThan(week.lower80);
  });

  test('eight to thirteen weeks of history: the backtest runs at a shorter horizon and says so', () => {
    const noise = gaussian(5);
    const f = forecastSeries(
      series(70, (t) => (WEEK[t % 7] ?? 0) * (1 + 0.05 * noise())),
      { horizonDays: 90 },
    );
    expect(f.fallback).toBeUndefined();
    expect(f.points).toHaveLength(90);
    // 70 days: 28 to fit and 14 origins leave 28 days of horizon.
    expect(f.accuracy?.horizonDays).toBe(28);
    expect(f.history).toEqual({ from: dateOf(0), to: dateOf(69), days: 70 });
  });

  test('days missing from the history count as 0 and dataThrough extends it', () => {
    const history = series(140, (t) => WEEK[t % 7] ?? 0).filter((r) => r.value !== 30);
    const f = forecastSeries(history, { horizonDays: 7, dataThrough: dateOf(139) });
    f.points.forEach((p, i) => {
      const want = WEEK[(140 + i) % 7] ?? 0;
      expect(p.value).toBeCloseTo(want === 30 ? 0 : want, 6);
    });
  });

  test('a selection passed back is reused on the same data and ignored on other data', () => {
    const history = series(140, (t) => (WEEK[t % 7] ?? 0) + 0.5 * t);
    const first = forecastSeries(history, { horizonDays: 28 });
    const selection = selectionOf(first);
    expect(selection).toBeDefined();
    expect(forecastSeries(history, { horizonDays: 28, selection })).toEqual(first);
    // Twice the series: the old selection's forecast would be half of it.
    const doubled = forecastSeries(
      series(140, (t) => 2 * ((WEEK[t % 7] ?? 0) + 0.5 * t)),
      { horizonDays: 28, selection },
    );
    doubled.points.forEach((p, i) => {
      expect(p.value).toBeCloseTo(2 * ((WEEK[(140 + i) % 7] ?? 0) + 0.5 * (140 + i)), 4);
    });
  });

  test('a horizon outside 1 … 1095 days or a value that is not a number is refused', () => {
    const h = series(60, () => 1);
    expect(() => forecastSeries(h, { horizonDays: 0 })).toThrow(RangeError);
    expect(() => forecastSeries(h, { horizonDays: 1096 })).toThrow(RangeError);
    expect(() => forecastSeries([{ date: '2024-01-01', value: Number.NaN }], { horizonDays: 1 })).toThrow(
      RangeError,
    );
  });
});

describe('forecastSeries: intervals and accuracy on simulated data with known noise', () => {
  // Level 1000 × weekly pattern, Gaussian noise of 10 % of the day's mean, 40 series; each forecast
  // is scored against a held-out continuation drawn from the same process.
  const runs = Array.from({ length: 40 }, (_, k) => {
    const noise = gaussian(100 + k);
    const mean = (t: number) => 10 * (WEEK[t % 7] ?? 0);
    const values = Array.from({ length: 364 + 28 }, (_, t) => mean(t) * (1 + 0.1 * noise()));
    const history = values.slice(0, 364).map((value, t) => ({ date: dateOf(t), value }));
    return { values, history, mean, f: forecastSeries(history, { horizonDays: 28 }) };
  });

  test('about 80 % and 95 % of the held-out days fall inside the 80 % and 95 % intervals', () => {
    let in80 = 0;
    let in95 = 0;
    let n = 0;
    for (const { values, f } of runs)
      f.points.forEach((p, i) => {
        const a = values[364 + i] ?? 0;
        n++;
        if (a >= p.lower80 && a <= p.upper80) in80++;
        if (a >= p.lower95 && a <= p.upper95) in95++;
      });
    expect(in80 / n).toBeGreaterThan(0.74);
    expect(in80 / n).toBeLessThan(0.86);
    expect(in95 / n).toBeGreaterThan(0.91);
    expect(in95 / n).toBeLessThan(0.99);
  });

  test('the accuracy figures match the known noise: WAPE about E|e| = 8 % of the mean, MASE and MAE relative to seasonal naive about 1/√2', () => {
    for (const { f } of runs) {
      const a = f.accuracy;
      expect(a?.horizonDays).toBe(28);
      expect(a?.origins).toBeGreaterThanOrEqual(80);
      // E|N(0, 0.1)| = 0.1 × √(2/π) ≈ 0.080 of the day's mean; the model's own error adds a little.
      expect(a?.wape).toBeGreaterThan(0.065);
      expect(a?.wape).toBeLessThan(0.11);
      // Seasonal naive's error is the difference of two noises (√2 larger): a perfect model scores
      // 0.71; the model's own estimation error adds some, seasonal naive itself scores 1.
      expect(a?.mase).toBeGreaterThan(0.55);
      expect(a?.mase).toBeLessThan(0.95);
      expect(a?.relativeMae).toBeGreaterThan(0.6);
      expect(a?.relativeMae).toBeLessThan(0.85);
      expect(a?.coverage80).toBeGreaterThan(0.6);
      expect(a?.coverage80).toBeLessThan(0.95);
    }
  });

  test('a month partly actual and partly forecast: the total adds the actual days to the forecast ones, and its 80 % interval holds about 80 % of the true totals', () => {
    // History ends 2024-12-29 (day 363); December is 29 actual days + 2 forecast days. The bucket
    // 2024-12-16 … 2025-01-26 is 14 actual days + 28 forecast days.
    let in80 = 0;
    let in95 = 0;
    for (const { values, history, f } of runs) {
      const dec = forecastTotal(f, history, '2024-12-01', '2024-12-31');
      const decActual = sum(values.slice(335, 364));
      expect(dec.actual).toBeCloseTo(decActual, 6);
      expect(dec.actualDays).toBe(29);
      expect(dec.forecastDays).toBe(2);
      expect(dec.value).toBeCloseTo(decActual + (f.points[0]?.value ?? 0) + (f.points[1]?.value ?? 0), 6);
      const b = forecastTotal(f, history, '2024-12-16', '2025-01-26');
      const truth = sum(values.slice(350, 392));
      expect(b.actual).toBeCloseTo(sum(values.slice(350, 364)), 6);
      expect(b.lower95).toBeLessThanOrEqual(b.lower80);
      expect(b.lower80).toBeLessThan(b.upper80);
      expect(b.upper95).toBeGreaterThanOrEqual(b.upper80);
      if (truth >= b.lower80 && truth <= b.upper80) in80++;
      if (truth >= b.lower95 && truth <= b.upper95) in95++;
    }
    expect(in80 / runs.length).toBeGreaterThanOrEqual(0.65);
    expect(in80 / runs.length).toBeLessThanOrEqual(0.95);
    expect(in95 / runs.length).toBeGreaterThanOrEqual(0.85);
  });

  test('a bucket entirely in the past is the actual total with no width', () => {
    const { history, values, f } = runs[0] as (typeof runs)[number];
    const t = forecastTotal(f, history, '2024-11-01', '2024-11-30');
    expect(t.value).toBeCloseTo(sum(values.slice(305, 335)), 6);
    expect(t.lower95).toBe(t.value);
    expect(t.upper95).toBe(t.value);
  });
});

describe('a history given as columns', () => {
  test('columns (a first day and one value a day, null for no data) forecast exactly as the same days as rows', () => {
    const noise = gaussian(6);
    const values: (number | null)[] = Array.from({ length: 300 }, (_, t) =>
      t % 11 === 3 ? null : (WEEK[t % 7] ?? 0) * (1 + 0.1 * noise()) + (dateOf(t).endsWith('-01') ? 500 : 0),
    );
    const rows = values.map((v, t) => ({ date: dateOf(t), value: v ?? 0 }));
    const dataThrough = dateOf(304); // four days past the last value: zeros in both forms
    const a = forecastSeries(rows, { horizonDays: 40, dataThrough });
    const b = forecastSeries({ from: dateOf(0), values }, { horizonDays: 40, dataThrough });
    expect(b).toEqual(a);
    // A month partly actual, partly forecast: the actual days are the same sum in both forms.
    const month = forecastTotal(b, { from: dateOf(0), values }, '2024-10-01', '2024-10-31');
    expect(month).toEqual(forecastTotal(a, rows, '2024-10-01', '2024-10-31'));
    expect(month.actual).toBeCloseTo(sum(rows.filter((r) => r.date >= '2024-10-01').map((r) => r.value)), 9);
  });
});
