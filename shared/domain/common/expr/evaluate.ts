import { forecastSeries, forecastTotal } from '../../forecast';
import { type Bucket, minus, parseDate, previousBucketStart } from './dates';
import { ExpressionError } from './errors';
import {
  type BinaryOp,
  type Expression,
  type ExprNode,
  FORECAST_LOOKBACK_DAYS,
  type ForecastBound,
  type Unit,
  type WindowFunction,
} from './parse';

/**
 * The tree-walking evaluator. Every node evaluates to a constant or to a grouped series over the
 * input dates; internally a series is a Float64Array per group with NaN standing for null, so null
 * propagates through arithmetic for free. Semantics (docs/expressions.md):
 * - null in, null out: arithmetic, comparisons, abs, min and max with a null operand are null;
 *   `and`/`or`/`not` follow three-valued logic (`0 and null` = 0, `1 or null` = 1);
 * - x / 0 is null; any non-finite result (overflow) is null; booleans are 1 and 0;
 * - grouped operands pair by group key; a series with the single group `{}` (ungrouped) is paired
 *   with every group; a group present in one operand only meets 0 for `+` and `-`, null otherwise;
 *   two operands grouped by different dimensions are an ExpressionError;
 * - timeShift and rolling* work on dates (see ./dates.ts); what needs history before the first
 *   date is null; rolling aggregates skip nulls.
 */
export type { Bucket } from './dates';

export type GroupKey = Record<string, string | null>;

export interface GroupedSeries {
  groups: { key: GroupKey; values: (number | null)[] }[];
}

export interface EvaluationInput {
  /** Bucket starts, ascending: `YYYY-MM-DD`, or an ISO date-time for Hour. */
  dates: string[];
  bucket: Bucket;
  /** The series of every referenced query, values aligned to `dates`. */
  series: Record<string, GroupedSeries>;
}

interface Group {
  id: string;
  key: GroupKey;
  values: Float64Array;
}

interface Series {
  kind: 'series';
  groups: Group[];
  /** Sorted dimension names (JSON) of the groups; '' for the ungrouped `{}`; null with no groups. */
  dims: string | null;
  index: Map<string, Group>;
}

type Value = { kind: 'scalar'; v: number } | Series;

/** The canonical id of a group key: JSON of its entries sorted by dimension name. */
export function groupId(key: GroupKey): string {
  const names = Object.keys(key).sort();
  return JSON.stringify(names.map((n) => [n, key[n] ?? null]));
}

function dimsOf(groups: Group[]): string | null {
  const first = groups[0];
  if (!first) return null;
  return Object.keys(first.key).length ? JSON.stringify(Object.keys(first.key).sort()) : '';
}

function makeSeries(groups: Group[]): Series {
  return { kind: 'series', groups, dims: dimsOf(groups), index: new Map(groups.map((g) => [g.id, g])) };
}

const isUngrouped = (s: Series) => s.dims === '';

type Kernel = (x: number, y: number) => number;

const cmp =
  (f: (x: number, y: number) => boolean): Kernel =>
  (x, y) =>
    Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : f(x, y) ? 1 : 0;

const KERNELS: Record<BinaryOp | 'min' | 'max', Kernel> = {
  '+': (x, y) => x + y,
  '-': (x, y) => x - y,
  '*': (x, y) => x * y,
  '/': (x, y) => (y === 0 ? Number.NaN : x / y),
  '>': cmp((x, y) => x > y),
  '>=': cmp((x, y) => x >= y),
  '<': cmp((x, y) => x < y),
  '<=': cmp((x, y) => x <= y),
  '==': cmp((x, y) => x === y),
  '!=': cmp((x, y) => x !== y),
  and: (x, y) => (x === 0 || y === 0 ? 0 : Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : 1),
  or: (x, y) =>
    (!Number.isNaN(x) && x !== 0) || (!Number.isNaN(y) && y !== 0)
      ? 1
      : Number.isNaN(x) || Number.isNaN(y)
        ? Number.NaN
        : 0,
  min: (x, y) => (Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : Math.min(x, y)),
  max: (x, y) => (Number.isNaN(x) || Number.isNaN(y) ? Number.NaN : Math.max(x, y)),
};

