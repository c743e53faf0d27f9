import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMITMENTS_SEED_FILE, DEMO_RI_ARN, DEMO_SP_ARN } from '../../infra/local/demo-data/commitment-cur';
import { type CsvRow, close, num, readCsv } from '../integration/warehouse/support';
import { api, session } from '../support/session';

/**
 * The demo organisation of `npm start` has commitments (the generated CUR 2.0 of
 * infra/local/demo-data/commitment-cur.ts): its inventory, summary, expiring list and the
 * commitment metrics answer them, with each commitment's used and unused cost equal to the sums
 * of the generated file's lines (read back here from the stack's bucket).
 */
const s = () => session();
let seed: { key: string; from: string; until: string };
let lines: CsvRow[] = [];

beforeAll(() => {
  seed = JSON.parse(readFileSync(join(s().stateDir, COMMITMENTS_SEED_FILE), 'utf8'));
  lines = readCsv(join(s().stateDir, 'bucket', seed.key));
});

function expected(arn: string) {
  let used = 0;
  let unused = 0;
  for (const r of lines) {
    if (r.savings_plan_savings_plan_a_r_n !== arn && r.reservation_reservation_a_r_n !== arn) continue;
    const type = r.line_item_line_item_type;
    if (type === 'SavingsPlanCoveredUsage') used += num(r.savings_plan_savings_plan_effective_cost);
    if (type === 'DiscountedUsage') used += num(r.reservation_effective_cost);
    if (type === 'SavingsPlanRecurringFee')
      unused += num(r.savings_plan_total_commitment_to_date) - num(r.savings_plan_used_commitment);
    if (type === 'RIFee') unused += num(r.reservation_unused_recurring_fee);
  }
  return { used, unused };
}

test("the demo organisation's commitments answer, with the generated file's figures", async () => {
  const token = s().apiKeys.member;
  const period = `startDate=${seed.from}&endDate=${seed.until}`;
  const inventory = await api<{
    items: { id: string; usedCost: number; unusedCost: number; utilization: number }[];
  }>('GET', `/commitments?${period}`, { token });
  expect(inventory.status).toBe(200);
  for (const arn of [DEMO_SP_ARN, DEMO_RI_ARN]) {
    const item = inventory.body.items.find((i) => i.id === arn);
    const e = expected(arn);
    expect({ arn, found: Boolean(item) }).toEqual({ arn, found: true });
    expect(close(item!.usedCost, e.used, 1e-9)).toBe(true);
    expect(close(item!.unusedCost, e.unused, 1e-9)).toBe(true);
    expect(e.unused).toBeGreaterThan(0);
    expect(item!.utilization).toBeGreaterThan(0.5);
    expect(item!.utilization).toBeLessThan(1);
  }
  const expiring = await api<{ items: { id: string }[] }>('GET', '/commitments/expiring?withinDays=90', {
    token,
  });
  expect(expiring.status).toBe(200);
  expect(expiring.body.items.map((i) => i.id)).toEqual(expect.arrayContaining([DEMO_SP_ARN, DEMO_RI_ARN]));
  const summary = await api<{ rows: unknown[]; total: { coverage: number | null } }>(
    'GET',
    `/commitments/summary?${period}&granularity=WEEK`,
    { token },
  );
  expect(summary.status).toBe(200);
  expect(summary.body.rows.length).toBeGreaterThan(0);
  expect(summary.body.total.coverage).toBeGreaterThan(0);
  const explorer = await api<{ queries: { total: number | null }[] }>('POST', '/queries/explorer', {
    token,
    body: {
      request: {
        period: { startDate: seed.from, endDate: seed.until, aggBy: 'Week' },
        queries: [{ type: 'metric', name: 'u', metricId: 'commitment_utilization', aggregator: 'AVG' }],
      },
    },
  });
  expect(explorer.status).toBe(200);
  // The metric's period utilisation: used ÷ cost summed over every commitment of the inventory
  // (the demo's FOCUS rows carry Savings Plan usage of their own too).
  const items = inventory.body.items;
  const used = items.reduce((a, i) => a + i.usedCost, 0);
  const cost = items.reduce((a, i) => a + i.usedCost + i.unusedCost, 0);
  expect(close(explorer.body.queries[0]!.total!, used / cost, 1e-9)).toBe(true);
  // A dashboard widget of the same metric (saved through the save-time metric check) answers the same.
  const dashboard = await api<{ id: string }>('POST', '/dashboard-v2', {
    token,
    body: {
      name: `Commitments ${Math.random().toString(36).slice(2, 8)}`,
      widgets: [
        {
          key: 'util',
          x: 0,
          y: 0,
          w: 6,
          h: 4,
          title: 'Utilisation',
          source: {
            type: 'advancedExplorer',
            request: {
              period: {
                startDate: `${seed.from}T00:00:00Z`,
                endDate: `${seed.until}T00:00:00Z`,
                aggBy: 'Week',
              },
              queries: [
                {
                  type: 'metric',
                  name: 'u',
                  metricId: 'commitment_utilization',
                  aggregator: 'AVG',
                  colorIndex: 0,
                  chartType: 'LINE',
                },
              ],
            },
          },
        },
      ],
    },
  });
  expect(dashboard.status).toBe(201);
  const data = await api<{ queries: { total: number | null }[] }>(
    'GET',
    `/dashboard-v2/${dashboard.body.id}/widgets/util/data`,
    { token },
  );
  expect(data.status).toBe(200);
  expect(close(data.body.queries[0]!.total!, used / cost, 1e-9)).toBe(true);
});
