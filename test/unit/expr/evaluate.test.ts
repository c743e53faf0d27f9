import {
  asCondition,
  ExpressionError,
  evaluateExpression,
  type GroupedSeries,
  parseExpression,
} from '../../../shared/domain/common/expr';
import { days, expectClose, run, type Values, values } from './support';

const D4 = days('2024-01-01', 4);
const D6 = days('2024-01-01', 6);

describe('arithmetic (a = [1, 2, 3, null], b = [4, 0, -1, 5])', () => {
  const series = { a: [1, 2, 3, null], b: [4, 0, -1, 5] };
  it.each<[string, Values]>([
    ['a + b', [5, 2, 2, null]],
    ['a - b', [-3, 2, 4, null]],
    ['a * b', [4, 0, -3, null]],
    ['a / b', [0.25, null, -3, null]],
    ['-a', [-1, -2, -3, null]],
    ['a - -1', [2, 3, 4, null]],
    ['-a * -b', [4, 0, -3, null]],
    ['a * 2 + 1', [3, 5, 7, null]],
    ['2 + a * 3', [5, 8, 11, null]],
    ['(2 + a) * 3', [9, 12, 15, null]],
    ['a - b - 1', [-4, 1, 3, null]],
    ['a / b / 2', [0.125, null, -1.5, null]],
    ['10 / 4', [2.5, 2.5, 2.5, 2.5]],
    ['1 / 0', [null, null, null, null]],
    ['0 / 0 + a', [null, null, null, null]],
    ['a * 1e308 * 10', [null, null, null, null]],
    ['7', [7, 7, 7, 7]],
  ])('%s', (source, expected) => {
    expectClose(values(source, series, D4), expected);
  });

  it('never answers -0', () => {
    expect(Object.is(values('-1 * 0 + a * 0', { a: [1, 2, 3, 4] }, D4)[0], 0)).toBe(true);
  });
});

describe('comparisons (a = [1, 2, 3, null], b = [2, 2, 2, 2]): 1/0, null with a null operand', () => {
  const series = { a: [1, 2, 3, null], b: [2, 2, 2, 2] };
  it.each<[string, Values]>([
    ['a > b', [0, 0, 1, null]],
    ['a >= b', [0, 1, 1, null]],
    ['a < b', [1, 0, 0, null]],
    ['a <= b', [1, 1, 0, null]],
    ['a == b', [0, 1, 0, null]],
    ['a != b', [1, 0, 1, null]],
    ['a + 1 > b * 1.5', [0, 0, 1, null]],
  ])('%s', (source, expected) => {
    expect(values(source, series, D4)).toEqual(expected);
  });
});

describe('and, or, not: three-valued logic, any non-zero number is true', () => {
  const D7 = days('2024-01-01', 7);
  const series = { p: [1, 1, 0, 0, null, null, null], q: [1, 0, 1, 0, 1, 0, null] };
  it.each<[string, Values]>([
    ['p and q', [1, 0, 0, 0, null, 0, null]],
    ['p or q', [1, 1, 1, 0, 1, null, null]],
    ['not p', [0, 0, 1, 1, null, null, null]],
    ['not not q', [1, 0, 1, 0, 1, 0, null]],
    ['p * 2.5 and -q', [1, 0, 0, 0, null, 0, null]],
    ['not p > 0', [0, 0, 1, 1, null, null, null]],
  ])('%s', (source, expected) => {
    expect(values(source, series, D7)).toEqual(expected);
  });

  it('asCondition answers 1 for true, 0 for false and for unknown', () => {
    const out = asCondition({ groups: [{ key: { s: 'x' }, values: [1, 0, null, 2.5, -1] }] });
    expect(out).toEqual({ groups: [{ key: { s: 'x' }, values: [1, 0, 0, 1, 1] }] });
  });
});

describe('abs, min, max (a = [-3, 2, null, 0], b = [1, 5, 4, -2], c = [0, 0, 0, 0])', () => {
  const series = { a: [-3, 2, null, 0], b: [1, 5, 4, -2], c: [0, 0, 0, 0] };
  it.each<[string, Values]>([
    ['abs(a)', [3, 2, null, 0]],
    ['abs(b - 3)', [2, 2, 1, 5]],
    ['min(a, b)', [-3, 2, null, -2]],
    ['max(a, b)', [1, 5, null, 0]],
    ['min(a, b, c)', [-3, 0, null, -2]],
    ['max(a, b, 1)', [1, 5, null, 1]],
    ['min(2, 3)', [2, 2, 2, 2]],
  ])('%s', (source, expected) => {
    expect(values(source, series, D4)).toEqual(expected);
  });
});