class Evaluator {
  private readonly times: Float64Array;
  private readonly n: number;
  private readonly inputs = new Map<string, Series>();
  private readonly plans = new Map<string, Int32Array>();
  private readonly zeros: Float64Array;
  private readonly nulls: Float64Array;

  constructor(private readonly input: EvaluationInput) {
    this.n = input.dates.length;
    this.times = Float64Array.from(input.dates, parseDate);
    for (let i = 1; i < this.n; i++) {
      if (!((this.times[i] as number) > (this.times[i - 1] as number))) {
        throw new Error('evaluateExpression: dates must be strictly ascending');
      }
    }
    this.zeros = new Float64Array(this.n);
    this.nulls = new Float64Array(this.n).fill(Number.NaN);
  }

  run(node: ExprNode): Value {
    switch (node.type) {
      case 'number':
        return { kind: 'scalar', v: node.value };
      case 'ref':
        return this.ref(node.name, node.pos);
      case 'unary': {
        const arg = this.run(node.arg);
        return node.op === '-'
          ? this.map(arg, (x) => -x)
          : this.map(arg, (x) => (Number.isNaN(x) ? Number.NaN : x === 0 ? 1 : 0));
      }
      case 'binary':
        return this.combine(node.op, this.run(node.left), this.run(node.right), node.pos);
      case 'call': {
        if (node.fn === 'abs') return this.map(this.run(node.args[0] as ExprNode), Math.abs);
        let acc = this.run(node.args[0] as ExprNode);
        for (let i = 1; i < node.args.length; i++) {
          acc = this.combine(node.fn, acc, this.run(node.args[i] as ExprNode), node.pos);
        }
        return acc;
      }
      case 'window':
        return this.window(node.fn, this.run(node.arg), node.n, node.unit);
      case 'forecast':
        return this.forecast(this.run(node.arg), node.unit, node.pos, node.bound);
    }
  }

  private ref(name: string, pos: number): Series {
    const cached = this.inputs.get(name);
    if (cached) return cached;
    const raw = this.input.series[name];
    if (!raw || !Array.isArray(raw.groups)) throw new ExpressionError(`no series for query '${name}'`, pos);
    const groups = raw.groups.map((g) => {
      if (g.values.length !== this.n) {
        throw new Error(
          `evaluateExpression: series '${name}' has ${g.values.length} values for ${this.n} dates`,
        );
      }
      const values = new Float64Array(this.n);
      for (let i = 0; i < this.n; i++) {
        const x = g.values[i];
        values[i] = typeof x === 'number' ? x : Number.NaN;
      }
      return { id: groupId(g.key), key: g.key, values };
    });
    const series = makeSeries(groups);
    if (series.index.size !== groups.length) {
      throw new Error(`evaluateExpression: series '${name}' has two groups with the same key`);
    }
    this.inputs.set(name, series);
    return series;
  }

  private toSeries(v: Value): Series {
    if (v.kind === 'series') return v;
    return makeSeries([{ id: groupId({}), key: {}, values: new Float64Array(this.n).fill(v.v) }]);
  }

  private map(v: Value, f: (x: number) => number): Value {
    if (v.kind === 'scalar') return { kind: 'scalar', v: f(v.v) };
    return makeSeries(
      v.groups.map((g) => {
        const out = new Float64Array(this.n);
        const src = g.values;
        for (let i = 0; i < src.length; i++) out[i] = f(src[i] as number);
        return { id: g.id, key: g.key, values: out };
      }),
    );
  }

  private zip(f: Kernel, a: Float64Array | number, b: Float64Array | number): Float64Array {
    const out = new Float64Array(this.n);
    if (typeof a === 'number') {
      const bs = b as Float64Array;
      for (let i = 0; i < out.length; i++) out[i] = f(a, bs[i] as number);
    } else if (typeof b === 'number') {
      for (let i = 0; i < out.length; i++) out[i] = f(a[i] as number, b);
    } else {
      for (let i = 0; i < out.length; i++) out[i] = f(a[i] as number, b[i] as number);
    }
    return out;
  }

