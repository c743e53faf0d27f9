import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateSigningKey, mintToken } from '../../infra/local/idp';
import {
  buildChartSpec,
  chartInputOf,
  type EChartsSpec,
  type EngineAnswer,
  type TableSpec,
} from '../../shared/charts/spec';
import { type CsvRow, close, FOCUS_SAMPLE, num, parseCsv, tagsOf } from '../integration/warehouse/support';
import { ingestCli } from '../support/cli';
import { costQuery, explorerWidget } from '../support/explorer';
import { api, runId, session } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';

/**
 * The two-currency sweep (issue 25 §1): an organisation whose billing rows are in USD and EUR, and
 * every route and artifact that shows money, each held against sums computed HERE from the raw
 * rows × the day's rate (the seed's synthetic euro reference rates, read from the rate file). A
 * figure that adds the currencies 1:1 fails its case; each case also checks that the 1:1 sum
 * differs from the converted one, so it could fail.
 *
 * Console charts are built here from the explorer's answer with the console's own builder.
 *
 * The rows: the real FOCUS sample (1,000 rows, one month of charges) moved to last month, every
 * second row re-labelled EUR. Add a case to CASES to cover a new route.
 */
const s = () => session();
const run = runId();
const ORG = `org_fxsweep_${run}`;

const ym = (d: Date) => d.toISOString().slice(0, 7);
const now = new Date();
const LAST = ym(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1)));
const CURRENT = ym(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)));
const NEXT = ym(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)));
const daysIn = (m: string) =>
  new Date(Date.UTC(Number(m.slice(0, 4)), Number(m.slice(5, 7)), 0)).getUTCDate();
const lastDay = (m: string) => `${m}-${String(daysIn(m)).padStart(2, '0')}`;

/** The sample's September 2024 charges moved to last month; every second data line billed in EUR. */
function twoCurrencyText(): string {
  const move = (m: string) => (_: string, d: string) =>
    `${m}-${String(Math.min(Number(d), daysIn(m))).padStart(2, '0')}`;
  const text = readFileSync(FOCUS_SAMPLE, 'utf8')
    .replace(/2024-09-(\d\d)/g, move(LAST))
    .replace(/2024-10-(\d\d)/g, move(CURRENT))
    .replace(/2024-11-(\d\d)/g, move(NEXT));
  const lines = text.split('\n');
  return lines.map((l, i) => (i > 0 && i % 2 === 0 ? l.replace(',"USD",', ',"EUR",') : l)).join('\n');
}

let rows: CsvRow[] = [];
let token = '';
/** USD per EUR by publication day, from the seed's rate file. */
let usdPerEur = new Map<string, number>();

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const billingMonth = (r: CsvRow) => String(r.BillingPeriodStart).slice(0, 7);
/** A row's BilledCost in `target` (USD or EUR) at its charge day's rate. */
function inCurrency(r: CsvRow, target: 'USD' | 'EUR'): number {
  const cost = num(r.BilledCost);
  if (r.BillingCurrency === target) return cost;
  return target === 'USD' ? cost * rateOn(usdPerEur, day(r)) : cost / rateOn(usdPerEur, day(r));
}
const sumIn = (list: CsvRow[], target: 'USD' | 'EUR') => list.reduce((a, r) => a + inCurrency(r, target), 0);
const naive = (list: CsvRow[]) => list.reduce((a, r) => a + num(r.BilledCost), 0);
const sumNative = (list: CsvRow[], currency: string) =>
  naive(list.filter((r) => r.BillingCurrency === currency));

/** One figure a case read, and what the raw rows say it is (and what 1:1 would have said). */
interface Figure {
  what: string;
  actual: number | null | undefined;
  expected: number;
  oneToOne?: number;
}
interface Case {
  name: string;
  figures: () => Promise<Figure[]>;
}

