import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureOrganization } from '../../../shared/db/organizations-repo';
import { commitmentSummary } from '../../../shared/domain/commitments/service';
import { runExplorer } from '../../../shared/domain/queries/engine';
import { renderAttachments } from '../../../shared/domain/reports/render/attachments';
import { formatReport } from '../../../shared/domain/reports/render/format';
import { renderWidget } from '../../../shared/domain/reports/render/widgets';
import type { ExplorerRequest } from '../../../shared/model/query-model';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { CUR2_HEADER, csvText, curCommitmentLines, RI_ARN } from '../../support/commitment-exports';
import { conditionAlertMaker, evaluateOnEngine } from '../../support/engine-alerts';
import { adminOf } from '../../support/principals';
import { suiteIds } from '../../support/suite';
import { type CsvRow, num, parseCsv } from '../warehouse/support';

/**
 * The commitment metrics of the query model (docs/commitments.md, "In the query model") on the
 * DuckDB warehouse, over a generated CUR 2.0 (Savings Plan and RI, used and unused, on-demand
 * eligible and ineligible usage): each day's and each week's utilisation, coverage and unused cost
 * equal to the figures summed IN THIS TEST from the raw CUR lines, the period's utilisation a ratio
 * of sums (not the mean of the days'), and a cost alert on utilisation under 80 % that fires on the
 * under-used day through the alert evaluator.
 */
const { orgId } = suiteIds('cmetric');
const principal = adminOf(orgId, 'user_a');
const DAYS = ['2026-10-05', '2026-10-06', '2026-10-07']; // Monday to Wednesday; the 6th is under-used
let cur: CsvRow[] = [];
/** The RI ends 54 days after the report run below (2026-10-08): in its 90-day expiring list. */
const RI_END = '2026-12-01T23:59:59Z';

interface Day {
  used: number;
  unused: number;
  covered: number;
  eligible: number;
}

/** Per charge day, from the raw lines by their documented meaning (docs/commitments.md). */
function expectedDays(): Map<string, Day> {
  const out = new Map<string, Day>(DAYS.map((d) => [d, { used: 0, unused: 0, covered: 0, eligible: 0 }]));
  for (const r of cur) {
    const e = out.get(String(r.line_item_usage_start_date).slice(0, 10))!;
    const od = num(r.pricing_public_on_demand_cost);
    switch (r.line_item_line_item_type) {
      case 'SavingsPlanCoveredUsage':
        e.used += num(r.savings_plan_savings_plan_effective_cost);
        e.covered += od;
        break;
      case 'DiscountedUsage':
        e.used += num(r.reservation_effective_cost);
        e.covered += od;
        break;
      case 'SavingsPlanRecurringFee':
        e.unused += num(r.savings_plan_total_commitment_to_date) - num(r.savings_plan_used_commitment);
        break;
      case 'RIFee':
        e.unused +=
          num(r.reservation_unused_amortized_upfront_fee_for_billing_period) +
          num(r.reservation_unused_recurring_fee);
        break;
      case 'Usage':
        if (String(r.line_item_usage_type).includes('BoxUsage')) e.eligible += od;
        break;
    }
  }
  for (const e of out.values()) e.eligible += e.covered;
  return out;
}

const sum = (days: Day[]): Day =>
  days.reduce(
    (a, d) => ({
      used: a.used + d.used,
      unused: a.unused + d.unused,
      covered: a.covered + d.covered,
      eligible: a.eligible + d.eligible,
    }),
    { used: 0, unused: 0, covered: 0, eligible: 0 },
  );

function metric(name: string, metricId: string, extra: Record<string, unknown> = {}) {
  return {
    type: 'metric' as const,
    name,
    metricId,
    aggregator: 'AVG' as const,
    colorIndex: 0,
    chartType: 'LINE' as const,
    visible: true,
    colorPalette: 'DEFAULT' as const,
    ...extra,
  };
}