describe('timeShift and rolling* over days', () => {
  it.each<[string, Values]>([
    ['timeShift(a, 1, DAY)', [null, 1, 2, 3, 4, 5]],
    ['timeShift(a, 2, DAY)', [null, null, 1, 2, 3, 4]],
    ['a - timeShift(a, 1, DAY)', [null, 1, 1, 1, 1, 1]],
    ['rollingSum(a, 3, DAY)', [null, null, 6, 9, 12, 15]],
    ['rollingAvg(a, 3, DAY)', [null, null, 2, 3, 4, 5]],
    ['rollingSum(a, 1, DAY)', [1, 2, 3, 4, 5, 6]],
    ['timeShift(5, 1, DAY)', [null, 5, 5, 5, 5, 5]],
  ])('%s with a = 1..6', (source, expected) => {
    expect(values(source, { a: [1, 2, 3, 4, 5, 6] }, D6)).toEqual(expected);
  });

  it('timeShift by WEEK is 7 days', () => {
    const a = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(values('timeShift(a, 1, WEEK)', { a }, days('2024-01-01', 10))).toEqual([
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      1,
      2,
      3,
    ]);
  });

  it('rollingMedian with odd and even windows (a = [5, 1, 4, 2, 8, 3])', () => {
    const a = [5, 1, 4, 2, 8, 3];
    expect(values('rollingMedian(a, 3, DAY)', { a }, D6)).toEqual([null, null, 4, 2, 4, 3]);
    expect(values('rollingMedian(a, 4, DAY)', { a }, D6)).toEqual([null, null, null, 3, 3, 3.5]);
  });

  it('rollingStd is the sample standard deviation (a = [2, 4, 4, 4, 5, 5, 7, 9])', () => {
    const a = [2, 4, 4, 4, 5, 5, 7, 9];
    expectClose(values('rollingStd(a, 3, DAY)', { a }, days('2024-01-01', 8)), [
      null,
      null,
      Math.sqrt(4 / 3),
      0,
      Math.sqrt(1 / 3),
      Math.sqrt(1 / 3),
      Math.sqrt(4 / 3),
      2,
    ]);
    // Far from zero: the same spread on a level of 1e9.
    const high = a.map((x) => x + 1e9);
    expectClose(values('rollingStd(a, 3, DAY)', { a: high }, days('2024-01-01', 8)).slice(2), [
      Math.sqrt(4 / 3),
      0,
      Math.sqrt(1 / 3),
      Math.sqrt(1 / 3),
      Math.sqrt(4 / 3),
      2,
    ]);
  });

  it('rolling aggregates skip nulls; a window with no value (std: fewer than two) is null', () => {
    const a = [1, null, 3, null, 5];
    const D5 = days('2024-01-01', 5);
    expect(values('rollingSum(a, 2, DAY)', { a }, D5)).toEqual([null, 1, 3, 3, 5]);
    expect(values('rollingAvg(a, 3, DAY)', { a }, D5)).toEqual([null, null, 2, 3, 4]);
    expect(values('rollingMedian(a, 3, DAY)', { a }, D5)).toEqual([null, null, 2, 3, 4]);
    expect(values('rollingSum(a, 2, DAY)', { a: [null, null, 1] }, days('2024-01-01', 3))).toEqual([
      null,
      null,
      1,
    ]);
    expect(values('rollingStd(a, 2, DAY)', { a: [1, null, null, 2] }, D4)).toEqual([null, null, null, null]);
  });

  it('the anomaly condition a > rollingMedian(a, 3, DAY) * 1.5 and a > 100', () => {
    const a = [100, 120, 90, 400, 200, 350];
    // medians from the third day: 100, 120, 200, 350 → thresholds 150, 180, 300, 525
    expect(values('a > rollingMedian(a, 3, DAY) * 1.5 and a > 100', { a }, D6)).toEqual([
      0,
      null,
      0,
      1,
      0,
      0,
    ]);
  });

  it("the spec's day-over-day change (a - timeShift(a, 1, DAY)) / abs(timeShift(a, 1, DAY)) > 0.2", () => {
    const a = [100, 130, 130, 50, -100, -70];
    const change = '(a - timeShift(a, 1, DAY)) / abs(timeShift(a, 1, DAY))';
    expectClose(values(change, { a }, D6), [null, 0.3, 0, -80 / 130, -3, 0.3]);
    expect(values(`${change} > 0.2`, { a }, D6)).toEqual([null, 1, 0, 0, 0, 1]);
    // A zero previous day divides by zero: null.
    expect(values(change, { a: [0, 5, 0, 0] }, D4)).toEqual([null, null, -1, null]);
  });
});

