import { CurrencyPlanner } from '../../../shared/domain/queries/conversion';
import type { WarehouseQueries } from '../../../shared/warehouse/port';
import type { BillingInfo } from '../../../shared/warehouse/warehouse-query';

/**
 * The currency plan of one run: a target and range asked again (the forecast's history, once for
 * the answer's identity and once by its total's read) is planned once.
 */
function planner() {
  const asked: string[] = [];
  const wh = {
    billingInfo: (_org: string, since: string) => {
      asked.push(since);
      return Promise.resolve({ lastChargeDay: '2024-11-20', currencies: ['EUR', 'USD'] });
    },
  } as unknown as WarehouseQueries;
  const recent = Promise.resolve<BillingInfo>({ lastChargeDay: '2024-11-20', currencies: ['EUR', 'USD'] });
  return { money: new CurrencyPlanner(wh, 'org_plan', recent), asked };
}

const day = (d: string) => Date.parse(`${d}T00:00:00Z`);

describe('a run’s currency plans', () => {
  test('the same target and range: one plan, its billing months read once', async () => {
    const { money, asked } = planner();
    const a = money.plan(null, day('2024-01-01'), day('2024-11-21'));
    const b = money.plan(null, day('2024-01-01'), day('2024-11-21'));
    expect(b).toBe(a);
    expect(await a).toEqual({ mode: 'split', currencies: ['EUR', 'USD'] });
    expect(asked).toEqual(['2023-12']);
    // Another range is another plan (and another month read).
    await money.plan(null, day('2024-03-01'), day('2024-11-21'));
    expect(asked).toEqual(['2023-12', '2024-02']);
  });
});
