/**
 * Alert-evaluation benchmark (`npm run bench -- alerts`): alerts evaluated per minute by one
 * evaluator worker, with 1,000 alerts over ~1M generated FOCUS rows (`WAREHOUSE_BENCH_ROWS` to
 * change) in DuckDB, in process, and DynamoDB Local (the local stack) for the alert records, the
 * dedup state and the evaluation history. Target: 10,000 a minute.
 *
 * The 1,000 alerts ask 20 distinct query sets (50 alerts each: a service, a pair of services, a
 * provider, the total, the total by provider) with a mix of conditions (`rollingMedian`,
 * `rollingStd`, a plain floor) and threshold variants (ABOVE, UNDER, week-over-week percentage).
 * Two ways are timed, each the way the worker runs (Lambda batches of 10 messages, one series
 * source per invocation, messages one after another):
 * - `grouped`: the sweep's messages (alerts grouped by query set, `sweepDueAlerts`), every alert;
 * - `oneAlertPerMessage`: the previous shape (one alert per message, in due-index order), over the
 *   first `BENCH_ALERTS_UNGROUPED` alerts (default 200) and scaled to a minute.
 * The expression evaluator's throughput in points per second is `expr` in results.json
 * (bench/expr.bench.ts); this file copies its figures, it does not measure them again.
 * Figures only: nothing here is asserted by a test.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Principal } from '../shared/auth/principal';
import { resetConfig } from '../shared/config';
import { type EvaluationMessage, evaluateAlerts, sweepDueAlerts } from '../shared/domain/alerts/evaluate';
import type { Notification } from '../shared/domain/alerts/notification';
import { CreateAlertBody } from '../shared/domain/alerts/schemas';
import { createEngineSeriesSource } from '../shared/domain/alerts/series-source';
import { createAlert } from '../shared/domain/alerts/service';
import { parseOrThrow } from '../shared/validation';
import { DuckDbWarehouse } from '../shared/warehouse/duckdb/adapter';
import { resetDuckDb } from '../shared/warehouse/duckdb/database';
import { writeFocusCsv } from '../shared/warehouse/generator';
import { round, startStack } from './support';

const ORG = 'org_abench';
const MONTHS = ['2024-07', '2024-08', '2024-09'];
/** Alerts are created before this and swept at it: data is complete through 2024-09-29. */
const CREATED = new Date('2024-10-02T05:00:00Z');
const NOW = new Date('2024-10-02T06:00:00Z');
const ALERTS = Number(process.env.BENCH_ALERTS ?? 1000);
const UNGROUPED = Number(process.env.BENCH_ALERTS_UNGROUPED ?? 200);
/** Messages per Lambda invocation (the `alert-evaluate` worker's batch size). */
const BATCH = 10;

const SERVICES = [
  'Amazon Elastic Compute Cloud',
  'Amazon Simple Storage Service',
  'Amazon Relational Database Service',
  'AWS Lambda',
  'Amazon Simple Queue Service',
  'Elastic Load Balancing',
  'Virtual Machines',
  'Storage',
  'Azure Kubernetes Service',
  'Azure Cosmos DB',
];

const where = (field: string, value: string[]) => ({
  combinator: 'and',
  rules: [{ field, operator: 'in', value }],
});

/** The 20 query sets: each is the `queries` of 50 alerts, one cost query named `q`. */
function querySets(): Record<string, unknown>[] {
  const q = (extra: Record<string, unknown>) => ({
    type: 'cost',
    name: 'q',
    colorIndex: 0,
    chartType: 'LINE',
    metricId: 'cost',
    ...extra,
  });
  return [
    ...SERVICES.map((s) => q({ whereClause: where('ServiceName', [s]) })),
    ...SERVICES.slice(0, 6).map((s, i) => q({ whereClause: where('ServiceName', [s, SERVICES[i + 4]!]) })),
    q({ whereClause: where('provider', ['AWS']) }),
    q({ whereClause: where('provider', ['Microsoft']) }),
    q({}),
    q({ groupBy: 'provider' }),
  ];
}

/** Alert body number `i` over query set `queries`: conditions and threshold variants in turn. */
function body(i: number, queries: Record<string, unknown>): Record<string, unknown> {
  const common = {
    name: `bench alert ${i}`,
    currency: 'USD',
    queries: [queries],
    notificationChannel: 'EMAIL',
    emails: ['bench@example.com'],
  };
  const k = 1.2 + (i % 7) * 0.3;
  const dedup = { kind: 'CALENDAR', calendarUnit: i % 2 ? 'WEEK' : 'MONTH' };
  const threshold = (value: number, metricMode: string, changeBasis: string) => ({
    value,
    severityLevel: 'WARNING',
    metricMode,
    changeBasis,
  });
  switch (i % 6) {
    case 0:
    case 1:
      return {
        ...common,
        condition: `q > rollingMedian(q, 28, DAY) * ${round(k, 2)}`,
        dedup,
        thresholds: [],
      };
    case 2:
      return {
        ...common,
        condition: `q > rollingMedian(q, 14, DAY) + ${1 + (i % 3)} * rollingStd(q, 14, DAY)`,
        dedup: { kind: 'ROLLING' },
        thresholds: [],
      };
    case 3:
      return { ...common, condition: `q > ${10 * (i % 50)}`, dedup, thresholds: [] };
    case 4:
      return {
        ...common,
        thresholds: [threshold(50 * (i % 40), 'ABSOLUTE_SPEND', 'ABSOLUTE_DELTA')],
        thresholdType: i % 2 ? 'ABOVE' : 'UNDER',
        evaluationPeriod: 'DAILY',
      };
    default:
      return {
        ...common,
        thresholds: [threshold(5 + (i % 4) * 5, 'PERIOD_CHANGE', 'PERCENTAGE')],
        thresholdType: 'ABOVE',
        evaluationPeriod: 'WEEKLY',
      };
  }
}