  private combine(op: BinaryOp | 'min' | 'max', a: Value, b: Value, pos: number): Value {
    const f = KERNELS[op];
    if (a.kind === 'scalar' && b.kind === 'scalar') return { kind: 'scalar', v: f(a.v, b.v) };
    if (a.kind === 'scalar' || b.kind === 'scalar') {
      const series = (a.kind === 'series' ? a : b) as Series;
      const left = a.kind === 'scalar';
      const c = ((a.kind === 'scalar' ? a : b) as { v: number }).v;
      return makeSeries(
        series.groups.map((g) => ({
          id: g.id,
          key: g.key,
          values: left ? this.zip(f, c, g.values) : this.zip(f, g.values, c),
        })),
      );
    }
    // Broadcast an ungrouped operand over the other's groups.
    if (isUngrouped(a) || isUngrouped(b)) {
      if (isUngrouped(a) && isUngrouped(b)) {
        const ga = a.groups[0] as Group;
        return makeSeries([
          { id: ga.id, key: ga.key, values: this.zip(f, ga.values, (b.groups[0] as Group).values) },
        ]);
      }
      const one = ((isUngrouped(a) ? a : b).groups[0] as Group).values;
      const many = isUngrouped(a) ? b : a;
      return makeSeries(
        many.groups.map((g) => ({
          id: g.id,
          key: g.key,
          values: isUngrouped(a) ? this.zip(f, one, g.values) : this.zip(f, g.values, one),
        })),
      );
    }
    if (a.dims !== null && b.dims !== null && a.dims !== b.dims) {
      throw new ExpressionError(
        `cannot combine a series grouped by ${a.dims} with one grouped by ${b.dims}`,
        pos,
      );
    }
    const missing = op === '+' || op === '-' ? this.zeros : this.nulls;
    const out: Group[] = [];
    for (const g of a.groups) {
      const partner = b.index.get(g.id);
      out.push({ id: g.id, key: g.key, values: this.zip(f, g.values, partner ? partner.values : missing) });
    }
    for (const g of b.groups) {
      if (!a.index.has(g.id)) out.push({ id: g.id, key: g.key, values: this.zip(f, missing, g.values) });
    }
    return makeSeries(out);
  }

  /**
   * For timeShift: per output index, the index of the bucket holding `date − n unit` (-1 when that
   * is before the first date). For rolling*: per output index, the first index of its window
   * (start in `(date − n unit, date]`), or -1 when the window reaches before the dates' history.
   */
  private plan(kind: 'shift' | 'window', n: number, unit: Unit): Int32Array {
    const cacheKey = `${kind}:${n}:${unit}`;
    const cached = this.plans.get(cacheKey);
    if (cached) return cached;
    const t = this.times;
    const out = new Int32Array(this.n);
    const first = t[0] as number;
    const covered = this.n ? previousBucketStart(first, this.input.bucket) : 0;
    let j = 0;
    for (let i = 0; i < this.n; i++) {
      const target = minus(t[i] as number, n, unit);
      if (kind === 'shift') {
        if (target < first) {
          out[i] = -1;
          continue;
        }
        while (j + 1 < this.n && (t[j + 1] as number) <= target) j++;
        out[i] = j;
      } else {
        while (j < i && (t[j] as number) <= target) j++;
        out[i] = covered <= target ? j : -1;
      }
    }
    this.plans.set(cacheKey, out);
    return out;
  }

