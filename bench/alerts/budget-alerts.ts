/**
 * The budget alerts of the alert-throughput bench (`bench/alerts.bench.ts`, issue 28): four
 * budgets over the bench's September, `BENCH_BUDGET_ALERTS` (200) alerts over them, one daily
 * sweep and evaluation as the worker runs them, warehouse reads counted by method.
 */
import type { Principal } from '../../shared/auth/principal';
import { dueBudgetAlertIndex } from '../../shared/domain/alerts/adapters/sweep';
import { sweepDue } from '../../shared/domain/alerts/sweep';
import { evaluateBudgetAlerts } from '../../shared/domain/budgets/alerts/evaluate';
import { BudgetAlertBody } from '../../shared/domain/budgets/alerts/schemas';
import { createBudgetAlert } from '../../shared/domain/budgets/alerts/service';
import { budgetAlertKind } from '../../shared/domain/budgets/alerts/sweep';
import { BudgetBody } from '../../shared/domain/budgets/schemas';
import { createBudget } from '../../shared/domain/budgets/service';
import { clearStatusCache } from '../../shared/domain/budgets/status';
import type { Budget } from '../../shared/model/budgets';
import { parseOrThrow } from '../../shared/validation';
import { query, withReadConnection } from '../../shared/warehouse/duckdb/database';
import type { WarehouseQueries } from '../../shared/warehouse/port';
import { getWarehouseQueries, setWarehouseQueries } from '../../shared/warehouse/queries';
import { collectingQueue } from '../../test/support/sqs';
import { round, timed } from '../support';
import { CREATED, NOW, ORG, where } from './setting';

/** Budget alerts evaluated alongside the cost alerts (issue 28), over `BUDGETS`. */
export const BUDGET_ALERTS = Number(process.env.BENCH_BUDGET_ALERTS ?? 200);
/** The budgets' month: the one of the last complete day (2024-09-29) at `NOW`. */
const BUDGET_MONTH = '2024-09';

/** A warehouse port that counts its calls by method (the budget alerts' reads). */
function countingPort(port: WarehouseQueries, reads: Record<string, number>): WarehouseQueries {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        reads[String(prop)] = (reads[String(prop)] ?? 0) + 1;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

/** September's actual by value of `column` (the hand query the budgets' amounts are set from). */
async function septemberBy(column: string, where = 'TRUE'): Promise<Map<string, number>> {
  const rows = (await withReadConnection((conn) =>
    query(
      conn,
      `SELECT ${column} AS v, sum("BilledCost") AS c FROM billing WHERE org_id = '${ORG}' AND ${where}
       AND "ChargePeriodStart" >= TIMESTAMP '${BUDGET_MONTH}-01' AND "ChargePeriodStart" < TIMESTAMP '2024-10-01' GROUP BY 1`,
    ),
  )) as { v: string; c: number }[];
  return new Map(rows.map((r) => [String(r.v), Number(r.c)]));
}

/** The four budgets and the budget alerts over them (setting up, not timed). */
async function createBudgetAlerts(principal: Principal): Promise<{ budgets: number; lines: number }> {
  const amounts = (actual: number, i: number) => ({
    [BUDGET_MONTH]: Math.round(actual * (0.8 + (i % 4) * 0.2) * 100) / 100,
  });
  const total = await septemberBy("'total'");
  const byProvider = await septemberBy('"ProviderName"');
  const byService = await septemberBy('"ServiceName"');
  const awsByService = await septemberBy('"ServiceName"', `"ProviderName" = 'AWS'`);
  const linesOf = (m: Map<string, number>) =>
    [...m]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([value, c], i) => ({ value, owner: null, amounts: amounts(c, i) }));
  const bodies = [
    { name: 'Total', lines: [{ value: null, owner: null, amounts: amounts(total.get('total') ?? 0, 1) }] },
    { name: 'By provider', groupBy: 'provider', lines: linesOf(byProvider) },
    { name: 'By service', groupBy: 'ServiceName', lines: linesOf(byService) },
    {
      name: 'AWS by service',
      groupBy: 'ServiceName',
      whereClause: where('provider', ['AWS']),
      lines: linesOf(awsByService),
    },
  ];
  const budgets: Budget[] = [];
  for (const b of bodies)
    budgets.push(
      await createBudget(
        principal,
        parseOrThrow(BudgetBody, { currency: 'USD', startMonth: BUDGET_MONTH, ...b }, 'plain', 'body'),
      ),
    );
  const thresholds = [
    [
      { value: 80, basis: 'ACTUAL' },
      { value: 100, basis: 'FORECASTED', severityLevel: 'WARNING' },
    ],
    [{ value: 100, basis: 'ACTUAL', severityLevel: 'CRITICAL' }],
    [{ value: 5000, metricMode: 'ABSOLUTE_SPEND', basis: 'FORECASTED' }],
  ];
  let made = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (made < BUDGET_ALERTS) {
        const i = made++;
        const budget = budgets[i % budgets.length]!;
        const own = budget.lines.filter((l) => l.value !== null);
        const line = i % 3 === 0 || !own.length ? null : i % 3 === 1 ? '*' : own[i % own.length]!.value;
        const input = parseOrThrow(
          BudgetAlertBody,
          {
            name: `bench budget alert ${i}`,
            budgetId: budget.id,
            line,
            thresholds: thresholds[i % thresholds.length],
            notificationChannel: 'EMAIL',
            emails: ['bench@example.com'],
          },
          'plain',
          'body',
        );
        await createBudgetAlert(principal, input, CREATED);
      }
    }),
  );
  return { budgets: budgets.length, lines: budgets.reduce((n, b) => n + b.lines.length, 0) };
}

