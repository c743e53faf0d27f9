import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FOCUS_HEADER } from '../../infra/local/demo-data/generator';
import { type CsvRow, close, num } from '../integration/warehouse/support';
import { ingestOk as ingestCli } from '../support/cli';
import { ingestAwsFocus } from '../support/daily-focus';
import type { Conversion } from '../support/explorer';
import { freshOrg } from '../support/fresh-org';
import { api, session } from '../support/session';
import { rateOn, seedUsdPerEur } from '../support/stack-cli';
import { DAY_MS, monthStart, suiteIds, ymd } from '../support/suite';

/**
 * GET /budgets/{id}/status on the local stack, for a new organisation whose billing rows are
 * generated here: every actual equals the sum of the raw rows computed in this test (converted by
 * hand at each charge day's rate for a budget in EUR over USD data), the `Other` line takes the
 * rows of no line's value, and the forecast is a month-end figure with its 80 % interval.
 */
const s = () => session();
const { run, orgId, userId } = suiteIds('bst');

let token = '';
let rows: CsvRow[] = [];
let usdPerEur = new Map<string, number>();

const day = (r: CsvRow) => String(r.ChargePeriodStart).slice(0, 10);
const inTarget = (r: CsvRow, target: 'USD' | 'EUR') =>
  target === 'USD' ? num(r.BilledCost) : num(r.BilledCost) / rateOn(usdPerEur, day(r));
function sum(filter: (r: CsvRow) => boolean, target: 'USD' | 'EUR' = 'USD'): number {
  return rows.filter(filter).reduce((a, r) => a + inTarget(r, target), 0);
}
function expectClose(actual: number | null | undefined, expected: number) {
  const a = actual ?? Number.NaN;
  if (!close(a, expected, 1e-9)) throw new Error(`got ${actual}, expected ${expected}`);
}
const lastDayOf = (month: string) =>
  ymd(Date.parse(`${monthStart(new Date(`${month}-15T00:00:00Z`), -1)}T00:00:00Z`) - DAY_MS);

interface Figures {
  budget: number;
  actual: number;
  forecast: { value: number; lower80: number; upper80: number } | null;
  delta: number | null;
}
interface Status {
  budgetId: string;
  versionId: string;
  month: string;
  currency: string;
  dataThrough: string | null;
  conversion: Conversion | null;
  lines: (Figures & { value: string | null; owner: string | null })[];
  total: Figures;
}

const now = new Date();
const months = [4, 3, 2, 1, 0].map((o) => monthStart(now, o).slice(0, 7));
const lastMonth = months[3]!;
const thisMonth = months[4]!;

beforeAll(async () => {
  usdPerEur = seedUsdPerEur();
  expect([...usdPerEur.keys()].sort()[0]! <= `${lastMonth}-01`).toBe(true);
  token = await freshOrg(orgId, userId, `budget status ${run}`);
  rows = ingestAwsFocus(
    orgId,
    { seed: 28, months, resourcesPerProvider: 3, accountPrefix: `bs${run}` },
    'focus_budget.csv',
    now,
  );
  expect(new Set(rows.map((r) => r.BillingCurrency))).toEqual(new Set(['USD']));
}, 600_000);

jest.setTimeout(300_000);

const services = () => [...new Set(rows.map((r) => String(r.ServiceName)))].sort();
const inMonth = (month: string, through: string | null) => (r: CsvRow) =>
  day(r).startsWith(month) && (through === null || day(r) <= through);

async function create(body: Record<string, unknown>): Promise<string> {
  const res = await api<{ id: string }>('POST', '/budgets', { token, body });
  expect(res.status).toBe(201);
  return res.body.id;
}
/** A budget of one total line (no owner) from the first month, `amount` in `month`; its id. */
function createTotal(name: string, currency: string, month: string, amount: number): Promise<string> {
  return create({
    name,
    currency,
    startMonth: months[0],
    lines: [{ value: null, owner: null, amounts: { [month]: amount } }],
  });
}
async function status(id: string, month?: string) {
  const res = await api<Status>('GET', `/budgets/${id}/status${month ? `?month=${month}` : ''}`, { token });
  expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expect.anything() });
  return res.body;
}