  private forecast(v: Value, unit: 'WEEK' | 'MONTH', pos: number, bound?: ForecastBound): Series {
    if (this.input.bucket !== 'Day') {
      const fn = bound === 'lower80' ? 'forecastLower' : bound === 'upper80' ? 'forecastUpper' : 'forecast';
      throw new ExpressionError(`${fn}(x, ${unit}) needs Day buckets (got ${this.input.bucket})`, pos);
    }
    const series = this.toSeries(v);
    return makeSeries(
      series.groups.map((g) => ({
        id: g.id,
        key: g.key,
        values: forecastEndOfPeriod(this.input.dates, g.values, unit, bound),
      })),
    );
  }

  private window(fn: WindowFunction, v: Value, n: number, unit: Unit): Series {
    const series = this.toSeries(v);
    if (fn === 'timeShift') {
      const plan = this.plan('shift', n, unit);
      return makeSeries(
        series.groups.map((g) => {
          const out = new Float64Array(this.n);
          for (let i = 0; i < this.n; i++) {
            const j = plan[i] as number;
            out[i] = j < 0 ? Number.NaN : (g.values[j] as number);
          }
          return { id: g.id, key: g.key, values: out };
        }),
      );
    }
    const plan = this.plan('window', n, unit);
    const agg = fn === 'rollingMedian' ? rollingMedian : fn === 'rollingStd' ? rollingStd : rollingSumAvg;
    return makeSeries(
      series.groups.map((g) => ({ id: g.id, key: g.key, values: agg(g.values, plan, fn === 'rollingAvg') })),
    );
  }
}

const DAY_MS = 86_400_000;

/**
 * `forecast(x, period)[d]` over one group's daily values: the total of the calendar WEEK (ISO) or
 * MONTH holding `d`, its days through `d` actual and the rest forecast by the forecasting model
 * from the values up to `d` (nulls count as 0, a day without rows). Null where fewer than
 * FORECAST_LOOKBACK_DAYS days precede `d` or every value up to `d` is null. With `bound`, that
 * bound of the total's 80 % prediction interval instead (on the last day of the period: the total).
 */
function forecastEndOfPeriod(
  dates: readonly string[],
  values: Float64Array,
  unit: 'WEEK' | 'MONTH',
  bound?: ForecastBound,
): Float64Array {
  const out = new Float64Array(values.length).fill(Number.NaN);
  const first = dayMs(dates[0] ?? '');
  let seen = false;
  for (let i = 0; i < values.length; i++) {
    if (!Number.isNaN(values[i] as number)) seen = true;
    const d = dayMs(dates[i] as string);
    if (!seen || (d - first) / DAY_MS < FORECAST_LOOKBACK_DAYS) continue;
    const day = new Date(d);
    const start =
      unit === 'MONTH'
        ? Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), 1)
        : d - ((day.getUTCDay() + 6) % 7) * DAY_MS;
    const end =
      unit === 'MONTH' ? Date.UTC(day.getUTCFullYear(), day.getUTCMonth() + 1, 0) : start + 6 * DAY_MS;
    const history: { date: string; value: number }[] = [];
    for (let j = 0; j <= i; j++) {
      const v = values[j] as number;
      history.push({ date: dates[j] as string, value: Number.isNaN(v) ? 0 : v });
    }
    const horizon = Math.round((end - d) / DAY_MS);
    if (horizon === 0) {
      let sum = 0;
      for (const r of history) if (dayMs(r.date) >= start) sum += r.value;
      out[i] = sum;
      continue;
    }
    const f = forecastSeries(history, { horizonDays: horizon });
    out[i] = forecastTotal(f, history, ymdOf(start), ymdOf(end))[bound ?? 'value'];
  }
  return out;
}

const dayMs = (date: string) => Date.parse(`${date.slice(0, 10)}T00:00:00Z`);
const ymdOf = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Sum (or mean) of the non-null values of each window, kept incrementally. */
function rollingSumAvg(values: Float64Array, starts: Int32Array, mean: boolean): Float64Array {
  const out = new Float64Array(values.length);
  let sum = 0;
  let count = 0;
  let lo = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (!Number.isNaN(x)) {
      sum += x;
      count++;
    }
    const start = starts[i] as number;
    while (lo < start) {
      const y = values[lo++] as number;
      if (!Number.isNaN(y)) {
        sum -= y;
        count--;
      }
    }
    if (count === 0) sum = 0;
    out[i] = start < 0 || count === 0 ? Number.NaN : mean ? sum / count : sum;
  }
  return out;
}

