import { alertPageLink, explorerLink, parseExplorerQueryString } from '../../links';
import type { AlertThreshold, CostAlert, RootCauses } from '../../model/alerts';
import { ExpressionError } from '../common/expr/errors';
import { type ExprNode, parseExpression } from '../common/expr/parse';
import { windowNodes } from '../common/expr/walk';

/**
 * What a firing says, independent of the format: the firing itself, money and percentages as the
 * messages write them, the condition in words, the values that made it true ("EC2 cost on
 * 2026-11-20 was $1,240, 2.3× its 28-day median of $540") and the links to the explorer over the
 * evaluated period and to the alert's page (both under the console's base URL, shared/links.ts).
 * The formats (e-mail, Slack, Teams) are rendered from it in `render.ts`.
 */
export interface AlertFiring {
  alert: Pick<
    CostAlert,
    | 'id'
    | 'name'
    | 'description'
    | 'currency'
    | 'queries'
    | 'queryName'
    | 'condition'
    | 'thresholdType'
    | 'evaluationPeriod'
    | 'urlState'
  > & { scopeId?: string | null };
  thresholds: Pick<AlertThreshold, 'value' | 'severityLevel' | 'metricMode' | 'changeBasis'>[];
  /** The evaluated day (`YYYY-MM-DD`): the last complete day of billing data. */
  evaluatedDay: string;
  /** The evaluated period, inclusive (`YYYY-MM-DD`): one day for DAILY, a week or a month otherwise. */
  period: { start: string; end: string };
  /** Each query's value over the evaluated period (by query name). */
  values: Record<string, number | null>;
  /**
   * Values of the condition's window functions over a query on the evaluated day, keyed
   * `fn(query,n,UNIT)` as `baselineKey` spells it, e.g. `rollingMedian(ec2,28,DAY)`.
   */
  baselines: Record<string, number | null>;
  /** Threshold variants: the previous period's value (PERIOD_CHANGE compares with it). */
  previousValue?: number | null;
  /** The console's base URL (config `consoleBaseUrl`): the links' base. */
  appUrl: string;
  /** A test send: the values are a sample (the alert does not exist: its link is the alerts list). */
  test?: boolean;
  /** The top contributors to the change (root-causes.ts), when they could be computed. */
  rootCauses?: RootCauses;
  /** The series the message's chart draws (chart.ts), when the evaluator had it. */
  chart?: AlertChart;
}

/**
 * What the message's chart draws: the alert's value per bucket (a day, or a week or month for
 * threshold variants evaluated WEEKLY or MONTHLY) over the evaluated period and the ones before it,
 * with reference lines (thresholds, or the condition's baselines) and the evaluated bucket marked.
 */
export interface AlertChart {
  buckets: string[];
  /** The bucket evaluated (an index into `buckets`). */
  marked: number;
  series: { name: string; values: (number | null)[]; reference: boolean }[];
}

/** A baseline key (`rollingMedian(ec2,28,DAY)`) in words: "EC2 cost, 28-day median". */
export function baselineLabel(firing: AlertFiring, key: string): string {
  const m = /^(\w+)\(([^,]+),(\d+),(\w+)\)$/.exec(key);
  if (!m) return key;
  const [, fn, query, n, unit] = m as unknown as [string, string, string, string, string];
  const what =
    fn === 'timeShift'
      ? `${n} ${unit.toLowerCase()}${n === '1' ? '' : 's'} earlier`
      : `${span(Number(n), unit)} ${FN_WORDS[fn] ?? fn}`;
  return `${labelOf(firing, query)}, ${what}`;
}

export function baselineKey(fn: string, query: string, n: number, unit: string): string {
  return `${fn}(${query},${n},${unit.toUpperCase()})`;
}

// ---------------------------------------------------------------------------------------------
// Numbers

export function money(value: number | null | undefined, currency: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: abs >= 100 ? 0 : 2,
    maximumFractionDigits: abs >= 100 ? 0 : 2,
  }).format(value);
}

function plain(value: number): string {
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }).format(value);
}