interface Run {
  alerts: number;
  messages: number;
  invocations: number;
  seconds: number;
  perMinute: number;
  evaluated: number;
  triggered: number;
  notifications: number;
}

/** Evaluates `messages` as the worker does: batches of BATCH, one source per invocation. */
async function work(messages: EvaluationMessage[]): Promise<Run> {
  let evaluated = 0;
  let triggered = 0;
  let notifications = 0;
  const enqueueNotification = async (_n: Notification) => {
    notifications++;
  };
  const started = performance.now();
  let invocations = 0;
  for (let i = 0; i < messages.length; i += BATCH) {
    invocations++;
    const source = createEngineSeriesSource();
    for (const msg of messages.slice(i, i + BATCH)) {
      const out = await evaluateAlerts(msg, { source, now: () => NOW, enqueueNotification });
      for (const e of out) {
        if (!e) continue;
        evaluated++;
        if (e.triggered) triggered++;
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const alerts = messages.reduce((n, m) => n + (m.alertIds?.length ?? 1), 0);
  return {
    alerts,
    messages: messages.length,
    invocations,
    seconds: round(seconds, 2),
    perMinute: Math.round((alerts / seconds) * 60),
    evaluated,
    triggered,
    notifications,
  };
}

function exprFigures(): unknown {
  const path = join(__dirname, 'results.json');
  if (!existsSync(path)) return 'run `npm run bench -- expr`';
  const expr = (JSON.parse(readFileSync(path, 'utf8')) as Record<string, Record<string, unknown>>).expr;
  if (!expr) return 'run `npm run bench -- expr`';
  const pps = (name: string) => (expr[name] as { pointsPerSecond?: number } | undefined)?.pointsPerSecond;
  return {
    source: 'bench/expr.bench.ts (results.expr), copied here',
    measuredAt: expr.measuredAt,
    anomalyPointsPerSecond: pps('anomaly'),
    weekOverWeekPointsPerSecond: pps('weekOverWeek'),
    unitCostPointsPerSecond: pps('unitCost'),
  };
}

export default async function alertsBench(): Promise<Record<string, unknown>> {
  const target = Number(process.env.WAREHOUSE_BENCH_ROWS ?? 1_000_000);
  const dir = mkdtempSync(join(tmpdir(), 'a-bench-'));
  const stack = await startStack();
  try {
    const csv = join(dir, 'focus.csv');
    const days = 31 + 31 + 30;
    const rows = await writeFocusCsv(csv, {
      seed: 7,
      months: MONTHS,
      providers: ['AWS', 'Microsoft'],
      resourcesPerProvider: Math.ceil(target / days / 2),
      accountPrefix: '4000',
    });
    process.env.DUCKDB_PATH = join(dir, 'alerts.duckdb');
    process.env.WAREHOUSE = 'duckdb';
    resetConfig();
    resetDuckDb();
    await new DuckDbWarehouse().ingestFile({ orgId: ORG, path: csv, sourceName: 'focus.csv' });
    process.stdout.write(`  ${rows} rows ingested\n`);

    const principal: Principal = {
      orgId: ORG,
      principalId: 'user_bench',
      kind: 'user',
      role: 'admin',
      teamIds: [],
    };
    const sets = querySets();
    const perSet = Math.ceil(ALERTS / sets.length);
    // Created 8 at a time (DynamoDB Local is the slow part of setting up).
    let made = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (made < ALERTS) {
          const i = made++;
          const input = parseOrThrow(
            CreateAlertBody,
            body(i, sets[Math.floor(i / perSet)]!),
            'plain',
            'body',
          );
          await createAlert(principal, input, CREATED);
        }
      }),
    );

    const sweepStarted = performance.now();
    const grouped: EvaluationMessage[] = [];
    const swept = await sweepDueAlerts(
      NOW,
      async (m) => {
        grouped.push(m);
      },
      (o) => o === ORG,
    );
    const sweepSeconds = (performance.now() - sweepStarted) / 1000;
    process.stdout.write(`  swept ${swept.enqueued} alerts into ${swept.messages} messages\n`);

    // One alert per message, in the order the sweep met them, over the first UNGROUPED of them.
    const order = grouped.flatMap((m) => m.alertIds ?? []);
    const shuffled = [...order].sort((a, b) => (a < b ? -1 : 1)); // ids are random: a random order
    const single = shuffled
      .slice(0, UNGROUPED)
      .map((alertId) => ({ orgId: ORG, alertId, scheduledFor: NOW.toISOString() }));
    const ungroupedRun = await work(single);
    process.stdout.write(`  one alert per message: ${JSON.stringify(ungroupedRun)}\n`);
    const groupedRun = await work(grouped);
    process.stdout.write(`  grouped: ${JSON.stringify(groupedRun)}\n`);

    return {
      method: `${ALERTS} alerts over ${sets.length} query sets, ${rows} generated rows in DuckDB, DynamoDB Local; evaluateAlerts as the worker runs it (batches of ${BATCH} messages, one series source per invocation), in process`,
      loadAverage1m: round(loadavg()[0] ?? 0, 2),
      rows,
      alerts: ALERTS,
      querySets: sets.length,
      sweep: { ...swept, seconds: round(sweepSeconds, 2) },
      grouped: groupedRun,
      oneAlertPerMessage: ungroupedRun,
      speedup: round(groupedRun.perMinute / Math.max(1, ungroupedRun.perMinute), 1),
      targetPerMinute: 10_000,
      expressionEvaluator: exprFigures(),
    };
  } finally {
    await stack.stop();
    resetDuckDb();
    rmSync(dir, { recursive: true, force: true });
  }
}
