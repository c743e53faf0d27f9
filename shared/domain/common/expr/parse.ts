import { ExpressionError } from './errors';
import { type Token, tokenize } from './lexer';

/**
 * The parser of the expression language used by formula and condition queries (and alert
 * conditions): a recursive-descent (precedence-climbing) parser over the lexer's tokens, building
 * the AST below. It never evaluates anything and only ever throws `ExpressionError`. The grammar,
 * loosest binding first:
 *
 *   expr       := or
 *   or         := and ('or' and)*
 *   and        := not ('and' not)*
 *   not        := 'not' not | comparison
 *   comparison := additive (('>' | '>=' | '<' | '<=' | '==' | '!=') additive)?   (not chained)
 *   additive   := term (('+' | '-') term)*
 *   term       := unary (('*' | '/') unary)*
 *   unary      := '-' unary | primary
 *   primary    := number | name | call | '(' expr ')'
 *   call       := ('abs') '(' expr ')' | ('min' | 'max') '(' expr (',' expr)+ ')'
 *               | window '(' expr ',' integer ',' unit ')' | 'forecast' '(' expr ',' period ')'
 *   window     := 'rollingSum' | 'rollingAvg' | 'rollingMedian' | 'rollingStd' | 'timeShift'
 *   unit       := DAY | WEEK | MONTH   (any letter case)
 *   period     := WEEK | MONTH   (any letter case)
 *
 * Function names and `and`/`or`/`not` are case-sensitive, spelt as above; units are not.
 * See docs/expressions.md for the semantics.
 */

export const WINDOW_FUNCTIONS = [
  'rollingSum',
  'rollingAvg',
  'rollingMedian',
  'rollingStd',
  'timeShift',
] as const;
export const SCALAR_FUNCTIONS = ['abs', 'min', 'max'] as const;
/**
 * `forecast(x, MONTH)`: the end-of-period forecast; `forecastLower` / `forecastUpper`: the bounds
 * of its 80 % prediction interval (docs/expressions.md).
 */
export const FORECAST_FUNCTIONS = {
  forecast: undefined,
  forecastLower: 'lower80',
  forecastUpper: 'upper80',
} as const;
export type ForecastBound = 'lower80' | 'upper80';
/**
 * Days of history `forecast(…)` reads before a date: a four-week fit window, 84 daily backtest
 * origins and a month's horizon, rounded up to 26 weeks (docs/forecasting.md).
 */
export const FORECAST_LOOKBACK_DAYS = 182;
export const UNITS = ['DAY', 'WEEK', 'MONTH'] as const;
export const COMPARISON_OPS = ['>', '>=', '<', '<=', '==', '!='] as const;

export type WindowFunction = (typeof WINDOW_FUNCTIONS)[number];
export type ScalarFunction = (typeof SCALAR_FUNCTIONS)[number];
export type Unit = (typeof UNITS)[number];
export type ComparisonOp = (typeof COMPARISON_OPS)[number];
export type BinaryOp = '+' | '-' | '*' | '/' | ComparisonOp | 'and' | 'or';

/** Every node carries `pos`, the 0-based offset of its token (an operator's, a call's name). */
export type ExprNode =
  | { type: 'number'; value: number; pos: number }
  | { type: 'ref'; name: string; pos: number }
  | { type: 'unary'; op: '-' | 'not'; arg: ExprNode; pos: number }
  | { type: 'binary'; op: BinaryOp; left: ExprNode; right: ExprNode; pos: number }
  | { type: 'call'; fn: ScalarFunction; args: ExprNode[]; pos: number }
  | { type: 'window'; fn: WindowFunction; arg: ExprNode; n: number; unit: Unit; pos: number }
  | { type: 'forecast'; arg: ExprNode; unit: 'WEEK' | 'MONTH'; bound?: ForecastBound; pos: number };

export interface Lookback {
  days: number;
  months: number;
}

export interface Expression {
  source: string;
  ast: ExprNode;
  /** Query names referenced, each once, in order of first appearance. */
  refs: string[];
  /**
   * History needed before the first output date by `timeShift` and `rolling*` (nested ones add
   * up; operands of one operator take the larger). An upper bound: a rolling window of n days
   * needs n days minus one bucket.
   */
  lookback: Lookback;
  /** Whether it calls `forecast(…)`: its evaluation needs the forecasting model (./forecaster.ts). */
  forecasts: boolean;
}

