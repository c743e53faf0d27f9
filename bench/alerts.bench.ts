/**
 * Alert-evaluation benchmark (`npm run bench -- alerts`): alerts evaluated per minute by one
 * evaluator worker, with 1,000 alerts over ~1M generated FOCUS rows (`WAREHOUSE_BENCH_ROWS` to
 * change) in DuckDB, in process, and DynamoDB Local for the alert records, the due index, the dedup
 * state and the evaluation history: started alone, once in memory and once on disk (its SQLite
 * commits on this shared disk cost more than DynamoDB's writes; both are recorded). Target:
 * 10,000 a minute.
 *
 * The 1,000 alerts ask 20 distinct query sets (50 alerts each: a service, a pair of services, a
 * provider, the total, the total by provider) with a mix of conditions (`rollingMedian`,
 * `rollingStd`, a plain floor) and threshold variants (ABOVE, UNDER, week-over-week percentage).
 * Timed:
 * - `sweep`: `sweepDueAlerts` over the due index (pages, conditional advances in parallel), its
 *   messages collected instead of sent;
 * - `evaluation`: the sweep's messages as the worker runs them (Lambda batches of 10 messages, one
 *   `evaluateMessages` and one series source per invocation), with the time spent in each port,
 *   measured from outside by wrapping the adapters (`PhaseClock`: the wall time during which at
 *   least one call of the phase is in flight): `load` (alerts, thresholds), `read` (the series
 *   source: warehouse reads), `dedup` (claims, timezones), `causes` (root causes of the firings that
 *   notify, through the engine), `notify` (the queue), `record` (history); notifications are
 *   counted, not put on SQS.
 * Budget alerts join them (`budget`): `BENCH_BUDGET_ALERTS` (200) alerts over four budgets (the
 * total, by provider, by service, AWS by service), watching the total, one line or each line
 * (`*`), with ACTUAL and FORECASTED thresholds (percentages of budget and amounts); the budgets'
 * September amounts are 80 %–140 % of the month's actuals by line, so some thresholds fire. Swept by
 * `sweepDueBudgetAlerts` after the cost alerts' sweep, evaluated by `evaluateBudgetAlerts` one
 * message at a time as the worker does (25 alerts a message; statuses shared within a message and
 * reused across them while the data is the same), notifications (with their burn chart) rendered and
 * counted, not sent; warehouse reads counted by port method. Two days: the first (crossed thresholds
 * fire) and the next on the same data (each already fired this month: nothing is sent).
 * The expression evaluator's throughput in points per second is `expr` in results.json
 * (bench/expr.bench.ts); this file copies its figures, it does not measure them again.
 * Figures only: nothing here is asserted by a test.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFocusCsv } from '../infra/local/demo-data/generator';
import { startDynamoLocal } from '../infra/local/emulators';
import type { Principal } from '../shared/auth/principal';
import { evaluationStore } from '../shared/domain/alerts/adapters/evaluate';
import { dueAlertIndex } from '../shared/domain/alerts/adapters/sweep';
import { type EvaluationMessage, evaluateMessages } from '../shared/domain/alerts/evaluator';
import type { Notification } from '../shared/domain/alerts/notification';
import type { EvaluationStore } from '../shared/domain/alerts/ports';
import { createEngineRootCauses } from '../shared/domain/alerts/root-cause-source';
import { CreateAlertBody } from '../shared/domain/alerts/schemas';
import type { AlertSeriesSource } from '../shared/domain/alerts/series';
import { createEngineSeriesSource } from '../shared/domain/alerts/series-source';
import { createAlert } from '../shared/domain/alerts/service';
import { sweepDueAlerts } from '../shared/domain/alerts/sweep';
import { parseOrThrow } from '../shared/validation';
import { DuckDbWarehouse } from '../shared/warehouse/duckdb/adapter';
import { resetDuckDb } from '../shared/warehouse/duckdb/database';
import { collectingQueue } from '../test/support/sqs';
import { BUDGET_ALERTS, budgetWork } from './alerts/budget-alerts';
import { CREATED, NOW, ORG, where } from './alerts/setting';
import { benchRows, round, timed, useDuckDb, useDynamoTable } from './support';

const MONTHS = ['2024-07', '2024-08', '2024-09'];
const ALERTS = Number(process.env.BENCH_ALERTS ?? 1000);
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

type Phase = 'load' | 'read' | 'dedup' | 'causes' | 'notify' | 'record';

/**
 * Wall time per phase, measured from outside the evaluator: each wrapped port call marks its phase
 * busy while it runs; the time with at least one call of the phase in flight is added up (calls in
 * parallel are not counted twice).
 */