/** A day's figure held against that day's rows converted to `target` (and their 1:1 sum). */
function dayFigure(d: string, actual: number | null | undefined, target: 'USD' | 'EUR'): Figure {
  const list = rows.filter((r) => day(r) === d);
  return { what: `day ${d}`, actual, expected: sumIn(list, target), oneToOne: naive(list) };
}

const cost = (name: string, extra: Record<string, unknown> = {}) =>
  costQuery(name, { chartType: 'BAR', ...extra });
const lastMonthPeriod = { startDate: `${LAST}-01T00:00:00Z`, endDate: `${lastDay(LAST)}T00:00:00Z` };

interface Series {
  group: Record<string, string | null>;
  total: number | null;
  points: { date: string; value: number | null }[];
}
interface Answer {
  queries: { name: string; currency: string | null; series: Series[]; total: number | null }[];
  currency: string | null;
}

async function ok<T>(res: Promise<{ status: number; body: T }>): Promise<T> {
  const r = await res;
  if (r.status !== 200 && r.status !== 201) throw new Error(`HTTP ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

function explorer(request: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return ok(api<Answer>('POST', '/queries/explorer', { token, body: { request, ...extra } }));
}

const inLast = () => rows.filter((r) => day(r).startsWith(LAST));
const byProvider = (list: CsvRow[]) => [...new Set(list.map((r) => String(r.ProviderName)))].sort();
const candidateWindow = () => {
  const months = [...new Set(rows.map(billingMonth))].sort().slice(-3);
  return rows.filter((r) => months.includes(billingMonth(r)));
};

/** The figure of provider `name` against the sums over `list`'s rows of that provider, in `currency`. */
function providerFigure(
  name: string | null,
  actual: number | null | undefined,
  currency: Parameters<typeof sumIn>[1],
  list = inLast(),
) {
  const own = list.filter((r) => r.ProviderName === name);
  return { what: `provider ${name}`, actual, expected: sumIn(own, currency), oneToOne: naive(own) };
}

/** A report widget previewed over last month by provider, in `currency`. */
function previewWidget<T>(
  currency: Parameters<typeof sumIn>[1],
  widget: Record<string, unknown>,
): Promise<T> {
  return ok(
    api<T>('POST', '/reports/preview-widget', {
      token,
      body: { context: { groupBy: 'provider', datePreset: 'LAST_MONTH', currency }, widget },
    }),
  );
}

/** A cost alert on the daily `spend` query (e-mailed), with the rest of its body from `body`. */
function createSpendAlert(body: Record<string, unknown>): Promise<{ id: string }> {
  return ok(
    api<{ id: string }>('POST', '/alerts-v2/costAlerts', {
      token,
      body: {
        queries: [cost('spend', { metricId: 'cost', chartType: 'LINE' })],
        notificationChannel: 'EMAIL',
        ...body,
      },
    }),
  );
}

const CASES: Case[] = [
  {
    name: 'POST /queries/explorer in USD: total and per provider',
    figures: async () => {
      const a = await explorer(
        { period: { ...lastMonthPeriod, aggBy: 'Period' }, queries: [cost('a', { groupBy: 'provider' })] },
        { currency: 'USD' },
      );
      const q = a.queries[0]!;
      return [
        { what: 'total', actual: q.total, expected: sumIn(inLast(), 'USD'), oneToOne: naive(inLast()) },
        ...byProvider(inLast()).map((p) =>
          providerFigure(p, q.series.find((x) => x.group.provider === p)?.total, 'USD'),
        ),
      ];
    },
  },
  {
    name: 'POST /queries/explorer in EUR: daily points',
    figures: async () => {
      const a = await explorer(
        { period: { ...lastMonthPeriod, aggBy: 'Day' }, queries: [cost('a')] },
        { currency: 'EUR' },
      );
      const points = a.queries[0]!.series[0]!.points;
      const days = [...new Set(inLast().map(day))].sort().slice(0, 5);
      return days.map((d) => {
        const list = inLast().filter((r) => day(r) === d);
        return {
          what: `day ${d}`,
          actual: points.find((p) => p.date === d)?.value,
          expected: sumIn(list, 'EUR'),
          oneToOne: naive(list),
        };
      });
    },
  },
  {
    name: 'POST /queries/explorer without a currency: split by BillingCurrency, no mixed total',
    figures: async () => {
      const a = await explorer({ period: { ...lastMonthPeriod, aggBy: 'Period' }, queries: [cost('a')] });
      const q = a.queries[0]!;
      if (q.total !== null || a.currency !== null) throw new Error(`a mixed total ${q.total} ${a.currency}`);
      return ['EUR', 'USD'].map((c) => ({
        what: `series ${c}`,
        actual: q.series.find((x) => x.group.BillingCurrency === c)?.total,
        expected: sumNative(inLast(), c),
      }));
    },
  },
  {
    name: 'GET /dashboard-v2/{id}/widgets/{key}/data (dashboard currency USD)',
    figures: async () => {
      const d = await ok(
        api<{ id: string }>('POST', '/dashboard-v2', {
          token,
          body: {
            name: `sweep ${run}`,
            startDate: `${LAST}-01`,
            endDate: lastDay(LAST),
            currency: 'USD',
            widgets: [explorerWidget('w1', 'cost', { period: { aggBy: 'Month' }, queries: [cost('a')] })],
          },
        }),
      );
      const a = await ok(api<Answer>('GET', `/dashboard-v2/${d.id}/widgets/w1/data`, { token }));
      return [
        {
          what: 'total',
          actual: a.queries[0]!.total,
          expected: sumIn(inLast(), 'USD'),
          oneToOne: naive(inLast()),
        },
      ];
    },
  },
  {
    name: 'GET /dimensions/candidates (reporting currency USD)',
    figures: async () => {
      const res = await api<
        {
          key: string;
          total_cost_key_present: number;
          total_cost_key_absent: number;
          proportion_key_present: number;
          months: { month: string; cost: number }[];
          values: { value: string; cost_allocated: number; proportion_cost_allocated: number }[];
        }[]
      >('GET', '/dimensions/candidates', { token });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      if (res.headers.get('x-dimensions-currency') !== 'USD')
        throw new Error('no x-dimensions-currency: USD');
      const window = candidateWindow();
      const total = sumIn(window, 'USD');
      const c = res.body.find((x) => x.key === 'business_unit')!;
      const tagged = window.filter((r) => tagsOf(r).business_unit !== undefined);
      const present = sumIn(tagged, 'USD');
      const top = c.values[0]!;
      const withTop = tagged.filter((r) => tagsOf(r).business_unit === top.value);
      return [
        { what: 'key present', actual: c.total_cost_key_present, expected: present, oneToOne: naive(tagged) },
        {
          what: 'key absent',
          actual: c.total_cost_key_absent,
          expected: total - present,
          oneToOne: naive(window) - naive(tagged),
        },
        {
          what: 'proportion present',
          actual: c.proportion_key_present,
          expected: present / total,
          oneToOne: naive(tagged) / naive(window),
        },
        {
          what: `month ${LAST}`,
          actual: c.months.find((m) => m.month === LAST)?.cost ?? 0,
          expected: sumIn(
            tagged.filter((r) => billingMonth(r) === LAST),
            'USD',
          ),
        },
        {
          what: `value ${top.value}`,
          actual: top.cost_allocated,
          expected: sumIn(withTop, 'USD'),
          oneToOne: naive(withTop),
        },
        {
          what: `value ${top.value} proportion`,
          actual: top.proportion_cost_allocated,
          expected: sumIn(withTop, 'USD') / total,
          oneToOne: naive(withTop) / naive(window),
        },
      ];
    },
  },
  {
    name: 'GET /dimensions: provider proportionCostAllocated',
    figures: async () => {
      const dims = await ok(
        api<{ name: string; values: { name: string; proportionCostAllocated: number }[] }[]>(
          'GET',
          '/dimensions',
          { token },
        ),
      );
      const window = candidateWindow();
      const total = sumIn(window, 'USD');
      const provider = dims.find((d) => d.name === 'provider')!;
      return byProvider(window).map((p) => {
        const list = window.filter((r) => r.ProviderName === p);
        return {
          what: `provider ${p}`,
          actual: provider.values.find((v) => v.name === p)?.proportionCostAllocated,
          expected: sumIn(list, 'USD') / total,
          oneToOne: naive(list) / naive(window),
        };
      });
    },
  },
  {
    name: 'POST /alerts-v2/costAlerts/backtest (alert currency USD): the values of the days it fires',
    figures: async () => {
      const b = await ok(
        api<{ fired: { day: string; values: Record<string, number | null> }[] }>(
          'POST',
          '/alerts-v2/costAlerts/backtest',
          {
            token,
            body: {
              name: 'every day',
              currency: 'USD',
              queries: [cost('spend', { metricId: 'cost', chartType: 'LINE' })],
              condition: 'spend > 0',
              dedup: { kind: 'CALENDAR', calendarUnit: 'WEEK' },
              thresholds: [],
              notificationChannel: 'EMAIL',
              emails: ['finops@example.com'],
            },
          },
        ),
      );
      const fired = b.fired.filter((f) => f.day.startsWith(LAST)).slice(0, 5);
      if (!fired.length) throw new Error(`the backtest fired on no day of ${LAST}`);
      return fired.map((f) => dayFigure(f.day, f.values.spend, 'USD'));
    },
  },
  {
    name: 'GET /alerts-v2/costAlerts/{id}/widgetData (alert currency EUR): the daily series',
    figures: async () => {
      const alert = await createSpendAlert({
        name: 'daily spend',
        currency: 'EUR',
        thresholds: [
          {
            value: 1000,
            severityLevel: 'INFO',
            metricMode: 'ABSOLUTE_SPEND',
            changeBasis: 'ABSOLUTE_DELTA',
          },
        ],
        thresholdType: 'ABOVE',
        evaluationPeriod: 'DAILY',
        emails: ['finops@example.com'],
      });
      const w = await ok(
        api<{ series: { dates: string[]; queries: { name: string; values: (number | null)[] }[] } | null }>(
          'GET',
          `/alerts-v2/costAlerts/${alert.id}/widgetData`,
          { token },
        ),
      );
      if (!w.series) throw new Error('no widget series');
      const values = w.series.queries.find((q) => q.name === 'spend')!.values;
      return w.series.dates
        .map((d, i) => ({ d, v: values[i] }))
        .filter(({ d }) => d.startsWith(LAST))
        .slice(-5)
        .map(({ d, v }) => dayFigure(d, v, 'EUR'));
    },
  },
  {
    name: 'alert evaluation by the alert sweep (alert currency USD): the values in its history',
    figures: async () => {
      const alert = await createSpendAlert({
        name: 'any spend',
        currency: 'USD',
        condition: 'spend > 0',
        dedup: { kind: 'CALENDAR', calendarUnit: 'WEEK' },
        thresholds: [],
        emails: [`sweep-${run}@example.com`],
      });
      const tick = await api('POST', '/_local/tick', {
        body: { schedule: 'alert-sweep', now: new Date().toISOString(), detail: { orgIds: [ORG] } },
      });
      if (tick.status !== 200) throw new Error(`tick: HTTP ${tick.status}`);
      await api('POST', '/_local/drain', { body: { timeoutMs: 120_000 } });
      const history = await ok(
        api<{ items: { evaluatedDay: string; values: Record<string, number> }[] }>(
          'GET',
          `/alerts-v2/costAlerts/${alert.id}/history`,
          { token },
        ),
      );
      if (!history.items.length) throw new Error('the sweep evaluated nothing');
      return history.items.map((h) => dayFigure(h.evaluatedDay, h.values.spend, 'USD'));
    },
  },
  {
    name: 'POST /queries/explorer forecast in USD (the weekday-mean baseline of converted days)',
    figures: async () => {
      const a = (await explorer(
        {
          period: {
            startDate: `${LAST}-01T00:00:00Z`,
            endDate: `${CURRENT}-07T00:00:00Z`,
            aggBy: 'Day',
            forecastDays: 3,
            forecastMethod: 'weekday-mean',
          },
          queries: [cost('a')],
        },
        { currency: 'USD' },
      )) as Answer & { dataThrough: string | null };
      const series = a.queries[0]!.series[0] as Series & { forecast?: { date: string; value: number }[] };
      const through = Date.parse(`${a.dataThrough}T00:00:00Z`);
      const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);
      const daily = (d: string, f: (list: CsvRow[]) => number) => f(rows.filter((r) => day(r) === d));
      // docs/queries.md: each future day is the mean of the same weekday over the four weeks ending at dataThrough.
      const mean = (k: number, f: (list: CsvRow[]) => number) => {
        const back = [1, 2, 3, 4].map((w) => dayOf(through + k * 86_400_000 - 7 * w * 86_400_000));
        return back.reduce((acc, d) => acc + daily(d, f), 0) / 4;
      };
      if (!series.forecast?.length) throw new Error('no forecast');
      return series.forecast.map((p) => {
        const k = Math.round((Date.parse(`${p.date}T00:00:00Z`) - through) / 86_400_000);
        return {
          what: `forecast ${p.date}`,
          actual: p.value,
          expected: mean(k, (l) => sumIn(l, 'USD')),
          oneToOne: mean(k, naive),
        };
      });
    },
  },
  {
    name: 'POST /reports/preview-widget DIGEST (report currency USD)',
    figures: async () => {
      const p = await previewWidget<{
        totals: { current: number };
        tree: { value: string | null; current: number }[];
      }>('USD', { type: 'DIGEST' });
      return [
        {
          what: 'total',
          actual: p.totals.current,
          expected: sumIn(inLast(), 'USD'),
          oneToOne: naive(inLast()),
        },
        ...p.tree.map((n) => providerFigure(n.value, n.current, 'USD')),
      ];
    },
  },
  {
    name: 'POST /reports/preview-widget TOP_FLOP (report currency EUR): the increases',
    figures: async () => {
      const p = await previewWidget<Record<string, unknown>>('EUR', {
        type: 'TOP_FLOP',
        groupBy: 'provider',
      });
      const ups = (p.increases ?? p.top ?? []) as {
        value?: string | null;
        group?: string;
        current: number;
      }[];
      if (!ups.length) throw new Error(`no increases in ${JSON.stringify(p).slice(0, 300)}`);
      return ups.map((u) => providerFigure(u.value ?? u.group ?? null, u.current, 'EUR'));
    },
  },
  {
    name: 'console chart of an answer without a currency (subtitle and table totals, top N)',
    figures: async () => {
      // What the console draws from the explorer's split answer (console/src/shape.ts: chartInputOf).
      const a = await explorer({
        period: { ...lastMonthPeriod, aggBy: 'Period' },
        queries: [cost('a', { groupBy: 'provider' })],
      });
      const displayOptions = { precision: 6, topN: 2 };
      const draw = (chartType: 'BAR' | 'TABLE') =>
        buildChartSpec(
          chartInputOf(a as unknown as EngineAnswer, { title: 'cost', chartType, displayOptions }),
        );
      const bar = draw('BAR') as EChartsSpec;
      const table = draw('TABLE') as TableSpec;
      const amounts = (text: string) => {
        const m = /€([\d,.]+) · \$([\d,.]+)/.exec(text);
        if (!m) throw new Error(`no total per currency in ${JSON.stringify(text)}`);
        return { EUR: Number(m[1]!.replaceAll(',', '')), USD: Number(m[2]!.replaceAll(',', '')) };
      };
      const subtitle = amounts(String(bar.option.title[0].subtext).split('\n')[0]!);
      const row = amounts(table.totalRow?.at(-1) ?? '');
      const rowTotal = (name: string) => table.rows.find((r) => r[0] === name)?.at(-1) ?? '';
      const others = table.rows.filter((r) => r[0]!.startsWith('Other'));
      return [
        ...(['EUR', 'USD'] as const).flatMap((c) => [
          {
            what: `subtitle ${c}`,
            actual: subtitle[c],
            expected: sumNative(inLast(), c),
            oneToOne: naive(inLast()),
          },
          {
            what: `table total ${c}`,
            actual: row[c],
            expected: sumNative(inLast(), c),
            oneToOne: naive(inLast()),
          },
        ]),
        { what: 'one Other per currency', actual: others.length, expected: 2 },
        ...others.map((r) => ({
          what: `${r[0]} is in its own currency`,
          actual: rowTotal(r[0]!).startsWith(r[0]!.includes('EUR') ? '€' : '$') ? 1 : 0,
          expected: 1,
        })),
      ];
    },
  },
  {
    name: 'POST /reports/preview-widget GRAPH_SNAPSHOT (report currency USD): series and the drawn Total line',
    figures: async () => {
      const p = await previewWidget<{ currency: string | null; chart: Parameters<typeof buildChartSpec>[0] }>(
        'USD',
        { type: 'GRAPH_SNAPSHOT' },
      );
      // The PNG is drawn from this chart input: its subtitle's first line is the "Total" it shows.
      const drawn = buildChartSpec({
        ...p.chart,
        displayOptions: { ...p.chart.displayOptions, precision: 6 },
      }) as EChartsSpec;
      const line = String(drawn.option.title[0].subtext).split('\n')[0]!;
      const m = /^Total \$([\d,.]+)$/.exec(line);
      if (!m) throw new Error(`no single USD total in ${JSON.stringify(line)}`);
      return [
        { what: 'answer currency is USD', actual: p.currency === 'USD' ? 1 : 0, expected: 1 },
        {
          what: 'drawn Total',
          actual: Number(m[1]!.replaceAll(',', '')),
          expected: sumIn(inLast(), 'USD'),
          oneToOne: naive(inLast()),
        },
        ...p.chart.series.map((series) => providerFigure(series.name, series.total, 'USD')),
      ];
    },
  },
];

beforeAll(async () => {
  const text = twoCurrencyText();
  rows = parseCsv(text);
  const file = join(s().stateDir, `currency-sweep-${run}.csv`);
  writeFileSync(file, text);
  usdPerEur = seedUsdPerEur();
  token = await mintToken(await loadOrCreateSigningKey(s().stateDir), {
    userId: 'user_fxsweep_admin',
    orgId: ORG,
    role: 'admin',
  });
  // The admin's first request registers the organisation; then the upload and its refresh.
  expect((await api('GET', '/organization', { token })).status).toBe(200);
  const out = ingestCli(ORG, file);
  if (out.status !== 0) throw new Error(`ingest failed: ${out.stdout} ${out.stderr}`);
}, 180_000);

describe('two billing currencies (USD and EUR): no figure adds them 1:1', () => {
  it('holds two currencies in its rows', () => {
    expect(new Set(rows.map((r) => r.BillingCurrency))).toEqual(new Set(['USD', 'EUR']));
  });

  it.each(CASES.map((c) => [c.name, c] as const))(
    '%s',
    async (_name, c) => {
      const figures = await c.figures();
      expect(figures.length).toBeGreaterThan(0);
      // Reports round figures to 6 decimals; a 1:1 sum is off by far more (the rate is ~1.1).
      const wrong = figures.filter((f) => !close(f.actual ?? Number.NaN, f.expected, 1e-6));
      expect(wrong).toEqual([]);
      // The case can tell a 1:1 sum from a converted one (some days or shares hold little EUR, so
      // not every figure does; at least one must).
      const telling = figures.filter((f) => f.oneToOne !== undefined);
      if (telling.length) expect(telling.some((f) => !close(f.oneToOne!, f.expected, 1e-3))).toBe(true);
    },
    120_000,
  );
});
