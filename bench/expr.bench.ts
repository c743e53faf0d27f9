/**
 * The expression-language benchmark (`npx tsx bench/run.ts expr`): points per second of
 * `evaluateExpression` (parsed once, evaluated repeatedly) over 1,000 groups × 365 days, for the
 * anomaly condition `a > rollingMedian(a, 28, DAY) * 1.5 and a > 100`, the week-over-week
 * `timeShift(rollingSum(a, 7, DAY), 7, DAY)` and unit cost `a / b * 1000`. A point is one output
 * value (group × date). Figures only: no test asserts on them.
 */
import { loadavg } from 'node:os';
import { seededRandom } from '../infra/local/demo-data/random';
import { evaluateExpression, type GroupedSeries, parseExpression } from '../shared/domain/common/expr';

const GROUPS = Number(process.env.BENCH_EXPR_GROUPS ?? 1000);
const DAYS = Number(process.env.BENCH_EXPR_DAYS ?? 365);
const ROUNDS = Number(process.env.BENCH_EXPR_ROUNDS ?? 7);

function dates(count: number): string[] {
  const t0 = Date.UTC(2024, 0, 1);
  return Array.from({ length: count }, (_, i) => new Date(t0 + i * 86_400_000).toISOString().slice(0, 10));
}

/** Daily costs around a per-group level with weekly seasonality, noise and rare spikes. */
function series(seed: number): GroupedSeries {
  const rand = seededRandom(seed);
  return {
    groups: Array.from({ length: GROUPS }, (_, g) => {
      const level = 20 + rand() * 500;
      return {
        key: { service: `svc-${g}` },
        values: Array.from({ length: DAYS }, (_, d) => {
          const weekly = d % 7 >= 5 ? 0.7 : 1;
          const spike = rand() < 0.01 ? 3 : 1;
          return Math.round(level * weekly * spike * (0.9 + rand() * 0.2) * 100) / 100;
        }),
      };
    }),
  };
}

const round = (n: number) => Math.round(n * 100) / 100;

export default async function exprBench(): Promise<Record<string, unknown>> {
  const loadBefore = loadavg()[0];
  const input = { dates: dates(DAYS), bucket: 'Day' as const, series: { a: series(1), b: series(2) } };
  const cases = {
    anomaly: 'a > rollingMedian(a, 28, DAY) * 1.5 and a > 100',
    weekOverWeek: 'timeShift(rollingSum(a, 7, DAY), 7, DAY)',
    unitCost: 'a / b * 1000',
  };
  const out: Record<string, unknown> = {};
  for (const [name, source] of Object.entries(cases)) {
    const expr = parseExpression(source, { names: ['a', 'b'] });
    evaluateExpression(expr, input); // warm-up
    const ms: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now();
      const result = evaluateExpression(expr, input);
      ms.push(performance.now() - started);
      if (result.groups.length !== GROUPS) throw new Error(`${name}: ${result.groups.length} groups`);
    }
    ms.sort((x, y) => x - y);
    const median = ms[Math.floor(ms.length / 2)] as number;
    out[name] = {
      expression: source,
      points: GROUPS * DAYS,
      medianMs: round(median),
      bestMs: round(ms[0] as number),
      pointsPerSecond: Math.round((GROUPS * DAYS) / (median / 1000)),
    };
  }
  const parseRounds = 2000;
  const started = performance.now();
  for (let i = 0; i < parseRounds; i++) parseExpression(cases.anomaly, { names: ['a', 'b'] });
  out.parse = {
    expression: cases.anomaly,
    microsecondsPerParse: round(((performance.now() - started) * 1000) / parseRounds),
  };
  return {
    method: `evaluateExpression over ${GROUPS} groups × ${DAYS} days (Day buckets), parsed once; median of ${ROUNDS} rounds after a warm-up, in process`,
    loadAverage1m: { before: round(loadBefore ?? 0), after: round(loadavg()[0] ?? 0) },
    ...out,
  };
}