export interface ParseOptions {
  /** The query names an expression may reference; omitted: any name is accepted. */
  names?: readonly string[];
  /** Longest accepted source, in characters (default 2,000; at most 10,000). */
  maxLength?: number;
  /** Deepest nesting of parentheses, calls and unary operators (default 32; at most 256). */
  maxDepth?: number;
}

export const EXPRESSION_LIMITS = {
  maxLength: 2000,
  maxDepth: 32,
  /** Hard caps on the options, so that no option lets recursion reach the stack's limit. */
  maxLengthCap: 10_000,
  maxDepthCap: 256,
  /** `n` of a window function: a whole number of units in 1…1000. */
  windowMax: 1000,
} as const;

const PREC: Record<string, number> = {
  or: 1,
  and: 2,
  // 3: prefix `not`
  '>': 4,
  '>=': 4,
  '<': 4,
  '<=': 4,
  '==': 4,
  '!=': 4,
  '+': 5,
  '-': 5,
  '*': 6,
  '/': 6,
  // 7: prefix `-`
};
const NOT_PREC = 3;
const COMPARISON_PREC = 4;
const NEG_PREC = 7;

const KEYWORDS = new Set(['and', 'or', 'not']);
const FUNCTIONS: readonly string[] = [
  ...WINDOW_FUNCTIONS,
  ...SCALAR_FUNCTIONS,
  ...Object.keys(FORECAST_FUNCTIONS),
];

function describe(t: Token): string {
  if (t.kind === 'eof') return 'end of expression';
  return `'${t.text}'`;
}

function clampOption(value: number | undefined, fallback: number, cap: number, what: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1)
    throw new ExpressionError(`${what} must be a positive integer`, 0);
  return Math.min(value, cap);
}

class Parser {
  private i = 0;
  private readonly refs: string[] = [];
  private readonly seen = new Set<string>();
  private readonly names: ReadonlySet<string> | undefined;
  private readonly namesList: readonly string[];

  constructor(
    private readonly tokens: Token[],
    names: readonly string[] | undefined,
    private readonly maxDepth: number,
  ) {
    this.names = names ? new Set(names) : undefined;
    this.namesList = names ?? [];
  }

  referenced(): string[] {
    return this.refs;
  }

  private peek(): Token {
    return this.tokens[this.i] as Token;
  }