describe('week over week: timeShift(rollingSum(a, 7, DAY), 7, DAY)', () => {
  const D21 = days('2024-01-01', 21);
  const a = Array.from({ length: 21 }, (_, i) => i + 1); // 1..21

  it('is the 7-day sum of the week before, null until 14 days of history exist', () => {
    // day index 13 (2024-01-14): the sum of days 1..7 = 28; index 20: days 8..14 = 77.
    expect(values('timeShift(rollingSum(a, 7, DAY), 7, DAY)', { a }, D21)).toEqual([
      ...Array(13).fill(null),
      28,
      35,
      42,
      49,
      56,
      63,
      70,
      77,
    ]);
    expect(parseExpression('timeShift(rollingSum(a, 7, DAY), 7, DAY)').lookback).toEqual({
      days: 14,
      months: 0,
    });
  });

  it('rolling a shifted series skips the nulls the shift leaves; from 14 days on both orders agree', () => {
    const inner = values('rollingSum(timeShift(a, 7, DAY), 7, DAY)', { a }, D21);
    // index 7: only the shifted day 1 is known; index 12: days 1..6.
    expect(inner.slice(0, 13)).toEqual([...Array(7).fill(null), 1, 3, 6, 10, 15, 21]);
    expect(inner.slice(13)).toEqual(values('timeShift(rollingSum(a, 7, DAY), 7, DAY)', { a }, D21).slice(13));
  });

  it('the week-over-week growth of the 7-day sum', () => {
    const wow =
      '(rollingSum(a, 7, DAY) - timeShift(rollingSum(a, 7, DAY), 7, DAY)) / timeShift(rollingSum(a, 7, DAY), 7, DAY)';
    // index 13: this week days 8..14 = 77, last week days 1..7 = 28 → 49 / 28 = 1.75
    // index 20: days 15..21 = 126, days 8..14 = 77 → 49 / 77
    const out = values(wow, { a }, D21);
    expect(out.slice(0, 13)).toEqual(Array(13).fill(null));
    expectClose([out[13] ?? null, out[20] ?? null], [1.75, 49 / 77]);
    expect(values(wow, { a: Array(21).fill(10) }, D21).slice(13)).toEqual(Array(8).fill(0));
    expect(values(`${wow} > 0.2`, { a }, D21).slice(13)).toEqual(Array(8).fill(1));
  });
});

