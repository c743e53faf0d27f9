import { minus, parseDate, previousBucketStart } from './dates';
import { ExpressionError } from './errors';
import {
  type EvaluationInput,
  type Group,
  type GroupedSeries,
  groupId,
  isUngrouped,
  makeSeries,
  type Series,
  toOutput,
  type Value,
} from './grouped-series';
import { KERNELS, type Kernel } from './kernels';
import type { BinaryOp, Expression, ExprNode, ForecastBound, Unit, WindowFunction } from './parse';
import { rollingMedian, rollingStd, rollingSumAvg } from './rolling';

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
    const forecaster = this.input.forecaster;
    if (!forecaster) throw new Error('forecast(…) evaluated without the model: pass loadPeriodForecaster()');
    const series = this.toSeries(v);
    return makeSeries(
      series.groups.map((g) => ({
        id: g.id,
        key: g.key,
        values: forecaster(this.input.dates, g.values, unit, bound),
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