function ratio(a: number, b: number): string {
  return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(a / b)}×`;
}

export function percent(value: number): string {
  return `${value >= 0 ? '+' : ''}${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(value)}%`;
}

// ---------------------------------------------------------------------------------------------
// The condition in words

const FN_WORDS: Record<string, string> = {
  rollingSum: 'total',
  rollingAvg: 'average',
  rollingMedian: 'median',
  rollingStd: 'standard deviation',
};
const OP_WORDS: Record<string, string> = {
  '>': 'is above',
  '>=': 'is at least',
  '<': 'is below',
  '<=': 'is at most',
  '==': 'equals',
  '!=': 'differs from',
};

function span(n: number, unit: string): string {
  const u = unit.toUpperCase() === 'DAY' ? 'day' : unit.toUpperCase() === 'WEEK' ? 'week' : 'month';
  return `${n}-${u}`;
}

function labelOf(firing: AlertFiring, name: string): string {
  const q = firing.alert.queries.find((x) => x.name === name);
  return q?.alias || name;
}

/** Words for an expression node; numbers compared with a cost are shown as money. */
export function inWords(node: ExprNode, firing: AlertFiring, asMoney = false): string {
  const w = (n: ExprNode, m = asMoney) => inWords(n, firing, m);
  switch (node.type) {
    case 'number':
      return asMoney ? money(node.value, firing.alert.currency) : plain(node.value);
    case 'ref':
      return labelOf(firing, node.name);
    case 'unary':
      return node.op === 'not' ? `not (${w(node.arg)})` : `minus ${w(node.arg)}`;
    case 'call':
      if (node.fn === 'abs') return `the absolute value of ${w(node.args[0]!)}`;
      return `the ${node.fn === 'min' ? 'smallest' : 'largest'} of ${node.args.map((a) => w(a)).join(', ')}`;
    case 'forecast': {
      const total = `the ${node.unit === 'WEEK' ? 'week' : 'month'}'s forecast total of ${w(node.arg)}`;
      if (!node.bound) return total;
      return `the ${node.bound === 'lower80' ? 'lower' : 'upper'} bound of the 80 % interval of ${total}`;
    }
    case 'window':
      if (node.fn === 'timeShift')
        return `${w(node.arg)} ${node.n} ${node.unit.toLowerCase()}${node.n === 1 ? '' : 's'} earlier`;
      return `the ${span(node.n, node.unit)} ${FN_WORDS[node.fn]} of ${w(node.arg)}`;
    case 'binary': {
      if (node.op === 'and' || node.op === 'or') return `${w(node.left)}, ${node.op} ${w(node.right)}`;
      if (OP_WORDS[node.op]) return `${w(node.left, true)} ${OP_WORDS[node.op]} ${w(node.right, true)}`;
      const sym = node.op === '*' ? '×' : node.op === '/' ? '÷' : node.op;
      // A number multiplying or dividing a cost is a plain factor, on either side:
      // "the 28-day median of EC2 × 1.5", "3 × the 14-day standard deviation of EC2".
      const factor = node.op === '*' || node.op === '/';
      const plainLeft = factor && node.left.type === 'number' && node.right.type !== 'number';
      const plainRight = factor && node.right.type === 'number';
      return `${plainLeft ? w(node.left, false) : w(node.left)} ${sym} ${plainRight ? w(node.right, false) : w(node.right)}`;
    }
  }
}

