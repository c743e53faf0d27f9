import { type CsvRow, num, readCsv } from '../integration/warehouse/support';
import { ingestOk } from '../support/cli';
import { writeDailyFocusCsv } from '../support/daily-focus';
import { costQuery } from '../support/explorer';
import { freshOrg } from '../support/fresh-org';
import { api } from '../support/session';

/**
 * The explorer's forecast over HTTP on the local stack (docs/queries.md, "Forecast"), on an
 * organisation billed with two generated series whose continuation is known: `Weekly`, a pure
 * weekly pattern, and `Trend`, a pure line. The expected figures are computed here from the
 * generating formulas and the raw rows, never from the engine.
 */
const run = Math.random().toString(36).slice(2, 8);
const orgId = `org_fcst${run}`;
const DAY_MS = 86_400_000;
const HISTORY_DAYS = 210;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);
const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);
/** Monday … Sunday. */
const WEEKLY = [100, 120, 110, 130, 90, 40, 30];
const weekly = (d: string) => WEEKLY[(new Date(dayMs(d)).getUTCDay() + 6) % 7]!;
let first = 0;
const trend = (d: string) => 20 + 0.25 * Math.round((dayMs(d) - first) / DAY_MS);

interface Bounds {
  lower80: number;
  upper80: number;
  lower95: number;
  upper95: number;
}
interface Bucket extends Bounds {
  date: string;
  value: number;
  actual?: number;
  bucketTotal?: Bounds & { value: number };
}
interface Series {
  group: Record<string, string | null>;
  forecast?: Bucket[];
  forecastAccuracy?: {
    method: string;
    history: { from: string; to: string; days: number };
    accuracy: { horizonDays: number; origins: number; coverage80: number | null } | null;
    fallback: unknown;
  };
}
interface Answer {
  queries: { name: string; series: Series[] }[];
  dataThrough: string | null;
}

let token = '';
let rows: CsvRow[] = [];
let through = '';