describe('MONTH: calendar months, clamped to the end of the shorter month', () => {
  /** A daily series whose value is the date as a number (2024-02-29 → 20240229). */
  const asNumbers = (dates: string[]) => dates.map((d) => Number(d.replaceAll('-', '')));

  it('timeShift(a, 1, MONTH) over days across February of a leap year', () => {
    const dates = days('2024-01-28', 64); // 2024-01-28 .. 2024-03-31
    expect(dates.at(-1)).toBe('2024-03-31');
    const out = values('timeShift(a, 1, MONTH)', { a: asNumbers(dates) }, dates);
    const at = (d: string) => out[dates.indexOf(d)];
    expect(at('2024-02-27')).toBeNull(); // 2024-01-27 is before the first date
    expect(at('2024-02-28')).toBe(20240128);
    expect(at('2024-02-29')).toBe(20240129);
    expect(at('2024-03-28')).toBe(20240228);
    expect(at('2024-03-29')).toBe(20240229);
    expect(at('2024-03-30')).toBe(20240229);
    expect(at('2024-03-31')).toBe(20240229);
  });

  it('non-leap February and year boundaries', () => {
    const dates = days('2022-12-25', 100); // .. 2023-04-03
    const out = values('timeShift(a, 1, MONTH)', { a: asNumbers(dates) }, dates);
    const at = (d: string) => out[dates.indexOf(d)];
    expect(at('2023-01-31')).toBe(20221231);
    expect(at('2023-03-31')).toBe(20230228);
    expect(at('2023-03-28')).toBe(20230228);
    expect(at('2023-03-01')).toBe(20230201);
    const back12 = values('timeShift(a, 12, MONTH)', { a: [1, 2] }, ['2023-02-28', '2024-02-29']);
    expect(back12).toEqual([null, 1]);
  });

  it('rollingSum(a, 1, MONTH) over days: (date − 1 month, date]', () => {
    const dates = days('2024-01-01', 91); // .. 2024-03-31
    const ones = dates.map(() => 1);
    const out = values('rollingSum(a, 1, MONTH)', { a: ones }, dates);
    const at = (d: string) => out[dates.indexOf(d)];
    expect(at('2024-01-30')).toBeNull(); // (2023-12-30, 2024-01-30] needs 2023-12-31
    expect(at('2024-01-31')).toBe(31); // (2023-12-31, 2024-01-31]
    expect(at('2024-02-29')).toBe(31); // (2024-01-29, 2024-02-29]: Jan 30, 31 and Feb 1..29
    expect(at('2024-03-29')).toBe(29); // (2024-02-29, 2024-03-29]
    expect(at('2024-03-31')).toBe(31); // (2024-02-29, 2024-03-31]: clamped
    expect(at('2024-03-28')).toBe(29); // (2024-02-28, 2024-03-28]
  });

  it('Month buckets: shifts and rolling windows by month, and day shifts landing inside a month', () => {
    const months = ['2023-11-01', '2023-12-01', '2024-01-01', '2024-02-01', '2024-03-01'];
    const a = [10, 20, 30, 40, 50];
    expect(values('timeShift(a, 1, MONTH)', { a }, months, 'Month')).toEqual([null, 10, 20, 30, 40]);
    expect(values('timeShift(a, 12, MONTH)', { a }, months, 'Month')).toEqual([null, null, null, null, null]);
    expect(values('rollingSum(a, 3, MONTH)', { a }, months, 'Month')).toEqual([null, null, 60, 90, 120]);
    // 2024-03-01 − 7 days = 2024-02-23, inside the February bucket.
    expect(values('timeShift(a, 7, DAY)', { a }, months, 'Month')).toEqual([null, 10, 20, 30, 40]);
  });
});

describe('Week, Hour and Period buckets', () => {
  it('Week buckets (Mondays)', () => {
    const weeks = ['2024-01-01', '2024-01-08', '2024-01-15', '2024-01-22'];
    const a = [1, 2, 4, 8];
    expect(values('timeShift(a, 1, WEEK)', { a }, weeks, 'Week')).toEqual([null, 1, 2, 4]);
    expect(values('timeShift(a, 3, DAY)', { a }, weeks, 'Week')).toEqual([null, 1, 2, 4]);
    expect(values('rollingSum(a, 14, DAY)', { a }, weeks, 'Week')).toEqual([null, 3, 6, 12]);
    expect(values('rollingSum(a, 7, DAY)', { a }, weeks, 'Week')).toEqual([1, 2, 4, 8]);
  });

  it('Hour buckets: a day is 24 buckets', () => {
    const hours = Array.from({ length: 26 }, (_, i) => new Date(Date.UTC(2024, 0, 1, i)).toISOString());
    const a = hours.map((_, i) => i + 1);
    const out = values('rollingSum(a, 1, DAY)', { a }, hours, 'Hour');
    expect(out.slice(0, 23)).toEqual(Array(23).fill(null));
    expect(out.slice(23)).toEqual([300, 324, 348]); // 1..24, 2..25, 3..26
    expect(values('timeShift(a, 1, DAY)', { a }, hours, 'Hour').slice(23)).toEqual([null, 1, 2]);
  });

  it('Period: one bucket with no history, so windows are null and the rest works', () => {
    expect(values('a * 2', { a: [21] }, ['2024-01-01'], 'Period')).toEqual([42]);
    expect(values('timeShift(a, 1, DAY)', { a: [21] }, ['2024-01-01'], 'Period')).toEqual([null]);
    expect(values('rollingSum(a, 30, DAY)', { a: [21] }, ['2024-01-01'], 'Period')).toEqual([null]);
  });
});