function request(aggBy: 'Day' | 'Week' | 'Period', queries: ExplorerRequest['queries']): ExplorerRequest {
  return {
    period: { startDate: `${DAYS[0]}T00:00:00Z`, endDate: `${DAYS[2]}T00:00:00Z`, aggBy },
    queries,
  };
}

beforeAll(async () => {
  await ensureOrganization({
    id: orgId,
    name: 'commitment metrics',
    timezone: 'UTC',
    createdAt: new Date().toISOString(),
  });
  const text = csvText(CUR2_HEADER, curCommitmentLines(DAYS, '2027-06-30T23:59:59Z', RI_END));
  cur = parseCsv(text);
  const dir = mkdtempSync(join(tmpdir(), 'commitment-metrics-'));
  writeFileSync(join(dir, 'cur2.csv'), text);
  await new DuckDbWarehouse().ingestFile({ orgId, path: join(dir, 'cur2.csv'), sourceName: 'cur2.csv' });
}, 180_000);

test('each day: utilisation, coverage and unused cost summed from the raw lines, as the summary answers them', async () => {
  const res = await runExplorer(
    request('Day', [
      metric('u', 'commitment_utilization'),
      metric('c', 'commitment_coverage'),
      metric('x', 'commitment_unused_cost'),
    ]),
    { orgId, currency: 'USD', now: new Date('2026-10-20T00:00:00Z') },
  );
  const expected = expectedDays();
  const [u, c, x] = res.queries;
  expect([u!.unit, c!.unit, x!.unit, x!.currency]).toEqual(['ratio', 'ratio', 'USD', 'USD']);
  expect(u!.series[0]!.points.map((p) => p.date)).toEqual(DAYS);
  DAYS.forEach((d, i) => {
    const e = expected.get(d)!;
    expect(u!.series[0]!.points[i]!.value).toBeCloseTo(e.used / (e.used + e.unused), 9);
    expect(c!.series[0]!.points[i]!.value).toBeCloseTo(e.covered / e.eligible, 9);
    expect(x!.series[0]!.points[i]!.value).toBeCloseTo(e.unused, 9);
  });
  // The period's ratios are of the three days' sums, not the mean of the days' ratios.
  const all = sum([...expected.values()]);
  const meanCoverage = [...expected.values()].reduce((a, e) => a + e.covered / e.eligible, 0) / expected.size;
  expect(u!.total).toBeCloseTo(all.used / (all.used + all.unused), 9);
  expect(c!.total).toBeCloseTo(all.covered / all.eligible, 9);
  expect(Math.abs(c!.total! - meanCoverage)).toBeGreaterThan(1e-4);
  expect(x!.total).toBeCloseTo(all.unused, 9);
  // The same definition as GET /commitments/summary: its figures, day by day and in total.
  const summary = await commitmentSummary(
    principal,
    { startDate: DAYS[0], endDate: DAYS[2] },
    new Date('2026-10-20T00:00:00Z'),
  );
  expect(summary.rows.map((r) => r.utilization)).toEqual(u!.series[0]!.points.map((p) => p.value));
  expect(summary.rows.map((r) => r.coverage)).toEqual(c!.series[0]!.points.map((p) => p.value));
  expect(summary.total.utilization).toBeCloseTo(u!.total!, 12);
}, 120_000);

test('grouped by provider and type, over a Period bucket: ratios of the summed amounts; coverage null by type', async () => {
  const res = await runExplorer(
    request('Period', [
      metric('u', 'commitment_utilization', { groupBy: 'provider' }),
      metric('t', 'commitment_coverage', { groupBy: 'type' }),
    ]),
    { orgId, currency: 'USD' },
  );
  const all = sum([...expectedDays().values()]);
  const [u, t] = res.queries;
  expect(u!.series.map((s) => s.group)).toEqual([{ provider: 'AWS' }]);
  expect(u!.series[0]!.points[0]!.value).toBeCloseTo(all.used / (all.used + all.unused), 9);
  expect(t!.series.map((s) => s.group.type)).toEqual(
    expect.arrayContaining([null, 'Reservation', 'Savings Plan']),
  );
  expect(t!.series).toHaveLength(3);
  expect(t!.series.every((s) => s.points[0]!.value === null)).toBe(true);
  await expect(
    runExplorer(request('Day', [metric('bad', 'commitment_utilization', { groupBy: 'ServiceName' })]), {
      orgId,
    }),
  ).rejects.toThrow(
    'query bad: a commitment metric can only be grouped by provider, account, type, category, service',
  );
}, 120_000);