describe('GET /budgets/{id}/status', () => {
  it("a complete month: each line's actual is its rows' sum, the rest is Other, the forecast is the actual", async () => {
    const all = services();
    expect(all.length).toBeGreaterThanOrEqual(2);
    const a = all[0]!;
    const id = await create({
      name: `By service ${run}`,
      currency: 'USD',
      groupBy: 'service',
      startMonth: months[0],
      lines: [
        { value: a, owner: 'a@example.com', amounts: { [lastMonth]: 100, [thisMonth]: 70 } },
        { value: 'NoSuchService', owner: null, amounts: { [lastMonth]: 55 } },
      ],
    });
    const st = await status(id, lastMonth);
    expect(st.dataThrough! >= lastDayOf(lastMonth)).toBe(true);
    expect(st).toMatchObject({ budgetId: id, month: lastMonth, currency: 'USD', conversion: null });
    expect(st.lines.map((l) => [l.value, l.owner, l.budget])).toEqual([
      [a, 'a@example.com', 100],
      ['NoSuchService', null, 55],
      ['Other', null, 0],
    ]);
    const month = inMonth(lastMonth, null);
    const expected = [
      sum((r) => month(r) && r.ServiceName === a),
      0,
      sum((r) => month(r) && r.ServiceName !== a),
    ];
    expect(expected[0]).toBeGreaterThan(0);
    expect(expected[2]).toBeGreaterThan(0);
    st.lines.forEach((l, i) => {
      expectClose(l.actual, expected[i]!);
      expectClose(l.forecast?.value, expected[i]!);
      expectClose(l.delta, expected[i]! - l.budget);
    });
    expectClose(st.total.actual, sum(month));
    expect(st.total.budget).toBe(155);
    expectClose(st.total.delta, sum(month) - 155);
  });

  it('the current month by default: month-to-date actuals through dataThrough, a month-end forecast with its interval', async () => {
    const id = await createTotal(`Total ${run}`, 'USD', thisMonth, 1000);
    const st = await status(id);
    expect(st.month).toBe(thisMonth);
    expect(st.dataThrough).toEqual(expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/));
    const mtd = sum(inMonth(thisMonth, st.dataThrough));
    expect(st.lines).toHaveLength(1);
    expectClose(st.lines[0]!.actual, mtd);
    expectClose(st.total.actual, mtd);
    const f = st.total.forecast!;
    // The month is not over: the forecast adds the days still to come to the actual.
    expect(f.value).toBeGreaterThan(mtd);
    expect(f.lower80).toBeLessThanOrEqual(f.value);
    expect(f.upper80).toBeGreaterThanOrEqual(f.value);
    expect(f.upper80).toBeGreaterThan(f.lower80);
    expectClose(st.total.delta, f.value - 1000);
    expect(st.lines[0]!.forecast).toEqual(f);
  });

  it('a budget in EUR over USD rows converts each row at its charge day rate, and says so', async () => {
    const id = await createTotal(`EUR ${run}`, 'EUR', lastMonth, 500);
    const st = await status(id, lastMonth);
    expect(st.currency).toBe('EUR');
    expect(st.conversion).toMatchObject({ from: ['USD'], to: 'EUR', source: expect.any(String) });
    const month = inMonth(lastMonth, null);
    const expected = sum(month, 'EUR');
    // A single average rate (or none) would give another figure: the test can tell them apart.
    const monthly = sum(month) / rateOn(usdPerEur, `${lastMonth}-15`);
    expect(Math.abs(monthly - expected)).toBeGreaterThan(1e-6);
    expect(Math.abs(sum(month) - expected)).toBeGreaterThan(1);
    expectClose(st.total.actual, expected);
    expectClose(st.lines[0]!.actual, expected);
  });

  it('POST /budgets/suggest: per service the months ahead from the forecast; the current month is the status forecast', async () => {
    const all = services();
    const res = await api<{
      currency: string;
      months: string[];
      dataThrough: string;
      lines: {
        value: string | null;
        amounts: Record<string, { value: number; lower80: number; upper80: number }>;
      }[];
      total: Record<string, { value: number; lower80: number; upper80: number }>;
    }>('POST', '/budgets/suggest', {
      token,
      body: { groupBy: 'service', startMonth: thisMonth, months: 2 },
    });
    expect(res.status).toBe(200);
    const next = monthStart(new Date(`${thisMonth}-15T00:00:00Z`), -1).slice(0, 7);
    expect(res.body.months).toEqual([thisMonth, next]);
    expect(res.body.lines.map((l) => l.value).sort()).toEqual(all);
    for (const l of res.body.lines)
      for (const m of res.body.months) {
        const a = l.amounts[m]!;
        expect(a.lower80).toBeLessThanOrEqual(a.value + 1e-9);
        expect(a.upper80).toBeGreaterThanOrEqual(a.value - 1e-9);
      }
    // The current month: the month-to-date actual plus the forecast days, as the status states it.
    const id = await create({
      name: `Suggested ${run}`,
      groupBy: 'service',
      startMonth: thisMonth,
      lines: res.body.lines.map((l) => ({
        value: l.value,
        owner: null,
        amounts: Object.fromEntries(Object.entries(l.amounts).map(([m, a]) => [m, Math.round(a.value)])),
      })),
    });
    const st = await status(id);
    for (const line of st.lines.filter((l) => l.value !== 'Other')) {
      const suggested = res.body.lines.find((l) => l.value === line.value)!.amounts[thisMonth]!;
      expect(Math.abs(suggested.value - line.forecast!.value)).toBeLessThan(0.01);
      expectClose(
        line.actual,
        sum((r) => inMonth(thisMonth, st.dataThrough)(r) && r.ServiceName === line.value),
      );
      expect(suggested.value).toBeGreaterThanOrEqual(line.actual - 0.01);
    }
    const past = await api<{ error: string }>('POST', '/budgets/suggest', {
      token,
      body: { startMonth: months[0] },
    });
    expect(past.status).toBe(400);
    expect(past.body.error).toMatch(/startMonth/);
  });

  it("a DIGEST says how many of the organisation's budget lines are forecast over budget this month", async () => {
    const list = await api<{ items: { id: string; groupBy: string | null }[] }>('GET', '/budgets?limit=100', {
      token,
    });
    let over = 0;
    let lines = 0;
    for (const b of list.body.items) {
      const st = await status(b.id);
      const own = b.groupBy === null ? st.lines : st.lines.slice(0, -1);
      lines += own.length;
      over += own.filter((l) => l.forecast && l.forecast.value > l.budget).length;
    }
    expect(lines).toBeGreaterThan(1);
    const preview = await api<{ budgets: { month: string; over: number; lines: number } | null }>(
      'POST',
      '/reports/preview-widget',
      {
        token,
        body: { context: { groupBy: 'service', datePreset: 'LAST_MONTH' }, widget: { type: 'DIGEST' } },
      },
    );
    expect(preview.status).toBe(200);
    expect(preview.body.budgets).toEqual({ month: thisMonth, over, lines });
  });

  it('a month that is no month is 400; another organisation gets 404', async () => {
    const id = await create({
      name: `Bad month ${run}`,
      startMonth: months[0],
      lines: [{ value: null, amounts: { [lastMonth]: 1 } }],
    });
    const bad = await api<{ error: string }>('GET', `/budgets/${id}/status?month=2026-13`, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/month/);
    expect((await api('GET', `/budgets/${id}/status`, { token: s().apiKeys.admin })).status).toBe(404);
  });
});