  private next(): Token {
    const t = this.tokens[this.i] as Token;
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  private expect(kind: Token['kind'], what: string): Token {
    const t = this.peek();
    if (t.kind !== kind) throw new ExpressionError(`expected ${what} but found ${describe(t)}`, t.pos);
    return this.next();
  }

  parseAll(): ExprNode {
    const node = this.expr(0, 0);
    const t = this.peek();
    if (t.kind !== 'eof') {
      const lower = t.text.toLowerCase();
      const hint =
        t.kind === 'rparen'
          ? ' (unbalanced parenthesis)'
          : t.kind === 'ident' && KEYWORDS.has(lower)
            ? ` (operators are lowercase: ${lower})`
            : ' (an operator is missing)';
      throw new ExpressionError(`unexpected ${describe(t)}${hint}`, t.pos);
    }
    return node;
  }

  /** Binary operators binding at least as tightly as `minPrec`. */
  private expr(minPrec: number, depth: number): ExprNode {
    let left = this.prefix(depth);
    for (;;) {
      const t = this.peek();
      const op =
        t.kind === 'op' || (t.kind === 'ident' && (t.text === 'and' || t.text === 'or')) ? t.text : '';
      const prec = PREC[op];
      if (prec === undefined || prec < minPrec) return left;
      this.next();
      const right = this.expr(prec + 1, depth);
      left = { type: 'binary', op: op as BinaryOp, left, right, pos: t.pos };
      if (prec === COMPARISON_PREC) {
        const after = this.peek();
        if (after.kind === 'op' && PREC[after.text] === COMPARISON_PREC) {
          throw new ExpressionError(
            `comparisons cannot be chained: combine them with and (found ${describe(after)})`,
            after.pos,
          );
        }
      }
    }
  }

  private deeper(depth: number, t: Token): number {
    const next = depth + 1;
    if (next > this.maxDepth) {
      throw new ExpressionError(`expression nests deeper than ${this.maxDepth} levels`, t.pos);
    }
    return next;
  }

  private prefix(depth: number): ExprNode {
    const t = this.peek();
    if (t.kind === 'op' && t.text === '-') {
      this.next();
      const arg = this.expr(NEG_PREC, this.deeper(depth, t));
      return { type: 'unary', op: '-', arg, pos: t.pos };
    }
    if (t.kind === 'ident' && t.text === 'not') {
      this.next();
      const arg = this.expr(NOT_PREC, this.deeper(depth, t));
      return { type: 'unary', op: 'not', arg, pos: t.pos };
    }
    return this.primary(depth);
  }

  private primary(depth: number): ExprNode {
    const t = this.next();
    switch (t.kind) {
      case 'num':
        return { type: 'number', value: t.value as number, pos: t.pos };
      case 'lparen': {
        const inner = this.expr(0, this.deeper(depth, t));
        this.expect('rparen', "')'");
        return inner;
      }
      case 'ident':
        if (this.peek().kind === 'lparen') return this.call(t, this.deeper(depth, t));
        return this.ref(t);
      case 'eof':
        throw new ExpressionError('unexpected end of expression: an operand is missing', t.pos);
      default:
        throw new ExpressionError(`expected a number, a query name or '(' but found ${describe(t)}`, t.pos);
    }
  }

  private ref(t: Token): ExprNode {
    const name = t.text;
    if (KEYWORDS.has(name)) {
      throw new ExpressionError(`unexpected '${name}': an operand is missing before it`, t.pos);
    }
    if (this.names && !this.names.has(name)) {
      throw new ExpressionError(`unknown query '${name}'${this.hintFor(name)}`, t.pos);
    }
    if (!this.seen.has(name)) {
      this.seen.add(name);
      this.refs.push(name);
    }
    return { type: 'ref', name, pos: t.pos };
  }

  private hintFor(name: string): string {
    const lower = name.toLowerCase();
    if (KEYWORDS.has(lower)) return ` (operators are lowercase: ${lower})`;
    const fn = FUNCTIONS.find((f) => f === name);
    if (fn) return ` (${fn} is a function: call it with parentheses)`;
    const query = this.namesList.find((q) => q.toLowerCase() === lower);
    if (query) return ` (did you mean '${query}'? names are case-sensitive)`;
    return '';
  }

  private call(nameToken: Token, depth: number): ExprNode {
    const fn = nameToken.text;
    if (!FUNCTIONS.includes(fn)) {
      const near = FUNCTIONS.find((f) => f.toLowerCase() === fn.toLowerCase());
      const hint = near
        ? ` (did you mean ${near}? function names are case-sensitive)`
        : ` (functions: ${FUNCTIONS.join(', ')})`;
      throw new ExpressionError(`unknown function '${fn}'${hint}`, nameToken.pos);
    }
    this.expect('lparen', "'('");
    if ((WINDOW_FUNCTIONS as readonly string[]).includes(fn)) {
      const arg = this.expr(0, depth);
      this.expect('comma', `',' and the number of units of ${fn}(x, n, unit)`);
      const n = this.windowSize(fn);
      this.expect('comma', `',' and the unit (DAY, WEEK or MONTH) of ${fn}(x, n, unit)`);
      const unit = this.unit();
      this.closeCall(fn);
      return { type: 'window', fn: fn as WindowFunction, arg, n, unit, pos: nameToken.pos };
    }
    if (Object.hasOwn(FORECAST_FUNCTIONS, fn)) {
      const arg = this.expr(0, depth);
      this.expect('comma', `',' and the period (WEEK or MONTH) of ${fn}(x, period)`);
      const t = this.peek();
      const unit = this.unit();
      if (unit === 'DAY') throw new ExpressionError(`the period of ${fn}(x, period) is WEEK or MONTH`, t.pos);
      this.closeCall(fn);
      const bound = FORECAST_FUNCTIONS[fn as keyof typeof FORECAST_FUNCTIONS];
      return { type: 'forecast', arg, unit, ...(bound ? { bound } : {}), pos: nameToken.pos };
    }
    const args = [this.expr(0, depth)];
    while (this.peek().kind === 'comma') {
      this.next();
      args.push(this.expr(0, depth));
    }
    if (fn === 'abs' && args.length !== 1) {
      throw new ExpressionError(`abs takes one argument (got ${args.length})`, nameToken.pos);
    }
    if ((fn === 'min' || fn === 'max') && args.length < 2) {
      throw new ExpressionError(`${fn} takes at least two arguments`, nameToken.pos);
    }
    this.closeCall(fn);
    return { type: 'call', fn: fn as ScalarFunction, args, pos: nameToken.pos };
  }

  private closeCall(fn: string): void {
    const t = this.peek();
    if (t.kind === 'comma') throw new ExpressionError(`too many arguments to ${fn}`, t.pos);
    this.expect('rparen', `')' closing ${fn}(`);
  }

  private windowSize(fn: string): number {
    const t = this.peek();
    const max = EXPRESSION_LIMITS.windowMax;
    if (
      t.kind !== 'num' ||
      !Number.isInteger(t.value) ||
      (t.value as number) < 1 ||
      (t.value as number) > max
    ) {
      throw new ExpressionError(
        `the second argument of ${fn} must be a whole number from 1 to ${max} (found ${describe(t)})`,
        t.pos,
      );
    }
    this.next();
    return t.value as number;
  }

  private unit(): Unit {
    const t = this.peek();
    const unit = t.kind === 'ident' ? t.text.toUpperCase() : '';
    if (!(UNITS as readonly string[]).includes(unit)) {
      throw new ExpressionError(`expected a unit (DAY, WEEK or MONTH) but found ${describe(t)}`, t.pos);
    }
    this.next();
    return unit as Unit;
  }
}

function lookbackOf(node: ExprNode): Lookback {
  switch (node.type) {
    case 'number':
    case 'ref':
      return { days: 0, months: 0 };
    case 'unary':
      return lookbackOf(node.arg);
    case 'binary':
      return widest([lookbackOf(node.left), lookbackOf(node.right)]);
    case 'call':
      return widest(node.args.map(lookbackOf));
    case 'forecast': {
      const inner = lookbackOf(node.arg);
      return { days: inner.days + FORECAST_LOOKBACK_DAYS, months: inner.months };
    }
    case 'window': {
      const inner = lookbackOf(node.arg);
      if (node.unit === 'MONTH') return { days: inner.days, months: inner.months + node.n };
      return { days: inner.days + node.n * (node.unit === 'WEEK' ? 7 : 1), months: inner.months };
    }
  }
}

function callsForecast(node: ExprNode): boolean {
  switch (node.type) {
    case 'number':
    case 'ref':
      return false;
    case 'forecast':
      return true;
    case 'unary':
    case 'window':
      return callsForecast(node.arg);
    case 'binary':
      return callsForecast(node.left) || callsForecast(node.right);
    case 'call':
      return node.args.some(callsForecast);
  }
}

function widest(all: Lookback[]): Lookback {
  return {
    days: Math.max(0, ...all.map((l) => l.days)),
    months: Math.max(0, ...all.map((l) => l.months)),
  };
}

/**
 * Parses an expression. With `names`, a reference to any other name is an error
 * (`unknown query 'foo' at 14`). Throws `ExpressionError` and nothing else.
 */
export function parseExpression(source: string, opts: ParseOptions = {}): Expression {
  if (typeof source !== 'string') throw new ExpressionError('the expression must be a string', 0);
  const maxLength = clampOption(
    opts.maxLength,
    EXPRESSION_LIMITS.maxLength,
    EXPRESSION_LIMITS.maxLengthCap,
    'maxLength',
  );
  const maxDepth = clampOption(
    opts.maxDepth,
    EXPRESSION_LIMITS.maxDepth,
    EXPRESSION_LIMITS.maxDepthCap,
    'maxDepth',
  );
  if (source.length > maxLength) {
    throw new ExpressionError(`expression is longer than ${maxLength} characters`, maxLength);
  }
  const tokens = tokenize(source);
  if (tokens.length === 1) throw new ExpressionError('the expression is empty', 0);
  const parser = new Parser(tokens, opts.names, maxDepth);
  const ast = parser.parseAll();
  return { source, ast, refs: parser.referenced(), lookback: lookbackOf(ast), forecasts: callsForecast(ast) };
}
