import { ensureOrganization } from '../../../shared/db/organizations-repo';
import { DuckDbWarehouse } from '../../../shared/warehouse/duckdb/adapter';
import { writeDailyFocusCsv } from '../../support/daily-focus';
import { conditionAlertMaker, evaluateOnEngine } from '../../support/engine-alerts';
import { adminOf } from '../../support/principals';
import { suiteIds } from '../../support/suite';
import { costQuery } from '../../unit/alerts/fixtures';

/**
 * An alert on the month's FORECAST (docs/expressions.md, `forecast(x, MONTH)`), evaluated by the
 * alert evaluator through the query engine over the DuckDB warehouse, on billing rows ingested
 * here: the daily cost is a pure weekly pattern, so the month's close is known here (the actual
 * days plus the pattern on the rest), and the alert fires while the month-to-date actual is still
 * under its threshold.
 */
const { run, orgId } = suiteIds('fcond');
const principal = adminOf(orgId, 'user_a');
const WEEKLY = [100, 120, 110, 130, 90, 40, 30]; // Monday … Sunday
const weekly = (d: string) => WEEKLY[(new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7]!;
const lastChargeDay = '2026-11-20';
const through = '2026-11-19'; // the last complete day
const DAY_MS = 86_400_000;
const daysIn = (from: string, to: string) => {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += DAY_MS)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
};
const monthActual = daysIn('2026-11-01', through).reduce((a, d) => a + weekly(d), 0);
const monthClose = daysIn('2026-11-01', '2026-11-30').reduce((a, d) => a + weekly(d), 0);

beforeAll(async () => {
  await ensureOrganization({
    id: orgId,
    name: 'forecast condition',
    timezone: 'UTC',
    createdAt: new Date().toISOString(),
  });
  const file = writeDailyFocusCsv({
    seed: 11,
    accountPrefix: `fcond${run}`,
    from: '2026-03-01',
    to: lastChargeDay,
    series: [{ service: 'Compute', value: weekly }],
  });
  await new DuckDbWarehouse().ingestFile({ orgId, path: file, sourceName: 'focus_daily.csv' });
}, 120_000);

test('an alert on the month forecast fires while the month-to-date actual is under the threshold', async () => {
  const t0 = new Date('2026-11-21T05:00:00Z');
  const under = Math.round(monthClose - 50);
  const over = Math.round(monthClose + 50);
  expect(monthActual).toBeLessThan(under);
  const make = conditionAlertMaker(principal, [costQuery('spend')], t0);
  const fires = await make('month forecast over', `forecast(spend, MONTH) > ${under}`);
  const quiet = await make('month forecast far over', `forecast(spend, MONTH) > ${over}`);
  const { results, notes } = await evaluateOnEngine(
    orgId,
    [fires.id, quiet.id],
    new Date('2026-11-21T06:00:00Z'),
  );
  expect(results.map((r) => [r?.evaluatedDay, r?.triggered])).toEqual([
    [through, true],
    [through, false],
  ]);
  expect(notes.map((n) => n.alertId)).toEqual([fires.id]);
  expect(notes[0]!.message.text).toContain("the month's forecast total of spend");
});
