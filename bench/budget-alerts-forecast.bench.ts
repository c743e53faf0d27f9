/**
 * The month-end forecast of 1,000 budget alerts (issue 27: "an end-of-month forecast for 1,000
 * alerts' series fits inside the alert worker's budget"): ~1M generated FOCUS rows
 * (`WAREHOUSE_BENCH_ROWS` to change) over the six months before the evaluated month, in DuckDB;
 * 100 budgets grouped by resource (10 lines each: 1,000 distinct resources among the month's
 * biggest) and one alert per line with a FORECASTED threshold at 100 % of the line's budget:
 * 1,000 alerts, 1,000 line series (plus each budget's total and `Other`). Evaluated as the alert
 * worker does (`shared/domain/budgets/alerts/evaluate.ts`): messages of 25 alerts, ordered by
 * budget, each computing its budgets' status once (`statusOf`: one explorer request of two queries
 * and a month-end forecast per line, the total and `Other`), then each alert's threshold against
 * its line's forecast; a Lambda invocation takes 10 messages (250 alerts) and has 60 s.
 * Measured at two moments: mid-month (a 17-day horizon) and at month end (2 days left). Reads are
 * the warehouse port's calls, counted by wrapping it; the DynamoDB reads (the alert, its budget,
 * the organisation's zone, a claim per crossed threshold) are not part of this bench. `forecastMs`
 * is the month-end forecasts alone (`monthFigures` again over the same daily series). Figures
 * only: nothing here is asserted by a test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  MAX_BUDGET_ALERTS_PER_MESSAGE,
  measuredFor,
  thresholdAmount,
  watchedLines,
} from '../shared/domain/budgets/alerts/evaluate';
import { monthFigures, type StatusDetail, statusOf } from '../shared/domain/budgets/status';
import type { Budget } from '../shared/model/budgets';
import { resetDuckDb } from '../shared/warehouse/duckdb/database';
import { getWarehouseQueries, setWarehouseQueries } from '../shared/warehouse/queries';
import { countingWarehouse } from '../test/support/warehouse-calls';
import { benchBudget, benchRows, focusDuckDb, resourcesFor, round, topResources } from './support';

const ORG = 'org_bafbench';
const MONTHS = ['2024-04', '2024-05', '2024-06', '2024-07', '2024-08', '2024-09'];
const MONTH = '2024-09';
const BUDGETS = 100;
const LINES = 10;
const MESSAGES_PER_INVOCATION = 10;
const WORKER_TIMEOUT_S = 60;
const MOMENTS = { midMonth: new Date('2024-09-15T06:00:00Z'), monthEnd: new Date('2024-09-30T06:00:00Z') };
const THRESHOLD = { value: 100, metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'FORECASTED' } as const;

export default async function forecastBudgetAlertsBench(): Promise<Record<string, unknown>> {
  const target = benchRows();
  const dir = mkdtempSync(join(tmpdir(), 'budget-alerts-forecast-bench-'));
  try {
    const rows = await focusDuckDb(dir, 'budget-alerts', ORG, {
      seed: 29,
      months: MONTHS,
      resourcesPerProvider: resourcesFor(target, 183),
      accountPrefix: '6000',
      until: '2024-09-29',
    });
    const top = await topResources(ORG, MONTH, BUDGETS * LINES);
    const at = new Date().toISOString();
    // Each line's budget 0.9× or 1.5× its month to 09-29: about half are forecast over it.
    const budgets = Array.from({ length: BUDGETS }, (_, b) =>
      benchBudget(
        ORG,
        `bud_${b}`,
        MONTH,
        top
          .slice(b * LINES, (b + 1) * LINES)
          .map((t, i) => ({ value: t.r, amount: t.v * (i % 2 ? 1.5 : 0.9) })),
        at,
      ),
    );
    const alerts = budgets.flatMap((budget) => budget.lines.map((l) => ({ budget, line: l.value })));
    const messages: (typeof alerts)[] = [];
    for (let i = 0; i < alerts.length; i += MAX_BUDGET_ALERTS_PER_MESSAGE)
      messages.push(alerts.slice(i, i + MAX_BUDGET_ALERTS_PER_MESSAGE));
    const port = await getWarehouseQueries();
    await statusOf(budgets[0] as Budget, MONTH, 'UTC', MOMENTS.midMonth); // warm up
    const out: Record<string, unknown> = {
      rows,
      budgets: BUDGETS,
      alerts: alerts.length,
      messages: messages.length,
    };
    for (const [moment, now] of Object.entries(MOMENTS)) {
      const calls = new Map<string, number>();
      setWarehouseQueries(countingWarehouse(port, calls));
      const messageMs: number[] = [];
      const details: StatusDetail[] = [];
      let crossed = 0;
      let statuses = 0;
      let dataThrough: string | null = null;
      const started = performance.now();
      for (const msg of messages) {
        const t0 = performance.now();
        const byBudget = new Map<string, Promise<StatusDetail>>();
        for (const a of msg) {
          let p = byBudget.get(a.budget.id);
          if (!p) {
            p = statusOf(a.budget, MONTH, 'UTC', now);
            byBudget.set(a.budget.id, p);
            statuses++;
          }
          const detail = await p;
          dataThrough = detail.status.dataThrough;
          for (const w of watchedLines({ line: a.line }, a.budget, detail)) {
            const amount = thresholdAmount(THRESHOLD, w.figures.budget);
            const measured = measuredFor(THRESHOLD, w.figures);
            if (amount !== null && measured !== null && measured >= amount) crossed++;
          }
        }
        for (const p of byBudget.values()) details.push(await p);
        messageMs.push(performance.now() - t0);
      }
      const totalMs = performance.now() - started;
      setWarehouseQueries(undefined);
      // The forecasts alone: each status's month-end figures again over the same daily series.
      const f0 = performance.now();
      let series = 0;
      for (const d of details)
        for (const daily of [...d.daily.values(), d.totalDaily]) {
          monthFigures(daily, MONTH, d.status.dataThrough, 0);
          series++;
        }
      const forecastMs = performance.now() - f0;
      const invocations: number[] = [];
      for (let i = 0; i < messageMs.length; i += MESSAGES_PER_INVOCATION)
        invocations.push(messageMs.slice(i, i + MESSAGES_PER_INVOCATION).reduce((x, y) => x + y, 0));
      const slowest = Math.max(...invocations);
      out[moment] = {
        now: now.toISOString(),
        dataThrough,
        statuses,
        seriesForecast: series,
        crossed,
        totalMs: round(totalMs),
        perAlertMs: round(totalMs / alerts.length, 2),
        slowestInvocationS: round(slowest / 1000, 2),
        invocationBudgetShare: round(slowest / 1000 / WORKER_TIMEOUT_S, 3),
        forecastMs: round(forecastMs),
        forecastPerSeriesMs: round(forecastMs / series, 2),
        warehouseCalls: Object.fromEntries(calls),
        warehouseCallsPerAlert: round([...calls.values()].reduce((x, y) => x + y, 0) / alerts.length, 2),
      };
      process.stdout.write(`  ${moment}: ${JSON.stringify(out[moment])}\n`);
    }
    out.target = `each invocation (${MESSAGES_PER_INVOCATION} messages, ${MESSAGES_PER_INVOCATION * MAX_BUDGET_ALERTS_PER_MESSAGE} alerts) within the worker's ${WORKER_TIMEOUT_S} s`;
    return out;
  } finally {
    setWarehouseQueries(undefined);
    resetDuckDb();
    rmSync(dir, { recursive: true, force: true });
  }
}
