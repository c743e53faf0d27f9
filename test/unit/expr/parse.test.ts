import { EXPRESSION_LIMITS, ExpressionError, parseExpression } from '../../../shared/domain/common/expr';

const NAMES = ['a', 'b', 'c', 'cost', 'requests', 'abs'];

function errorOf(source: string, opts: Parameters<typeof parseExpression>[1] = { names: NAMES }) {
  try {
    parseExpression(source, opts);
  } catch (error) {
    expect(error).toBeInstanceOf(ExpressionError);
    const e = error as ExpressionError;
    return { message: e.message, position: e.position, name: e.name };
  }
  throw new Error(`expected ${JSON.stringify(source)} to be refused`);
}

describe('parseExpression: accepted expressions', () => {
  it.each([
    '(a - timeShift(a, 1, DAY)) / abs(timeShift(a, 1, DAY)) > 0.2',
    'timeShift(rollingSum(a, 7, DAY), 7, DAY)',
    'a > rollingMedian(a, 28, DAY) * 1.5 and a > 100',
    'cost / requests * 1000',
    'not (a > 1) or b <= 2 and c != 3',
    'min(a, b, c) + max(a, 1) - -a',
    'rollingAvg(a, 4, WEEK) + rollingStd(b, 3, MONTH)',
    'timeShift(a, 1, day) + timeShift(a, 1, Week) + timeShift(a, 1, month)',
    '.5 * a + 1.25e2 - 2.5E-1',
    '  a\n\t+ b  ',
  ])('%s', (source) => {
    const e = parseExpression(source, { names: NAMES });
    expect(e.source).toBe(source);
    expect(e.refs.length).toBeGreaterThan(0);
  });

  it('lists each referenced query once, in order of first appearance', () => {
    expect(parseExpression('b + a * b - timeShift(c, 1, DAY) / a').refs).toEqual(['b', 'a', 'c']);
    expect(parseExpression('1 + 2').refs).toEqual([]);
  });

  it('accepts any name without `names`, and only the listed ones with it', () => {
    expect(parseExpression('whatever + x_1').refs).toEqual(['whatever', 'x_1']);
    expect(() => parseExpression('whatever', { names: ['a'] })).toThrow(ExpressionError);
  });

  it('binds * and / tighter than + and -, comparisons looser, and before or, not before comparison', () => {
    expect(parseExpression('1 + 2 * 3').ast).toMatchObject({
      type: 'binary',
      op: '+',
      left: { type: 'number', value: 1 },
      right: { type: 'binary', op: '*' },
    });
    expect(parseExpression('a - b - c').ast).toMatchObject({
      op: '-',
      left: { op: '-', left: { name: 'a' }, right: { name: 'b' } },
      right: { name: 'c' },
    });
    expect(parseExpression('a > 1 or b > 1 and c > 1').ast).toMatchObject({
      op: 'or',
      left: { op: '>' },
      right: { op: 'and', left: { op: '>' }, right: { op: '>' } },
    });
    expect(parseExpression('not a > 1').ast).toMatchObject({ type: 'unary', op: 'not', arg: { op: '>' } });
    expect(parseExpression('-a * b').ast).toMatchObject({ op: '*', left: { type: 'unary', op: '-' } });
  });

  it('reads units in any case and keeps positions of tokens', () => {
    expect(parseExpression('timeShift(a, 2, week)').ast).toEqual({
      type: 'window',
      fn: 'timeShift',
      arg: { type: 'ref', name: 'a', pos: 10 },
      n: 2,
      unit: 'WEEK',
      pos: 0,
    });
  });

  it.each([
    ['a', { days: 0, months: 0 }],
    ['timeShift(a, 7, DAY)', { days: 7, months: 0 }],
    ['timeShift(rollingSum(a, 7, DAY), 7, DAY)', { days: 14, months: 0 }],
    ['rollingSum(a, 2, WEEK) + timeShift(a, 3, MONTH)', { days: 14, months: 3 }],
    ['timeShift(timeShift(a, 1, MONTH), 2, MONTH)', { days: 0, months: 3 }],
    [
      'max(timeShift(a, 5, DAY), rollingAvg(a, 3, DAY)) - timeShift(rollingStd(a, 1, MONTH), 2, DAY)',
      { days: 5, months: 1 },
    ],
  ])('lookback of %s', (source, lookback) => {
    expect(parseExpression(source).lookback).toEqual(lookback);
  });
});

