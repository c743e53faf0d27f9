import { type BudgetStatus, statusRows } from '../../../console/src/budgets-shape';

/** The budget page's status table (console/src/budgets-shape.ts): figures in the budget's currency. */
describe('a budget status as table rows', () => {
  const status: BudgetStatus = {
    budgetId: 'bud_1',
    versionId: 'bver_1',
    conversion: null,
    month: '2026-11',
    currency: 'EUR',
    dataThrough: '2026-11-25',
    lines: [
      {
        value: 'AmazonEC2',
        owner: 'ops@example.com',
        budget: 400,
        actual: 310.2,
        forecast: { value: 395.1, lower80: 380.4, upper80: 411 },
        delta: -4.9,
      },
      { value: 'Other', owner: null, budget: 0, actual: 12.5, forecast: null, delta: null },
    ],
    total: { budget: 400, actual: 322.7, forecast: { value: 420, lower80: 400, upper80: 440 }, delta: 20 },
  };
  const eur = (x: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'EUR' }).format(x);

  it('says each line, its forecast range and a signed delta, and the total last', () => {
    const { rows, total, month } = statusRows(status);
    expect(month).toBe('Nov 2026');
    expect(rows[0]).toEqual({
      line: 'AmazonEC2',
      owner: 'ops@example.com',
      budget: eur(400),
      actual: eur(310.2),
      forecast: eur(395.1),
      range: `${eur(380.4)} – ${eur(411)}`,
      delta: `−${eur(4.9)}`,
      over: false,
    });
    expect(rows[1]).toMatchObject({
      line: 'Other',
      owner: '',
      forecast: '–',
      range: '',
      delta: '–',
      over: false,
    });
    expect(total).toMatchObject({ line: 'Total', delta: `+${eur(20)}`, over: true });
  });
});