describe('grouped operands pair by group key', () => {
  const D2 = days('2024-01-01', 2);
  const a: GroupedSeries = {
    groups: [
      { key: { svc: 'A' }, values: [1, 2] },
      { key: { svc: 'B' }, values: [3, 4] },
    ],
  };
  const b: GroupedSeries = {
    groups: [
      { key: { svc: 'B' }, values: [10, 20] },
      { key: { svc: 'C' }, values: [100, 200] },
    ],
  };

  it.each<[string, Values, Values, Values]>([
    ['a + b', [1, 2], [13, 24], [100, 200]],
    ['a - b', [1, 2], [-7, -16], [-100, -200]],
    ['a * b', [null, null], [30, 80], [null, null]],
    ['a / b', [null, null], [0.3, 0.2], [null, null]],
    ['a > b', [null, null], [0, 0], [null, null]],
    ['min(a, b)', [null, null], [3, 4], [null, null]],
  ])('%s: a group in one operand only meets 0 for + and -, null otherwise', (source, A, B, C) => {
    expect(run(source, { a, b }, D2)).toEqual({
      groups: [
        { key: { svc: 'A' }, values: A },
        { key: { svc: 'B' }, values: B },
        { key: { svc: 'C' }, values: C },
      ],
    });
  });

  it('an ungrouped operand and a constant apply to every group', () => {
    expect(run('a / t', { a, t: [10, 20] }, D2)).toEqual({
      groups: [
        { key: { svc: 'A' }, values: [0.1, 0.1] },
        { key: { svc: 'B' }, values: [0.3, 0.2] },
      ],
    });
    expect(run('t - a * 2', { a, t: [10, 20] }, D2)).toEqual({
      groups: [
        { key: { svc: 'A' }, values: [8, 16] },
        { key: { svc: 'B' }, values: [4, 12] },
      ],
    });
  });

  it('window functions apply per group', () => {
    expect(run('timeShift(a, 1, DAY)', { a }, D2)).toEqual({
      groups: [
        { key: { svc: 'A' }, values: [null, 1] },
        { key: { svc: 'B' }, values: [null, 3] },
      ],
    });
  });

  it('keys match whatever the order of their dimensions, and null values match null', () => {
    const x: GroupedSeries = {
      groups: [
        { key: { svc: 'B', region: 'eu' }, values: [1, 1] },
        { key: { svc: null, region: 'eu' }, values: [2, 2] },
      ],
    };
    const y: GroupedSeries = {
      groups: [
        { key: { region: 'eu', svc: null }, values: [5, 5] },
        { key: { region: 'eu', svc: 'B' }, values: [7, 7] },
      ],
    };
    expect(run('x * y', { x, y }, D2)).toEqual({
      groups: [
        { key: { svc: 'B', region: 'eu' }, values: [7, 7] },
        { key: { svc: null, region: 'eu' }, values: [10, 10] },
      ],
    });
  });

  it('a grouped series with no groups adds nothing', () => {
    const empty: GroupedSeries = { groups: [] };
    expect(run('a + e', { a, e: empty }, D2)).toEqual(a);
    expect(run('e * 2', { e: empty }, D2)).toEqual({ groups: [] });
  });

  it('operands grouped by different dimensions are an ExpressionError at the operator', () => {
    const r: GroupedSeries = { groups: [{ key: { region: 'eu' }, values: [1, 1] }] };
    expect(() => run('a + r', { a, r }, D2)).toThrow(ExpressionError);
    try {
      run('a + r', { a, r }, D2);
    } catch (error) {
      expect((error as ExpressionError).position).toBe(2);
      expect((error as ExpressionError).message).toBe(
        'cannot combine a series grouped by ["svc"] with one grouped by ["region"] at 2',
      );
    }
  });
});

describe('evaluateExpression: inputs', () => {
  it('a referenced query without a series is an ExpressionError at the reference', () => {
    const e = parseExpression('1 + missing');
    expect(() => evaluateExpression(e, { dates: D4, bucket: 'Day', series: {} })).toThrow(
      "no series for query 'missing' at 4",
    );
  });

  it('misaligned values and unordered dates are programming errors (plain Error)', () => {
    const e = parseExpression('a');
    const call = (dates: string[], values: Values) => () =>
      evaluateExpression(e, { dates, bucket: 'Day', series: { a: { groups: [{ key: {}, values }] } } });
    expect(call(D4, [1, 2])).toThrow('has 2 values for 4 dates');
    expect(call(['2024-01-02', '2024-01-01'], [1, 2])).toThrow('strictly ascending');
    expect(call(['yesterday'], [1])).toThrow('is not ISO 8601');
  });

  it('does not change its inputs', () => {
    const input = { a: [1, null, 3, 4] };
    const copy = structuredClone(input);
    values('rollingMedian(a, 2, DAY) + timeShift(a, 1, DAY)', input, D4);
    expect(input).toEqual(copy);
  });
});
