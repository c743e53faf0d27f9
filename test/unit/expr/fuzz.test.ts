import { seededRandom } from '../../../infra/local/demo-data/random';
import {
  type Expression,
  ExpressionError,
  evaluateExpression,
  type GroupedSeries,
  parseExpression,
} from '../../../shared/domain/common/expr';
import { days } from './support';

/**
 * Property tests with a seeded generator (mulberry32): whatever the input, the parser returns an
 * Expression or throws ExpressionError (never TypeError, RangeError or anything else) with a
 * position inside the source; what parses evaluates without any other error; generated valid
 * expressions always parse. Seeds are fixed so a failure is reproducible; the failing input is
 * printed in the assertion.
 */

const NAMES = ['a', 'b', 'cost'];
const DATES = days('2024-01-25', 40);

function series(rand: () => number, grouped: boolean): GroupedSeries {
  const values = () => DATES.map(() => (rand() < 0.1 ? null : Math.round((rand() - 0.3) * 1000) / 10));
  if (!grouped) return { groups: [{ key: {}, values: values() }] };
  return {
    groups: ['x', 'y', 'z'].filter(() => rand() < 0.8).map((svc) => ({ key: { svc }, values: values() })),
  };
}

/** Parses; on success also evaluates. Answers what happened, for one assertion per input. */
function attempt(source: string, rand: () => number): string {
  let expr: Expression;
  try {
    expr = parseExpression(source, { names: NAMES });
  } catch (error) {
    if (!(error instanceof ExpressionError)) return `parse threw ${String(error)}`;
    const p = error.position;
    if (!Number.isInteger(p) || p < 0 || p > source.length) return `position ${p} outside the source`;
    if (!error.message.endsWith(` at ${p}`)) return `message without position: ${error.message}`;
    return 'refused';
  }
  if (expr.refs.some((r) => !NAMES.includes(r))) return `unknown ref in ${expr.refs}`;
  // Every query grouped the same way (or not at all), so evaluation must succeed.
  const grouped = rand() < 0.5;
  const input = Object.fromEntries(NAMES.map((n) => [n, series(rand, grouped && n !== 'b')]));
  try {
    const out = evaluateExpression(expr, { dates: DATES, bucket: 'Day', series: input });
    for (const g of out.groups) {
      if (g.values.length !== DATES.length) return 'misaligned output';
      if (g.values.some((v) => v !== null && !Number.isFinite(v))) return 'non-finite output';
    }
  } catch (error) {
    return `evaluate threw ${String(error)}`;
  }
  return 'parsed';
}

const CHARS = [
  ...'abcABC_019.eE+-*/()<>=!,&|%^#$@~`"\'[]{};:? \t\n\r',
  'é',
  '€',
  '😀',
  '\u0000',
  '\u00a0',
  '\u2028',
  '\ud800',
];

const TOKENS = [
  'a',
  'b',
  'cost',
  'foo',
  'A',
  '0',
  '1',
  '7',
  '28',
  '1.5',
  '.5',
  '1e3',
  '1e',
  '1000',
  '1001',
  '+',
  '-',
  '*',
  '/',
  '>',
  '>=',
  '<',
  '<=',
  '==',
  '!=',
  '=',
  '!',
  'and',
  'or',
  'not',
  'AND',
  '(',
  ')',
  ',',
  'abs',
  'min',
  'max',
  'rollingSum',
  'rollingAvg',
  'rollingMedian',
  'rollingStd',
  'timeShift',
  'rollingsum',
  'DAY',
  'WEEK',
  'MONTH',
  'day',
  'YEAR',
];

/**
 * `count` sources made by `source` with the random numbers of `seed`, each through attempt() (with
 * the same numbers): how often each outcome came, and every source neither refused nor parsed.
 */
