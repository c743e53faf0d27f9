import { alertRow, type BudgetAlert, type BudgetAlertEvaluation } from '../../../console/src/budgets-shape';
import { daysLeft, type Inventory, inventoryRows } from '../../../console/src/commitments-shape';
import { failing, type Upload, uploadRow } from '../../../console/src/uploads-shape';

const usd = (x: number) => new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }).format(x);

describe("a budget alert's row (console/src/budgets-shape.ts)", () => {
  const alert = {
    id: 'balrt_1',
    name: 'Half',
    line: '*',
    snoozedUntil: null,
    thresholds: [
      { value: 50, severityLevel: 'WARNING', metricMode: 'PERCENTAGE_OF_BUDGET', basis: 'ACTUAL' },
      { value: 900, severityLevel: 'CRITICAL', metricMode: 'ABSOLUTE_SPEND', basis: 'FORECASTED' },
    ],
  } as unknown as BudgetAlert;
  const check = (over: object) => ({
    thresholdId: 't',
    line: 'AWS',
    basis: 'ACTUAL',
    amount: 500,
    measured: 612.5,
    crossed: true,
    notificationId: null,
    suppressedBy: 'FIRED',
    ...over,
  });
  const evaluation = (evaluatedAt: string, checks: object[]) =>
    ({ evaluatedAt, checks, triggered: true }) as unknown as BudgetAlertEvaluation;

  it('says its thresholds in words and its last firing is the newest evaluation that sent something', () => {
    const history = [
      evaluation('2026-11-20T06:00:03Z', [check({})]),
      evaluation('2026-11-19T06:00:01Z', [
        check({ notificationId: 'n1', suppressedBy: null, measured: 510 }),
      ]),
      evaluation('2026-11-18T06:00:01Z', [check({ notificationId: 'n0', suppressedBy: null })]),
    ];
    expect(alertRow(alert, history, 'USD')).toEqual({
      id: 'balrt_1',
      name: 'Half',
      watches: 'Each line',
      thresholds: ['WARNING: actual ≥ 50% of budget', `CRITICAL: forecast ≥ ${usd(900)}`],
      lastFired: `2026-11-19 06:00 UTC: AWS, actual ${usd(510)} ≥ ${usd(500)}`,
      snoozedUntil: null,
    });
    expect(alertRow({ ...alert, line: null }, [history[0]!], 'USD')).toMatchObject({
      watches: 'Total',
      lastFired: 'Never',
    });
  });
});

describe('the commitments inventory (console/src/commitments-shape.ts)', () => {
  it('counts days left from the organisation’s day and marks those within 30 days', () => {
    expect(daysLeft('2026-12-18T23:59:59Z', '2026-11-28')).toBe(20);
    expect(daysLeft(null, '2026-11-28')).toBeNull();
    const item = (id: string, end: string | null, cost: number, unused: number) => ({
      id,
      name: null,
      provider: 'AWS',
      type: 'Savings Plan',
      category: 'Spend',
      term: '1yr',
      purchaseOption: 'No Upfront',
      start: null,
      end,
      hourlyCommitment: null,
      region: null,
      instanceFamily: null,
      commitmentCost: cost,
      usedCost: cost - unused,
      unusedCost: unused,
      onDemandCost: 0,
      utilization: (cost - unused) / cost,
      savings: -1.5,
      effectiveSavingsRate: null,
    });
    const inv = {
      currency: 'USD',
      items: [
        item('a', '2026-12-18T23:59:59Z', 10, 2.5),
        item('b', '2026-11-01T00:00:00Z', 4, 0),
        item('c', null, 1, 1),
      ],
    } as unknown as Inventory;
    const rows = inventoryRows(inv, '2026-11-28');
    expect(rows.map((r) => [r.name, r.daysLeft, r.soon, r.ends, r.unused, r.utilization])).toEqual([
      ['a', '20 days', true, '2026-12-18', usd(2.5), '75.0%'],
      ['b', 'expired', true, '2026-11-01', usd(0), '100.0%'],
      ['c', '–', false, '–', usd(1), '0.0%'],
    ]);
    expect(rows[0]!.kind).toBe('Savings Plan · Spend');
    expect(rows[0]!.term).toBe('1yr, No Upfront');
  });
});

describe('the Data pages (console/src/uploads-shape.ts)', () => {
  const req = (id: string, keyword: string, status: string, violations: number, samples?: object[]) => ({
    id,
    keyword,
    statement: `${id} statement`,
    status,
    violations,
    ...(samples ? { samples } : {}),
  });
  const upload = {
    id: 'upl_1',
    status: 'succeeded',
    format: 'aws-cur-2',
    objectKey: 'org_x/2026/20261128T141016-cur.csv',
    finishedAt: '2026-11-28T14:10:16.123Z',
    rows: 12345,
    conformance: {
      focusVersion: '1.2',
      rows: 12345,
      score: { MUST: { met: 40, applicable: 42 }, SHOULD: { met: 9, applicable: 10 } },
      requirements: [
        req('S-1', 'SHOULD', 'fail', 900),
        req('M-1', 'MUST', 'fail', 2, [
          { row: 3, line: 4, values: { A: 'x', B: null } },
          { row: 9, line: 10, values: { B: '1', C: 'y' } },
        ]),
        req('M-2', 'MUST NOT', 'fail', 7),
        req('M-3', 'MUST', 'pass', 0),
        req('M-4', 'MUST', 'not_applicable', 0),
      ],
    },
  } as unknown as Upload;

  it('names the file from the object key when the record has none, formats in words, rows counted', () => {
    expect(uploadRow(upload)).toEqual({
      id: 'upl_1',
      file: '20261128T141016-cur.csv',
      format: 'AWS CUR 2.0',
      status: 'Ingested',
      rows: '12,345',
      time: '2026-11-28 14:10 UTC',
      conformance: 'MUST 40/42 · SHOULD 9/10',
    });
  });

  it('lists the failing requirements MUST first, most violations first, samples by line with every column', () => {
    const f = failing(upload.conformance);
    expect(f.map((r) => [r.id, r.violations])).toEqual([
      ['M-2', '7 rows'],
      ['M-1', '2 rows'],
      ['S-1', '900 rows'],
    ]);
    expect(f[1]!.columns).toEqual(['A', 'B', 'C']);
    expect(f[1]!.samples).toEqual([
      { line: 4, values: ['x', 'null', 'null'] },
      { line: 10, values: ['null', '1', 'y'] },
    ]);
  });
});