async function explore(period: Record<string, unknown>): Promise<Answer> {
  const res = await api<Answer>('POST', '/queries/explorer', {
    token,
    body: { request: { period, queries: [costQuery('a', { groupBy: 'service' })] } },
  });
  if (res.status !== 200) throw new Error(`explorer ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}
/** Daily buckets from `past` days before the data's last day to `ahead` days after it, forecast over those days. */
const exploreDays = (past: number, ahead: number, extra: Record<string, unknown> = {}) =>
  explore({
    startDate: ymd(dayMs(through) - past * DAY_MS),
    endDate: ymd(dayMs(through) + ahead * DAY_MS),
    aggBy: 'Day',
    forecastDays: ahead,
    ...extra,
  });
const seriesOf = (a: Answer, service: string) => {
  const s = a.queries[0]!.series.find((x) => x.group.service === service);
  if (!s?.forecast) throw new Error(`no forecast for ${service}`);
  return s as Series & { forecast: Bucket[] };
};
const near = (actual: number, expected: number, rel: number) =>
  Math.abs(actual - expected) <= rel * Math.max(1, Math.abs(expected));
const expectNear = (actual: number, expected: number, rel: number, what: string) => {
  if (!near(actual, expected, rel)) throw new Error(`${what}: got ${actual}, expected ${expected}`);
};
const inside = (v: number, b: Bounds) =>
  b.lower95 <= b.lower80 + 1e-9 &&
  b.lower80 <= v + 1e-9 &&
  v <= b.upper80 + 1e-9 &&
  b.upper80 <= b.upper95 + 1e-9;

beforeAll(async () => {
  token = await freshOrg(orgId, `user_fcst${run}`, `forecast ${run}`);
  const today = dayMs(ymd(Date.now()));
  first = today - HISTORY_DAYS * DAY_MS;
  // One row a day per series, through yesterday: dataThrough is two days before today.
  const file = writeDailyFocusCsv({
    seed: 5,
    accountPrefix: `fc${run}`,
    from: ymd(first),
    to: ymd(today - DAY_MS),
    series: [
      { service: 'Weekly', value: weekly },
      { service: 'Trend', value: trend },
    ],
  });
  rows = readCsv(file);
  ingestOk(orgId, file);
  through = ymd(today - 2 * DAY_MS);
}, 600_000);

jest.setTimeout(300_000);

describe('explorer forecast (forecasting model)', () => {
  it('reproduces a pure weekly pattern and extrapolates a pure line, with intervals and accuracy', async () => {
    const a = await exploreDays(13, 28);
    expect(a.dataThrough).toBe(through);
    const w = seriesOf(a, 'Weekly');
    const t = seriesOf(a, 'Trend');
    const expectedDays = Array.from({ length: 28 }, (_, k) => ymd(dayMs(through) + (k + 1) * DAY_MS));
    expect(w.forecast.map((p) => p.date)).toEqual(expectedDays);
    for (const p of w.forecast) {
      expectNear(p.value, weekly(p.date), 1e-6, `Weekly ${p.date}`);
      expect(inside(p.value, p)).toBe(true);
      // A noiseless series: the backtest never missed, so the interval has no width.
      expect(p.upper95 - p.lower95).toBeLessThan(1e-6 * p.value);
    }
    for (const p of t.forecast) {
      expectNear(p.value, trend(p.date), 1e-3, `Trend ${p.date}`);
      expect(inside(p.value, p)).toBe(true);
    }
    for (const s of [w, t]) {
      const acc = s.forecastAccuracy!;
      // History: the series' first day through dataThrough (under the 365 days asked for).
      expect(acc.history).toEqual({ from: ymd(first), to: through, days: HISTORY_DAYS - 1 });
      expect(acc.fallback).toBeNull();
      expect(acc.accuracy?.horizonDays).toBe(28);
      expect(acc.accuracy?.origins).toBeGreaterThan(0);
      expect(acc.method).not.toBe('weekday-mean');
    }
  });

  it('puts the interval on a whole month partly actual, partly forecast', async () => {
    const next = dayMs(through) + DAY_MS;
    const m = ymd(next).slice(0, 7);
    const monthStart = `${m}-01`;
    const monthEnd = ymd(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0));
    const days = Math.round((dayMs(monthEnd) - dayMs(through)) / DAY_MS);
    const a = await explore({ startDate: monthStart, endDate: monthEnd, aggBy: 'Month', forecastDays: days });
    const actualOf = (service: string) =>
      rows
        .filter((r) => {
          const d = String(r.ChargePeriodStart).slice(0, 10);
          return r.ServiceName === service && d >= monthStart && d <= through;
        })
        .reduce((acc, r) => acc + num(r.BilledCost), 0);
    const rest = (f: (d: string) => number) =>
      Array.from({ length: days }, (_, k) => f(ymd(next + k * DAY_MS))).reduce((x, y) => x + y, 0);
    for (const [service, f] of [
      ['Weekly', weekly],
      ['Trend', trend],
    ] as const) {
      const s = seriesOf(a, service);
      expect(s.forecast).toHaveLength(1);
      const b = s.forecast[0]!;
      expect(b.date).toBe(monthStart);
      expectNear(b.value, rest(f), 1e-3, `${service} forecast part`);
      if (monthStart <= through) {
        expectNear(b.actual!, actualOf(service), 1e-9, `${service} actual`);
        const total = b.bucketTotal!;
        expectNear(total.value, actualOf(service) + rest(f), 1e-3, `${service} month`);
        expect(inside(total.value, total)).toBe(true);
        // The actual days add no width: the whole month's interval is the forecast part's, shifted.
        expectNear(total.upper80 - total.lower80, b.upper80 - b.lower80, 1e-9, `${service} width`);
      } else expect(b.bucketTotal).toBeUndefined();
    }
  });

  it('keeps the legacy same-weekday mean as the named baseline', async () => {
    const a = await exploreDays(6, 7, { forecastMethod: 'weekday-mean' });
    const t = seriesOf(a, 'Trend');
    expect(t.forecastAccuracy?.method).toBe('weekday-mean');
    for (const p of t.forecast) {
      // The mean of the same weekday over the four weeks ending at dataThrough: a line lags.
      const mean = [7, 14, 21, 28].reduce((acc, k) => acc + trend(ymd(dayMs(p.date) - k * DAY_MS)), 0) / 4;
      expectNear(p.value, mean, 1e-9, `baseline ${p.date}`);
      expect(p.value).toBeLessThan(trend(p.date));
    }
  });

  it('gives the report DIGEST the month-end forecast with its 80 % interval', async () => {
    const res = await api<{
      forecast: {
        month: string;
        value: number;
        lower80: number;
        upper80: number;
        dataThrough: string;
      } | null;
    }>('POST', '/reports/preview-widget', {
      token,
      body: {
        context: { groupBy: 'service', datePreset: 'LAST_MONTH', currency: 'USD' },
        widget: { type: 'DIGEST' },
      },
    });
    expect(res.status).toBe(200);
    const f = res.body.forecast!;
    const next = dayMs(through) + DAY_MS;
    const m = ymd(next).slice(0, 7);
    const monthEnd = ymd(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0));
    expect(f.month).toBe(m);
    expect(f.dataThrough).toBe(through);
    // The month's close: its actual days from the raw rows, the rest from the generating formulas.
    let expected = rows
      .filter((r) => {
        const d = String(r.ChargePeriodStart).slice(0, 10);
        return d >= `${m}-01` && d <= through;
      })
      .reduce((acc, r) => acc + num(r.BilledCost), 0);
    for (let t = next; t <= dayMs(monthEnd); t += DAY_MS) expected += weekly(ymd(t)) + trend(ymd(t));
    expectNear(f.value, expected, 1e-3, 'month close');
    expect(f.lower80 <= f.value + 1e-9 && f.value <= f.upper80 + 1e-9).toBe(true);
  });
});
