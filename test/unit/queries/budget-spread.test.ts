import { budgetAmounts, plannedBetween } from '../../../shared/domain/budgets/query-series';
import type { Budget } from '../../../shared/model/budgets';

/** The budget query's spreading rule (docs/queries.md, "Budget queries"), figures worked out by hand. */
const DAY_MS = 86_400_000;
const at = (d: string) => Date.parse(`${d}T00:00:00Z`);
// February 2026 has 28 days, March 31.
const amounts = new Map([
  ['2026-02', 280],
  ['2026-03', 310],
]);

describe('plannedBetween', () => {
  it('a day is its month amount over the month days; a whole month is its amount exactly', () => {
    expect(plannedBetween(amounts, at('2026-02-10'), at('2026-02-11'))).toBeCloseTo(10, 12);
    expect(plannedBetween(amounts, at('2026-03-31'), at('2026-04-01'))).toBeCloseTo(10, 12);
    expect(plannedBetween(amounts, at('2026-02-01'), at('2026-03-01'))).toBe(280);
    expect(plannedBetween(new Map([['2026-03', 100]]), at('2026-03-01'), at('2026-04-01'))).toBe(100);
  });

  it('a bucket across two months takes each month share; an hour is a 24th of its day', () => {
    // 2026-02-26 … 2026-03-04: three February days (3 × 10) and four March days (4 × 10).
    expect(plannedBetween(amounts, at('2026-02-26'), at('2026-03-05'))).toBeCloseTo(70, 12);
    expect(
      plannedBetween(amounts, at('2026-02-10') + 5 * 3_600_000, at('2026-02-10') + 6 * 3_600_000),
    ).toBeCloseTo(10 / 24, 12);
  });

  it('null where no month is planned; an unplanned month adds nothing to a planned one', () => {
    expect(plannedBetween(amounts, at('2026-01-01'), at('2026-02-01'))).toBeNull();
    expect(plannedBetween(amounts, at('2026-01-31'), at('2026-02-02'))).toBeCloseTo(10, 12);
  });

  it("converts each day's share at that day's factor", () => {
    const factor = (day: string) => (day < '2026-02-15' ? 2 : 3);
    // 2026-02-13, 14 at ×2 and 15, 16 at ×3: 10 × (2 + 2 + 3 + 3).
    expect(plannedBetween(amounts, at('2026-02-13'), at('2026-02-17'), factor)).toBeCloseTo(100, 12);
    // The whole month: 14 days at ×2 and 14 at ×3.
    expect(plannedBetween(amounts, at('2026-02-01'), at('2026-03-01'), factor)).toBeCloseTo(
      14 * 10 * 2 + 14 * 10 * 3,
      9,
    );
    expect(at('2026-03-01') - at('2026-02-01')).toBe(28 * DAY_MS);
  });
});

describe('budgetAmounts', () => {
  const budget = {
    lines: [
      { value: 'a', owner: null, amounts: { '2026-02': 100, '2026-03': 50 } },
      { value: 'b', owner: null, amounts: { '2026-02': 20 } },
    ],
  } as unknown as Budget;
  it('one line, the total of every line month by month, or undefined for no such line', () => {
    expect(budgetAmounts(budget, 'b')).toEqual(new Map([['2026-02', 20]]));
    expect(budgetAmounts(budget, undefined)).toEqual(
      new Map([
        ['2026-02', 120],
        ['2026-03', 50],
      ]),
    );
    expect(budgetAmounts(budget, 'c')).toBeUndefined();
  });
});