/** Sample standard deviation (n − 1) of the non-null values; null with fewer than two. */
function rollingStd(values: Float64Array, starts: Int32Array): Float64Array {
  const out = new Float64Array(values.length);
  // Sums of (x − shift) keep the variance accurate when values sit far from zero.
  let shift = Number.NaN;
  for (const x of values) {
    if (!Number.isNaN(x)) {
      shift = x;
      break;
    }
  }
  let s1 = 0;
  let s2 = 0;
  let count = 0;
  let lo = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (!Number.isNaN(x)) {
      const d = x - shift;
      s1 += d;
      s2 += d * d;
      count++;
    }
    const start = starts[i] as number;
    while (lo < start) {
      const y = values[lo++] as number;
      if (!Number.isNaN(y)) {
        const d = y - shift;
        s1 -= d;
        s2 -= d * d;
        count--;
      }
    }
    if (count === 0) {
      s1 = 0;
      s2 = 0;
    }
    if (start < 0 || count < 2) {
      out[i] = Number.NaN;
      continue;
    }
    const variance = (s2 - (s1 * s1) / count) / (count - 1);
    out[i] = Math.sqrt(Math.max(variance, 0));
  }
  return out;
}

/** Index of the first element of `sorted[0..len)` not less than `x`. */
function lowerBound(sorted: Float64Array, len: number, x: number): number {
  let lo = 0;
  let hi = len;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as number) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Median of the non-null values of each window: a sorted window, binary insertion and removal. */
function rollingMedian(values: Float64Array, starts: Int32Array): Float64Array {
  const out = new Float64Array(values.length);
  const sorted = new Float64Array(values.length);
  let len = 0;
  let lo = 0;
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    if (!Number.isNaN(x)) {
      const at = lowerBound(sorted, len, x);
      sorted.copyWithin(at + 1, at, len);
      sorted[at] = x;
      len++;
    }
    const start = starts[i] as number;
    while (lo < start) {
      const y = values[lo++] as number;
      if (!Number.isNaN(y)) {
        const at = lowerBound(sorted, len, y);
        sorted.copyWithin(at, at + 1, len);
        len--;
      }
    }
    if (start < 0 || len === 0) {
      out[i] = Number.NaN;
      continue;
    }
    const mid = len >>> 1;
    out[i] = len % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
  }
  return out;
}

function toOutput(values: Float64Array): (number | null)[] {
  const out = new Array<number | null>(values.length);
  for (let i = 0; i < values.length; i++) {
    const x = values[i] as number;
    // Non-finite (null, x/0, overflow) is null; -0 is 0.
    out[i] = Number.isFinite(x) ? (x === 0 ? 0 : x) : null;
  }
  return out;
}

/**
 * Evaluates a parsed expression over the input series. The result is grouped like its operands
 * (a constant expression gives one ungrouped series). Throws ExpressionError for operands grouped
 * by different dimensions or a referenced query missing from `series`.
 */
export function evaluateExpression(expr: Expression, input: EvaluationInput): GroupedSeries {
  const ev = new Evaluator(input);
  const value = ev.run(expr.ast);
  const series: Series =
    value.kind === 'series'
      ? value
      : makeSeries([
          { id: groupId({}), key: {}, values: new Float64Array(input.dates.length).fill(value.v) },
        ]);
  return { groups: series.groups.map((g) => ({ key: g.key, values: toOutput(g.values) })) };
}

/**
 * A condition query's 1/0 series: 1 where the expression is true (a non-zero value), 0 where it
 * is false or unknown (null).
 */
export function asCondition(series: GroupedSeries): GroupedSeries {
  return {
    groups: series.groups.map((g) => ({
      key: g.key,
      values: g.values.map((x) => (x !== null && x !== 0 ? 1 : 0)),
    })),
  };
}