class PhaseClock {
  readonly ms: Record<Phase, number> = { load: 0, read: 0, dedup: 0, causes: 0, notify: 0, record: 0 };
  private readonly busy = new Map<Phase, { n: number; since: number }>();
  wrap<A extends unknown[], R>(phase: Phase, fn: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
    return async (...args: A) => {
      const b = this.busy.get(phase) ?? { n: 0, since: 0 };
      if (b.n++ === 0) b.since = performance.now();
      this.busy.set(phase, b);
      try {
        return await fn(...args);
      } finally {
        if (--b.n === 0) this.ms[phase] += performance.now() - b.since;
      }
    };
  }
  store(s: EvaluationStore): EvaluationStore {
    return {
      getAlerts: this.wrap('load', s.getAlerts),
      getThresholdsOf: this.wrap('load', s.getThresholdsOf),
      organizationTimezone: this.wrap('dedup', s.organizationTimezone),
      claimDedup: this.wrap('dedup', s.claimDedup),
      putEvaluations: this.wrap('record', s.putEvaluations),
    };
  }
}

/** Evaluates `messages` as the worker does: batches of BATCH, one `evaluateMessages` and source per invocation. */
async function work(messages: EvaluationMessage[]) {
  let evaluated = 0;
  let triggered = 0;
  let notifications = 0;
  const clock = new PhaseClock();
  const store = clock.store(evaluationStore);
  const enqueueNotifications = clock.wrap('notify', async (ns: readonly Notification[]) => {
    notifications += ns.length;
    return ns.map(() => null);
  });
  const causes = createEngineRootCauses();
  const rootCauses = { explain: clock.wrap('causes', causes.explain.bind(causes)) };
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  let invocations = 0;
  for (let i = 0; i < messages.length; i += BATCH) {
    invocations++;
    const engine = createEngineSeriesSource();
    const source: AlertSeriesSource = {
      prepare: (alerts, opts) => engine.prepare?.(alerts, opts),
      read: clock.wrap('read', engine.read.bind(engine)),
    };
    const outcomes = await evaluateMessages(messages.slice(i, i + BATCH), {
      source,
      store,
      rootCauses,
      now: () => NOW,
      enqueueNotifications,
    });
    for (const out of outcomes) {
      if (!out.ok) throw out.error;
      for (const e of out.value) {
        if (!e) continue;
        evaluated++;
        if (e.triggered) triggered++;
      }
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const alerts = messages.reduce((n, m) => n + (m.alertIds?.length ?? 1), 0);
  const s = (ms: number) => round(ms / 1000, 2);
  return {
    alerts,
    messages: messages.length,
    invocations,
    seconds: round(seconds, 2),
    perMinute: Math.round((alerts / seconds) * 60),
    evaluated,
    triggered,
    notifications,
    phaseSeconds: Object.fromEntries(Object.entries(clock.ms).map(([k, v]) => [k, s(v)])),
    dynamoDbSeconds: s(clock.ms.load + clock.ms.dedup + clock.ms.record),
    warehouseSeconds: s(clock.ms.read + clock.ms.causes),
    // CPU of the worker's process (our code, the AWS SDK and DuckDB's threads; DynamoDB Local is
    // another process): what one worker spends, whatever the machine's load.
    workerCpuSeconds: s((cpu.user + cpu.system) / 1000),
    perMinuteOfWorkerCpu: Math.round((alerts / ((cpu.user + cpu.system) / 1e6)) * 60),
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

/** The 1,000 alerts, created 16 at a time (setting up, not timed as evaluation). */
async function createAlerts(principal: Principal): Promise<number> {
  const sets = querySets();
  const perSet = Math.ceil(ALERTS / sets.length);
  let made = 0;
  const create = await timed(() =>
    Promise.all(
      Array.from({ length: 16 }, async () => {
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
    ),
  );
  return create.ms / 1000;
}

/** Creates the alerts in a fresh DynamoDB Local (`memory` or `disk`), then times the sweep and the evaluation. */
async function runOn(storage: 'memory' | 'disk', dir: string, principal: Principal) {
  const dynamo = await startDynamoLocal(storage === 'disk' ? { dbPath: join(dir, 'dynamodb') } : {});
  const table = `alerts-bench-${storage}`;
  try {
    await useDynamoTable(dynamo.endpoint, table);
    const createSeconds = await createAlerts(principal);
    process.stdout.write(`  [${storage}] ${ALERTS} alerts created in ${round(createSeconds)} s\n`);
    const loadBefore = load();
    const grouped: EvaluationMessage[] = [];
    const sweepCpu = process.cpuUsage();
    const sweep = await timed(() =>
      sweepDueAlerts(NOW, { index: dueAlertIndex, send: collectingQueue(grouped) }, (o) => o === ORG),
    );
    const sweepSeconds = sweep.ms / 1000;
    const sweepCpuUsed = process.cpuUsage(sweepCpu);
    process.stdout.write(
      `  [${storage}] swept ${sweep.result.enqueued} alerts into ${sweep.result.messages} messages in ${round(sweepSeconds, 2)} s\n`,
    );
    const evaluation = await work(grouped);
    process.stdout.write(`  [${storage}] evaluation: ${JSON.stringify(evaluation)}\n`);
    const budget = BUDGET_ALERTS > 0 ? await budgetWork(principal) : null;
    if (budget) process.stdout.write(`  [${storage}] budget alerts: ${JSON.stringify(budget)}\n`);
    return {
      loadAverage1m: { before: loadBefore, after: load() },
      createAlertsSeconds: round(createSeconds, 1),
      sweep: {
        ...sweep.result,
        seconds: round(sweepSeconds, 2),
        cpuSeconds: round((sweepCpuUsed.user + sweepCpuUsed.system) / 1e6, 2),
      },
      evaluation,
      // Sweep and evaluation of the same alerts, end to end, per minute.
      sweepAndEvaluatePerMinute: Math.round((ALERTS / (sweepSeconds + evaluation.seconds)) * 60),
      budget,
    };
  } finally {
    await dynamo.stop();
  }
}

const load = () => round(loadavg()[0] ?? 0, 2);

export default async function alertsBench(): Promise<Record<string, unknown>> {
  const target = benchRows();
  const storages = (process.env.BENCH_ALERTS_DYNAMO ?? 'memory,disk')
    .split(',')
    .filter((x): x is 'memory' | 'disk' => x === 'memory' || x === 'disk');
  const dir = mkdtempSync(join(tmpdir(), 'a-bench-'));
  try {
    Object.assign(process.env, {
      AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID ?? 'local',
      AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY ?? 'local',
    });
    useDuckDb(dir, 'alerts');
    const csv = join(dir, 'focus.csv');
    const days = 31 + 31 + 30;
    // One row per resource and day; with AWS and Microsoft, 1.5 resources per `resourcesPerProvider`.
    const generate = await timed(() =>
      writeFocusCsv(csv, {
        seed: 7,
        months: MONTHS,
        providers: ['AWS', 'Microsoft'],
        resourcesPerProvider: Math.ceil(target / days / 1.5),
        accountPrefix: '4000',
      }),
    );
    const rows = generate.result;
    const ingest = await timed(() =>
      new DuckDbWarehouse().ingestFile({ orgId: ORG, path: csv, sourceName: 'focus.csv' }),
    );
    rmSync(csv, { force: true });
    process.stdout.write(`  ${rows} rows generated and ingested\n`);

    const principal: Principal = {
      orgId: ORG,
      principalId: 'user_bench',
      kind: 'user',
      role: 'admin',
      teamIds: [],
    };
    const runs: Record<string, unknown> = {};
    for (const storage of storages)
      runs[storage === 'memory' ? 'dynamoInMemory' : 'dynamoOnDisk'] = await runOn(storage, dir, principal);
    return {
      method: `${ALERTS} alerts over ${querySets().length} query sets, ${rows} generated rows in DuckDB (in process); DynamoDB Local started alone, in memory (dynamoInMemory) and on disk (dynamoOnDisk), fresh for each; sweepDueAlerts (messages collected), then evaluateMessages as the worker runs it, with root causes, (batches of ${BATCH} messages, one series source per invocation); notifications counted, not sent`,
      rows,
      alerts: ALERTS,
      budgetAlerts: BUDGET_ALERTS,
      querySets: querySets().length,
      setupSeconds: { generate: round(generate.ms / 1000, 1), ingest: round(ingest.ms / 1000, 1) },
      ...runs,
      targetPerMinute: 10_000,
      expressionEvaluator: exprFigures(),
    };
  } finally {
    resetDuckDb();
    rmSync(dir, { recursive: true, force: true });
  }
}