describe('GET /budgets/{id}/status asked again', () => {
  it("after rows of another billing account are ingested, the new rows count: the reused lines' figures are never stale", async () => {
    const a = services()[0]!;
    const id = await create({
      name: `Asked again ${run}`,
      currency: 'USD',
      groupBy: 'service',
      startMonth: months[0],
      lines: [{ value: a, owner: null, amounts: { [lastMonth]: 100 } }],
    });
    const month = inMonth(lastMonth, null);
    const before = await status(id, lastMonth);
    expectClose(
      before.lines[0]!.actual,
      sum((r) => month(r) && r.ServiceName === a),
    );
    // The same status again answers the same figures (the second read reuses the lines).
    expect((await status(id, lastMonth)).lines).toEqual(before.lines);
    // One more row for the line's service, in a billing account of its own (an upload replaces
    // only its own accounts' months: the rows ingested before stay).
    const template = rows.find((r) => month(r) && r.ServiceName === a)!;
    const extra: CsvRow = {
      ...template,
      BillingAccountId: `extra${run}`,
      SubAccountId: `extra${run}`,
      ResourceId: `extra-resource-${run}`,
      BilledCost: '12.34',
    };
    const quote = (v: unknown) => `"${String(v ?? '').replaceAll('"', '""')}"`;
    const file = join(mkdtempSync(join(tmpdir(), 'budget-status-extra-')), 'focus_budget_extra.csv');
    writeFileSync(
      file,
      `${FOCUS_HEADER.map(quote).join(',')}\n${FOCUS_HEADER.map((h) => quote(extra[h])).join(',')}\n`,
    );
    ingestCli(orgId, file);
    rows.push(extra);
    const after = await status(id, lastMonth);
    const expected = sum((r) => month(r) && r.ServiceName === a);
    expectClose(after.lines[0]!.actual, expected);
    expectClose(after.lines[0]!.actual - before.lines[0]!.actual, 12.34);
    expectClose(after.total.actual, sum(month));
  });
});
