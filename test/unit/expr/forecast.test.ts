import {
  ExpressionError,
  evaluateExpression,
  forecasterFor,
  parseExpression,
} from '../../../shared/domain/common/expr';
import { forecastEndOfPeriod } from '../../../shared/domain/common/expr/period-forecast';
import { days, run, values } from './support';

/**
 * `forecast(x, WEEK | MONTH)`: the end-of-period forecast (docs/expressions.md), on series whose
 * continuation is known: a pure weekly pattern and a pure line.
 */
const WEEKLY = [100, 120, 110, 130, 90, 40, 30]; // Monday … Sunday
const weekday = (d: string) => (new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7;
const D = days('2025-01-01', 196); // through 2025-07-15
const pattern = D.map((d) => WEEKLY[weekday(d)]!);
const line = D.map((_, i) => 50 + 0.5 * i);
const at = (d: string) => D.indexOf(d);

describe('forecast(x, period)', () => {
  it('parses with WEEK or MONTH, adds its history to the lookback, refuses DAY', () => {
    const e = parseExpression('forecast(a, month) > 3000', { names: ['a'] });
    expect(e.refs).toEqual(['a']);
    expect(e.lookback).toEqual({ days: 182, months: 0 });
    expect(parseExpression('forecast(rollingSum(a, 7, DAY), WEEK)', { names: ['a'] }).lookback.days).toBe(
      189,
    );
    expect(() => parseExpression('forecast(a, DAY)', { names: ['a'] })).toThrow(
      new ExpressionError('the period of forecast(x, period) is WEEK or MONTH', 12),
    );
    expect(() => parseExpression('forecast(a)', { names: ['a'] })).toThrow(ExpressionError);
  });

  it('is loaded only for expressions that call it, and never evaluated without it', async () => {
    const names = { names: ['a'] };
    const calling = [
      'forecast(a, MONTH) > 3000',
      'rollingSum(forecastUpper(a, WEEK), 2, DAY)',
      '-forecast(a, WEEK)',
    ];
    const notCalling = ['a * 2', 'rollingSum(a, 7, DAY) > timeShift(a, 1, WEEK)', 'max(a, 3)'];
    for (const s of calling) expect(parseExpression(s, names).forecasts).toBe(true);
    for (const s of notCalling) expect(parseExpression(s, names).forecasts).toBe(false);
    expect(await forecasterFor(notCalling.map((s) => parseExpression(s, names)))).toBeUndefined();
    expect(
      await forecasterFor([parseExpression(notCalling[0]!, names), parseExpression(calling[0]!, names)]),
    ).toBe(forecastEndOfPeriod);
    const series = { a: { groups: [{ key: {}, values: pattern }] } };
    expect(() =>
      evaluateExpression(parseExpression('forecast(a, MONTH)', names), { dates: D, bucket: 'Day', series }),
    ).toThrow('forecast(…) evaluated without the model');
  });

  it('closes the month of a pure weekly pattern at its actual-to-date plus the pattern', () => {
    const out = values('forecast(a, MONTH)', { a: pattern }, D);
    for (const d of ['2025-07-02', '2025-07-15']) {
      const month = d.slice(0, 7);
      const expected = days(`${month}-01`, 31)
        .filter((x) => x.startsWith(month))
        .reduce((acc, x) => acc + WEEKLY[weekday(x)]!, 0);
      expect(out[at(d)]).toBeCloseTo(expected, 6);
    }
    // Before 182 days of history: null (as a rolling window without its history).
    expect(out[at('2025-07-01')]).toBeNull();
    expect(out[at('2025-07-02')]).not.toBeNull();
  });

  it('extrapolates a pure line to the end of the ISO week and of the month', () => {
    const i = at('2025-07-09'); // a Wednesday
    const week = values('forecast(a, WEEK)', { a: line }, D)[i]!;
    // Monday 07-07 … Sunday 07-13: indices i - 2 … i + 4.
    let expectedWeek = 0;
    for (let k = i - 2; k <= i + 4; k++) expectedWeek += 50 + 0.5 * k;
    expect(week).toBeCloseTo(expectedWeek, 3);
    const month = values('forecast(a, MONTH)', { a: line }, D)[i]!;
    let expectedMonth = 0;
    for (let k = at('2025-07-01'); k <= at('2025-07-01') + 30; k++) expectedMonth += 50 + 0.5 * k;
    expect(month).toBeCloseTo(expectedMonth, 3);
  });

  it('forecasts each group on its own and needs Day buckets', () => {
    const grouped = {
      groups: [
        { key: { s: 'x' }, values: pattern },
        { key: { s: 'y' }, values: pattern.map((v) => 2 * v) },
      ],
    };
    const out = run('forecast(a, MONTH)', { a: grouped }, D);
    const i = at('2025-07-15');
    const x = out.groups.find((g) => g.key.s === 'x')!.values[i]!;
    const y = out.groups.find((g) => g.key.s === 'y')!.values[i]!;
    expect(y).toBeCloseTo(2 * x, 6);
    expect(() => run('forecast(a, MONTH)', { a: [1, 2] }, ['2025-01-01', '2025-02-01'], 'Month')).toThrow(
      'forecast(x, MONTH) needs Day buckets (got Month) at 0',
    );
  });

  it('forecastLower and forecastUpper: the 80 % interval of the period total, no width on a known pattern', () => {
    expect(parseExpression('forecastUpper(a, MONTH) > 3000', { names: ['a'] }).lookback).toEqual({
      days: 182,
      months: 0,
    });
    expect(() => parseExpression('forecastLower(a, DAY)', { names: ['a'] })).toThrow(
      new ExpressionError('the period of forecastLower(x, period) is WEEK or MONTH', 17),
    );
    // A pure weekly pattern is forecast without error, so its interval has no width.
    const d = '2025-07-15';
    const expected = days('2025-07-01', 31).reduce((acc, x) => acc + WEEKLY[weekday(x)]!, 0);
    for (const fn of ['forecastLower', 'forecastUpper'])
      expect(values(`${fn}(a, MONTH)`, { a: pattern }, D)[at(d)]).toBeCloseTo(expected, 6);
    // With noise (±20 % of the pattern, a fixed sequence), the interval surrounds the forecast
    // mid-month and closes on the period's last day, all actual.
    const noisy = pattern.map((v, i) => v * (1 + 0.2 * Math.sin(i * 12.9898)));
    const [lower, mid, upper] = ['forecastLower', 'forecast', 'forecastUpper'].map(
      (fn) => values(`${fn}(a, MONTH)`, { a: noisy }, D)[at(d)]!,
    );
    expect(lower).toBeLessThan(mid!);
    expect(mid).toBeLessThan(upper!);
    // A Sunday: the ISO week Monday 07-07 … Sunday 07-13 is all actual.
    const sunday = ['forecastLower', 'forecastUpper'].map(
      (fn) => values(`${fn}(a, WEEK)`, { a: noisy }, D)[at('2025-07-13')],
    );
    let week = 0;
    for (let k = at('2025-07-07'); k <= at('2025-07-13'); k++) week += noisy[k]!;
    for (const v of sunday) expect(v).toBeCloseTo(week, 6);
  });
});