/** One daily sweep and evaluation of the budget alerts at `now` (reads counted into `reads`, from zero). */
async function budgetRound(now: Date, reads: Record<string, number>) {
  for (const k of Object.keys(reads)) delete reads[k];
  const messages: Parameters<typeof evaluateBudgetAlerts>[0][] = [];
  const sweep = await timed(() =>
    sweepDue(
      now,
      budgetAlertKind({ index: dueBudgetAlertIndex, send: collectingQueue(messages) }),
      (o) => o === ORG,
    ),
  );
  let notifications = 0;
  let evaluated = 0;
  let crossed = 0;
  const cpuBefore = process.cpuUsage();
  const run = await timed(async () => {
    for (const m of messages) {
      const out = await evaluateBudgetAlerts(m, {
        now: () => now,
        enqueueNotifications: async (ns) => {
          notifications += ns.length;
          return ns.map(() => null);
        },
      });
      for (const e of out) {
        if (!e) continue;
        evaluated++;
        crossed += e.checks.filter((c) => c.crossed).length;
      }
    }
  });
  const cpu = process.cpuUsage(cpuBefore);
  const totalReads = Object.values(reads).reduce((a, b) => a + b, 0);
  const seconds = run.ms / 1000;
  return {
    alerts: sweep.result.enqueued,
    messages: sweep.result.messages,
    sweepSeconds: round(sweep.ms / 1000, 2),
    seconds: round(seconds, 2),
    perAlertMs: round(run.ms / Math.max(1, evaluated), 1),
    perMinute: Math.round((evaluated / seconds) * 60),
    evaluated,
    crossedChecks: crossed,
    notifications,
    workerCpuSeconds: round((cpu.user + cpu.system) / 1e6, 2),
    warehouseReads: { ...reads },
    warehouseReadsPerAlert: round(totalReads / Math.max(1, evaluated), 2),
  };
}

/** Sweeps and evaluates the budget alerts as the worker does (one message per invocation), reads counted. */
export async function budgetWork(principal: Principal) {
  const setup = await createBudgetAlerts(principal);
  clearStatusCache();
  const reads: Record<string, number> = {};
  setWarehouseQueries(countingPort(await getWarehouseQueries(), reads));
  try {
    // The first day (thresholds crossed fire: statuses, top contributors, burn charts), then the
    // next day on the same data (every crossed threshold already fired this month: nothing sent).
    const first = await budgetRound(NOW, reads);
    const next = await budgetRound(new Date(NOW.getTime() + 86_400_000), reads);
    return { ...setup, firstDay: first, nextDay: next };
  } finally {
    setWarehouseQueries(undefined);
  }
}