function refsOf(node: ExprNode, out: string[] = []): string[] {
  if (node.type === 'ref' && !out.includes(node.name)) out.push(node.name);
  if (node.type === 'window' || node.type === 'unary' || node.type === 'forecast') refsOf(node.arg, out);
  if (node.type === 'binary') {
    refsOf(node.left, out);
    refsOf(node.right, out);
  }
  if (node.type === 'call') for (const a of node.args) refsOf(a, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// What happened

export interface Explanation {
  /** The condition or rule in words. */
  rule: string;
  /** Sentences with the values that made it true. */
  facts: string[];
  /** Label/value pairs for tables, fact sets and Slack fields. */
  figures: [string, string][];
}

function periodWords(firing: AlertFiring): string {
  const { start, end } = firing.period;
  if (start === end) return `on ${start}`;
  return `from ${start} to ${end}`;
}

function explainCondition(firing: AlertFiring): Explanation {
  const source = firing.alert.condition ?? '';
  let ast: ExprNode | undefined;
  try {
    ast = parseExpression(source, { maxLength: 10_000 }).ast;
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
  }
  if (!ast) return { rule: source, facts: [], figures: [] };
  const cur = firing.alert.currency;
  const facts: string[] = [];
  const figures: [string, string][] = [];
  const windows = windowNodes(ast);
  for (const name of refsOf(ast)) {
    const value = firing.values[name];
    const parts = [`${labelOf(firing, name)} ${periodWords(firing)} was ${money(value, cur)}`];
    figures.push([labelOf(firing, name), money(value, cur)]);
    for (const win of windows) {
      if (win.arg.type !== 'ref' || win.arg.name !== name) continue;
      const base = firing.baselines[baselineKey(win.fn, name, win.n, win.unit)];
      if (base === undefined) continue;
      const what =
        win.fn === 'timeShift'
          ? `its value ${win.n} ${win.unit.toLowerCase()}${win.n === 1 ? '' : 's'} earlier`
          : `its ${span(win.n, win.unit)} ${FN_WORDS[win.fn]}`;
      figures.push([`${labelOf(firing, name)}, ${what.replace(/^its /, '')}`, money(base, cur)]);
      if (win.fn === 'rollingStd') {
        // With a median or average of the same window: how many deviations the value is from it.
        const centre = (['rollingMedian', 'rollingAvg'] as const)
          .map((fn) => [fn, firing.baselines[baselineKey(fn, name, win.n, win.unit)]] as const)
          .find(([, v]) => v !== null && v !== undefined);
        if (centre && base !== null && base > 0 && value !== null && value !== undefined) {
          const devs = Math.abs(value - centre[1]!) / base;
          const n = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
          parts.push(
            `${n.format(devs)} standard deviations ${value >= centre[1]! ? 'above' : 'below'} its ${span(win.n, win.unit)} ${FN_WORDS[centre[0]]} (${span(win.n, win.unit)} standard deviation: ${money(base, cur)})`,
          );
        } else parts.push(`${what} is ${money(base, cur)}`);
      } else if (base !== null && base > 0 && value !== null && value !== undefined)
        parts.push(`${ratio(value, base)} ${what} of ${money(base, cur)}`);
      else parts.push(`${what} was ${money(base, cur)}`);
    }
    facts.push(parts.join(', '));
  }
  return { rule: `${inWords(ast, firing)}`, facts, figures };
}

function explainThresholds(firing: AlertFiring): Explanation {
  const { alert } = firing;
  const cur = alert.currency;
  const label = labelOf(firing, alert.queryName);
  const value = firing.values[alert.queryName] ?? null;
  const unit =
    alert.evaluationPeriod === 'DAILY' ? 'day' : alert.evaluationPeriod === 'WEEKLY' ? 'week' : 'month';
  const above = alert.thresholdType === 'ABOVE';
  const change = firing.thresholds[0]?.metricMode === 'PERIOD_CHANGE';
  const facts: string[] = [];
  const figures: [string, string][] = [
    [`${label} (${periodWords(firing).replace(/^on |^from /, '')})`, money(value, cur)],
  ];
  if (!change) {
    const crossed = [...firing.thresholds]
      .filter((t) => value !== null && (above ? value > t.value : value < t.value))
      .sort((a, b) => (above ? b.value - a.value : a.value - b.value))[0];
    const rule = firing.thresholds.map((t) => `${money(t.value, cur)} (${t.severityLevel})`).join(', ');
    facts.push(
      `${label} ${periodWords(firing)} was ${money(value, cur)}${crossed ? `, ${above ? 'above' : 'below'} the ${crossed.severityLevel} threshold of ${money(crossed.value, cur)}` : ''}`,
    );
    for (const t of firing.thresholds) figures.push([`Threshold (${t.severityLevel})`, money(t.value, cur)]);
    return { rule: `${label} per ${unit} ${above ? 'is above' : 'is below'} ${rule}`, facts, figures };
  }
  const prev = firing.previousValue ?? null;
  const delta = value !== null && prev !== null ? value - prev : null;
  const pct = delta !== null && prev ? (delta / prev) * 100 : null;
  const pctBasis = firing.thresholds[0]?.changeBasis === 'PERCENTAGE';
  const rule = firing.thresholds
    .map((t) => `${pctBasis ? percent(t.value) : money(t.value, cur)} (${t.severityLevel})`)
    .join(', ');
  facts.push(
    `${label} ${periodWords(firing)} was ${money(value, cur)}, ${delta !== null && delta >= 0 ? 'up' : 'down'} ${pct !== null ? percent(pct).replace(/^[+-]/, '') : 'n/a'} (${delta !== null ? `${delta >= 0 ? '+' : '−'}${money(Math.abs(delta), cur)}` : 'n/a'}) on the previous ${unit}'s ${money(prev, cur)}`,
  );
  figures.push([`Previous ${unit}`, money(prev, cur)], ['Change', `${pct !== null ? percent(pct) : 'n/a'}`]);
  return {
    rule: `the change of ${label} against the previous ${unit} ${above ? 'is above' : 'is below'} ${rule}`,
    facts,
    figures,
  };
}

export function explain(firing: AlertFiring): Explanation {
  return firing.alert.condition ? explainCondition(firing) : explainThresholds(firing);
}

/**
 * The link to the explorer showing the alert's queries over the evaluated period, by day: the
 * alert's saved view (`urlState`: grouping, filters, chart) with its queries and period set.
 */
export function alertLink(firing: AlertFiring): string {
  const saved = parseExplorerQueryString(firing.alert.urlState);
  const { datePreset: _preset, ...view } = saved;
  return explorerLink(firing.appUrl, {
    ...view,
    title: firing.alert.name,
    queries: firing.alert.queries as unknown as Record<string, unknown>[],
    startDate: firing.period.start,
    endDate: firing.period.end,
    aggBy: 'Day',
    ...(firing.alert.scopeId ? { scopeId: firing.alert.scopeId } : {}),
  });
}

/** The link to the alert's page (its condition and history); a test send's: the alerts list. */
export function alertPageUrl(firing: AlertFiring): string {
  return alertPageLink(firing.appUrl, firing.test ? null : firing.alert.id);
}