function fuzz(seed: number, count: number, source: (rand: () => number) => string) {
  const rand = seededRandom(seed);
  const outcomes = new Map<string, number>();
  const failures: { source: string; outcome: string }[] = [];
  for (let i = 0; i < count; i++) {
    const text = source(rand);
    const outcome = attempt(text, rand);
    if (outcome !== 'refused' && outcome !== 'parsed') failures.push({ source: text, outcome });
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  return { outcomes, failures };
}

describe('the parser only ever throws ExpressionError', () => {
  it('on 20,000 random strings', () => {
    const { outcomes, failures } = fuzz(1, 20_000, (rand) => {
      const length = Math.floor(rand() * 40);
      let source = '';
      for (let j = 0; j < length; j++) source += CHARS[Math.floor(rand() * CHARS.length)];
      return source;
    });
    expect(failures).toEqual([]);
    expect(outcomes.get('refused')).toBeGreaterThan(1000);
  });

  it('on 30,000 random token soups (some of which parse and are evaluated)', () => {
    const { outcomes, failures } = fuzz(2, 30_000, (rand) => {
      const length = 1 + Math.floor(rand() * 14);
      const parts: string[] = [];
      for (let j = 0; j < length; j++) {
        parts.push(TOKENS[Math.floor(rand() * TOKENS.length)] as string);
        parts.push(rand() < 0.6 ? ' ' : '');
      }
      return parts.join('');
    });
    expect(failures).toEqual([]);
    // The soup is close enough to the grammar that a fair share parses and is evaluated.
    expect(outcomes.get('parsed')).toBeGreaterThan(500);
  });

  it('on deep and long inputs around the limits', () => {
    const rand = seededRandom(3);
    for (let i = 0; i < 300; i++) {
      const k = Math.floor(rand() * 300);
      const open = ['(', '-', 'not ', 'abs(', 'timeShift(', 'min(a,'][Math.floor(rand() * 6)] as string;
      const source = `${open.repeat(k)}a${rand() < 0.5 ? ')'.repeat(k) : ''}`;
      const outcome = attempt(source, rand);
      expect({ source: source.slice(0, 40), k, outcome }).toEqual({
        source: source.slice(0, 40),
        k,
        outcome: expect.stringMatching(/^(refused|parsed)$/),
      });
    }
  });
});

describe('generated valid expressions', () => {
  /** A random expression from the grammar, `depth` levels at most. */
  function generate(rand: () => number, depth: number): string {
    const pick = <T>(list: readonly T[]) => list[Math.floor(rand() * list.length)] as T;
    if (depth === 0 || rand() < 0.25) {
      return rand() < 0.6 ? pick(NAMES) : pick(['0', '1', '2.5', '100', '.25', '3e2']);
    }
    const sub = () => generate(rand, depth - 1);
    const ws = () => pick(['', ' ', '  ', '\n']);
    switch (Math.floor(rand() * 7)) {
      case 0:
        return `${sub()}${ws()}${pick(['+', '-', '*', '/'])}${ws()}${sub()}`;
      case 1:
        return `((${sub()})${ws()}${pick(['>', '>=', '<', '<=', '==', '!='])}${ws()}(${sub()}))`;
      case 2:
        return `((${sub()}) ${pick(['and', 'or'])} (${sub()}))`;
      case 3:
        return `${pick(['-', 'not '])}(${sub()})`;
      case 4: {
        const fn = pick(['abs', 'min', 'max']);
        const count = fn === 'abs' ? 1 : 2 + Math.floor(rand() * 2);
        return `${fn}(${Array.from({ length: count }, sub).join(`,${ws()}`)})`;
      }
      case 5:
        return `${pick(['rollingSum', 'rollingAvg', 'rollingMedian', 'rollingStd', 'timeShift'])}(${sub()}, ${
          1 + Math.floor(rand() * 10)
        }, ${pick(['DAY', 'WEEK', 'MONTH', 'day'])})`;
      default:
        return `(${sub()})`;
    }
  }

  it('parse and evaluate (1,000 of them)', () => {
    const rand = seededRandom(4);
    const failures: { source: string; outcome: string }[] = [];
    for (let i = 0; i < 1000; i++) {
      const source = generate(rand, 5);
      if (source.length > 2000) continue;
      const outcome = attempt(source, rand);
      if (outcome !== 'parsed') {
        let why = '';
        try {
          parseExpression(source, { names: NAMES });
        } catch (error) {
          why = String(error);
        }
        failures.push({ source, outcome: `${outcome} ${why}` });
      }
    }
    expect(failures).toEqual([]);
  });
});