test('an alert on utilisation under 80 % fires on the under-used day, one under 70 % does not', async () => {
  const expected = expectedDays().get(DAYS[1]!)!;
  const utilisation = expected.used / (expected.used + expected.unused);
  expect(utilisation).toBeLessThan(0.8);
  expect(utilisation).toBeGreaterThan(0.7);
  const t0 = new Date('2026-10-08T05:00:00Z');
  const make = conditionAlertMaker(principal, [metric('util', 'commitment_utilization')], t0);
  const fires = await make('utilisation under 80 %', 'util < 0.8');
  const quiet = await make('utilisation under 70 %', 'util < 0.7');
  const { results, notes } = await evaluateOnEngine(
    orgId,
    [fires.id, quiet.id],
    new Date('2026-10-08T06:00:00Z'),
  );
  expect(results.map((r) => [r?.evaluatedDay, r?.triggered])).toEqual([
    [DAYS[1], true],
    [DAYS[1], false],
  ]);
  expect(notes.map((n) => n.alertId)).toEqual([fires.id]);
}, 120_000);

test("the COMMITMENTS report widget: the period's figures from the raw lines, the chart as a PNG, the RI ending soon", async () => {
  const now = new Date('2026-10-08T06:00:00Z');
  const w = await renderWidget(
    {
      orgId,
      now,
      timeZone: 'UTC',
      context: { metricId: 'cost', groupBy: null, datePreset: 'TRAILING_7_DAYS', currency: 'USD' },
    },
    { type: 'COMMITMENTS', title: 'Commitments this week', aggBy: 'Day', withinDays: 90 },
  );
  if (w.type !== 'COMMITMENTS') throw new Error(`rendered ${w.type}`);
  const all = sum([...expectedDays().values()]);
  const cost = all.used + all.unused;
  expect(w.figures.utilization).toBeCloseTo(all.used / cost, 9);
  expect(w.figures.coverage).toBeCloseTo(all.covered / all.eligible, 9);
  expect(w.figures.unusedCost).toBeCloseTo(all.unused, 9);
  expect(w.figures.savings).toBeCloseTo(all.covered - cost, 9);
  expect(w.figures.effectiveSavingsRate).toBeCloseTo((all.covered - cost) / all.eligible, 9);
  expect(w.expiring.map((c) => [c.id, c.daysLeft])).toEqual([[RI_ARN, 54]]);
  // The chart draws utilisation and coverage in percent, day by day.
  expect(w.chart.series.map((x) => x.name)).toEqual(['Utilisation', 'Coverage']);
  const days = expectedDays();
  for (const d of DAYS) {
    const e = days.get(d)!;
    const point = w.chart.series[0]!.points.find((p) => p.date === d);
    expect(point?.value).toBeCloseTo((100 * e.used) / (e.used + e.unused), 9);
  }
  const files = await renderAttachments([w], { name: 'Commitments' }, now.toISOString());
  expect(files.map((f) => [f.filename, f.contentType, f.inline])).toEqual([
    ['commitments-1-commitments-this-week.png', 'image/png', true],
  ]);
  expect(Buffer.from(files[0]!.content).subarray(1, 4).toString()).toBe('PNG');
  const rendered = formatReport({ name: 'Commitments', description: '' }, now.toISOString(), [w], files);
  const line = `Utilisation ${((100 * all.used) / cost).toFixed(1)} %`;
  expect(rendered.html).toContain(line);
  expect(rendered.html).toContain('cid:commitments-1-commitments-this-week.png');
  expect(rendered.text).toContain('ends 2026-12-01, in 54 days');
  expect(JSON.stringify(rendered.slackBlocks)).toContain(line);
}, 120_000);