describe('parseExpression: errors carry the 0-based offset of the offending token', () => {
  it.each([
    ['(a + b) / 2 > foo', "unknown query 'foo' at 14", 14],
    ['a + foo', "unknown query 'foo' at 4", 4],
    ['', 'the expression is empty at 0', 0],
    ['   ', 'the expression is empty at 0', 0],
    ['a +', 'unexpected end of expression: an operand is missing at 3', 3],
    ['(a + b', "expected ')' but found end of expression at 6", 6],
    ['a + b)', "unexpected ')' (unbalanced parenthesis) at 5", 5],
    ['a b', "unexpected 'b' (an operator is missing) at 2", 2],
    ['a AND b', "unexpected 'AND' (operators are lowercase: and) at 2", 2],
    ['a = b', "unexpected '=' (compare with ==) at 2", 2],
    ['a && b', "unexpected '&' (use and) at 2", 2],
    ['!a', "unexpected '!' (use != or not) at 0", 0],
    ['a # b', 'unexpected character "#" at 2', 2],
    ['a + 😀', 'unexpected character "😀" at 4', 4],
    [
      'rollingsum(a, 7, DAY)',
      "unknown function 'rollingsum' (did you mean rollingSum? function names are case-sensitive) at 0",
      0,
    ],
    ['a + foo(a)', 'unknown function', 4],
    [
      'timeShift(a, 7)',
      "expected ',' and the unit (DAY, WEEK or MONTH) of timeShift(x, n, unit) but found ')' at 14",
      14,
    ],
    ['timeShift(a)', "expected ',' and the number of units", 11],
    ['timeShift(a, 1.5, DAY)', 'the second argument of timeShift must be a whole number from 1 to 1000', 13],
    ['timeShift(a, -1, DAY)', 'the second argument of timeShift must be a whole number', 13],
    ['timeShift(a, b, DAY)', 'the second argument of timeShift must be a whole number', 13],
    ['rollingSum(a, 1001, DAY)', 'whole number from 1 to 1000', 14],
    ['rollingSum(a, 0, DAY)', 'whole number from 1 to 1000', 14],
    ['timeShift(a, 1, YEAR)', "expected a unit (DAY, WEEK or MONTH) but found 'YEAR' at 16", 16],
    ['timeShift(a, 1, DAY, 2)', 'too many arguments to timeShift at 19', 19],
    ['abs(a, b)', 'abs takes one argument (got 2) at 0', 0],
    ['min(a)', 'min takes at least two arguments at 0', 0],
    ['abs()', "expected a number, a query name or '(' but found ')' at 4", 4],
    ['a < b < c', 'comparisons cannot be chained', 6],
    ['a and', 'unexpected end of expression', 5],
    ['and a', "unexpected 'and': an operand is missing before it at 0", 0],
    ['Cost + 1', "unknown query 'Cost' (did you mean 'cost'? names are case-sensitive) at 0", 0],
    [
      'a + rollingSum',
      "unknown query 'rollingSum' (rollingSum is a function: call it with parentheses) at 4",
      4,
    ],
    ['a OR b', "unexpected 'OR' (operators are lowercase: or)", 2],
    ['2abc', "malformed number '2a' at 0", 0],
    ['1e + 2', 'malformed number exponent at 0', 0],
    ['1e999', "number '1e999' is too large at 0", 0],
    ['a * * b', "expected a number, a query name or '(' but found '*' at 4", 4],
  ])('%s', (source, message, position) => {
    const e = errorOf(source);
    expect(e.name).toBe('ExpressionError');
    expect(e.message).toContain(message);
    expect(e.position).toBe(position);
    expect(e.message.endsWith(` at ${position}`)).toBe(true);
  });

  it('a query named like a function is a reference without parentheses and a call with them', () => {
    expect(parseExpression('abs + abs(a)', { names: NAMES }).refs).toEqual(['abs', 'a']);
  });
});

describe('parseExpression: limits', () => {
  it('refuses a source longer than maxLength (default 2,000) before lexing', () => {
    const ok = `a${' + a'.repeat(499)}`.padEnd(2000, ' ');
    expect(ok.length).toBe(2000);
    expect(parseExpression(ok).refs).toEqual(['a']);
    const long = `${ok} `;
    expect(errorOf(long, {})).toMatchObject({
      position: 2000,
      message: 'expression is longer than 2000 characters at 2000',
    });
    expect(errorOf('a + b + c', { maxLength: 5 })).toMatchObject({ position: 5 });
  });

  it('refuses nesting deeper than maxDepth (default 32) at the token that goes too deep', () => {
    const nest = (k: number) => `${'('.repeat(k)}a${')'.repeat(k)}`;
    expect(parseExpression(nest(32)).refs).toEqual(['a']);
    expect(errorOf(nest(33), {})).toMatchObject({
      position: 32,
      message: 'expression nests deeper than 32 levels at 32',
    });
    expect(errorOf(`${'-'.repeat(40)}a`, {})).toMatchObject({ position: 32 });
    expect(errorOf(`${'not '.repeat(40)}a`, {})).toMatchObject({ position: 128 });
    expect(errorOf(`${'abs('.repeat(33)}a${')'.repeat(33)}`, {})).toMatchObject({ position: 128 });
    expect(errorOf(nest(5), { maxDepth: 4 })).toMatchObject({ position: 4 });
  });

  it('caps the options so that no setting lets recursion reach the stack limit', () => {
    const deep = `${'('.repeat(4000)}a${')'.repeat(4000)}`;
    expect(errorOf(deep, { maxDepth: 1e9, maxLength: 1e9 })).toMatchObject({
      position: EXPRESSION_LIMITS.maxDepthCap,
    });
    expect(errorOf('a'.repeat(10_001), { maxLength: 1e9 })).toMatchObject({ position: 10_000 });
    expect(errorOf('a', { maxDepth: 0 })).toMatchObject({ position: 0 });
    expect(errorOf('a', { maxLength: 1.5 })).toMatchObject({ position: 0 });
  });

  it('parses a 10,000-character chain of additions (a left-deep tree) without recursion trouble', () => {
    const chain = `a${'+a'.repeat(4999)}`;
    expect(chain.length).toBe(9999);
    expect(parseExpression(chain, { maxLength: 10_000 }).refs).toEqual(['a']);
  });

  it('refuses a non-string source with its own error type', () => {
    expect(errorOf(42 as unknown as string, {})).toMatchObject({ position: 0 });
  });
});
