import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { budgetAlertMessage, burnChartPng } from '../../../shared/domain/budgets/alerts/burn-chart';
import type { BudgetFiring } from '../../../shared/domain/budgets/alerts/render';
import { sampleBudgetFiring } from '../../../shared/domain/budgets/alerts/send-test';
import { burnSeries } from '../../../shared/domain/budgets/status';

/**
 * The budget alert's message and burn chart, rendered from a firing whose figures are made here:
 * the cumulative series are the running sums of the daily amounts, the budget spread evenly; the
 * e-mail (HTML and text) and the PNG are written to test/artifacts/budgets to be looked at.
 */
const ARTIFACTS = join(__dirname, '..', '..', 'artifacts', 'budgets');
const month = '2026-11';
const through = '2026-11-20';
const daily = new Map<string, number>();
for (let d = 1; d <= 20; d++) daily.set(`2026-11-${String(d).padStart(2, '0')}`, 100 + (d % 7) * 10);
const actual = [...daily.values()].reduce((a, b) => a + b, 0);
const figures = {
  budget: 3600,
  actual,
  forecast: { value: actual + 10 * 130, lower80: actual + 10 * 110, upper80: actual + 10 * 150 },
  delta: actual + 1300 - 3600,
};

function firing(extra: Partial<BudgetFiring> = {}): BudgetFiring {
  return {
    alert: { id: 'balrt_1', name: 'Cloud <spend>' },
    budget: { id: 'bud_1', name: 'Platform', currency: 'USD', groupBy: 'service' },
    link: 'http://127.0.0.1:3000/console/#/explorer?title=Platform',
    line: 'AmazonEC2',
    owner: 'ops@example.com',
    month,
    dataThrough: through,
    figures,
    threshold: {
      value: 90,
      severityLevel: 'WARNING',
      metricMode: 'PERCENTAGE_OF_BUDGET',
      basis: 'FORECASTED',
      amount: 3240,
    },
    measured: figures.forecast.value,
    top: {
      dimension: 'sub_account',
      values: [
        { value: 'prod', amount: 1500 },
        { value: 'dev', amount: 700 },
        { value: 'qa', amount: 100 },
      ],
    },
    conversion: null,
    burn: burnSeries(daily, month, through, figures),
    appUrl: 'http://127.0.0.1:3000/console/',
    ...extra,
  };
}

describe('burnSeries', () => {
  it('cumulates the actual to dataThrough, spreads the budget evenly, and ends the forecast at the month-end figures', () => {
    const b = burnSeries(daily, month, through, figures);
    expect(b.days).toHaveLength(30);
    let run = 0;
    b.days.forEach((d, i) => {
      run += daily.get(d) ?? 0;
      expect(b.actual[i]).toBe(d <= through ? run : null);
      expect(b.budget[i]).toBeCloseTo((3600 * (i + 1)) / 30, 9);
    });
    expect(b.forecast.slice(0, 19).every((v) => v === null)).toBe(true);
    expect(b.forecast[19]).toBeCloseTo(actual, 9);
    expect(b.forecast[29]).toBeCloseTo(figures.forecast.value, 9);
    expect(b.lower[29]).toBeCloseTo(figures.forecast.lower80, 9);
    expect(b.upper[29]).toBeCloseTo(figures.forecast.upper80, 9);
  });
});

describe('the message', () => {
  it('names the budget, line, owner, figures, days left, threshold and top three, and carries the chart', async () => {
    const m = await budgetAlertMessage(firing());
    expect(m.subject).toBe('Budget alert: Cloud <spend> — Platform / AmazonEC2 WARNING (2026-11)');
    const money = (x: number) => `$${Math.round(x).toLocaleString('en-US')}`;
    for (const line of [
      'Budget: Platform',
      'Line: service = AmazonEC2',
      'Owner: ops@example.com',
      'Budget for 2026-11: $3,600',
      `Actual to date (through 2026-11-20): ${money(actual)}`,
      `Month-end forecast: ${money(figures.forecast.value)} (80% interval ${money(figures.forecast.lower80)} – ${money(figures.forecast.upper80)})`,
      'Days left in the month: 10',
      'Threshold crossed: WARNING: forecast ≥ 90% of budget ($3,240)',
      'Top sub_account values this month: prod $1,500, dev $700, qa $100',
    ])
      expect(m.text).toContain(line);
    expect(m.html).toContain('Cloud &lt;spend&gt;');
    expect(m.html).toContain('src="cid:burn-chart.png"');
    expect(m.images).toHaveLength(1);
    const png = Buffer.from(m.images![0]!.base64, 'base64');
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    // Small enough to travel on the queue with the rest of the message.
    expect(png.byteLength).toBeLessThan(150_000);
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(
      join(ARTIFACTS, 'budget-alert.html'),
      m.html.replace('cid:burn-chart.png', 'burn-chart.png'),
    );
    writeFileSync(join(ARTIFACTS, 'budget-alert.txt'), m.text);
    writeFileSync(join(ARTIFACTS, 'burn-chart.png'), png);
  });

  it('a test send says so', async () => {
    const m = await budgetAlertMessage(firing({ test: true }));
    expect(m.subject).toMatch(/^\[Test\] Budget alert: /);
    expect(m.text).toContain('This is a test notification');
    expect((await burnChartPng(firing())).byteLength).toBeGreaterThan(1000);
  });
});

describe('the test send sample', () => {
  it('on any day of a year: a test over the month of yesterday, its forecast crossing 90 % of the budget', () => {
    for (let d = 0; d < 366; d++) {
      const now = new Date(Date.UTC(2026, 0, 1) + d * 86_400_000);
      const f = sampleBudgetFiring(now, 'http://127.0.0.1:3000/console/');
      const yesterday = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
      expect(f.test).toBe(true);
      expect(f.dataThrough).toBe(yesterday);
      expect(f.month).toBe(yesterday.slice(0, 7));
      // The actual is the burn series' last cumulative value; the forecast crosses the threshold.
      expect(f.burn.actual.filter((x) => x !== null).at(-1)).toBeCloseTo(f.figures.actual, 9);
      expect(f.measured).toBeGreaterThanOrEqual(f.threshold.amount);
      expect(f.threshold.amount).toBe(f.figures.budget * 0.9);
      // Root causes like a real message's: this month's days against the same days of the last.
      const rc = f.rootCauses!;
      expect(rc.period).toEqual({ start: `${f.month}-01`, end: yesterday });
      expect(rc.baseline.start.slice(0, 7)).not.toBe(f.month);
      expect(rc.after).toBeCloseTo(f.figures.actual, 9);
      expect(rc.top.reduce((a, c) => a + c.after, 0)).toBeCloseTo(rc.after, 9);
      expect(rc.change).toBeCloseTo(rc.after - rc.before, 9);
    }
  });

  it('its message carries the sample root causes in every form', async () => {
    const m = await budgetAlertMessage(
      sampleBudgetFiring(new Date('2026-11-20T12:00:00Z'), 'http://127.0.0.1:3000/console/'),
    );
    expect(m.text).toContain('Top contributors by sub-account / region (Amazon Elastic Compute Cloud:');
    expect(m.text).toContain('sample-production / us-east-1: ');
    expect(m.html).toContain('sample-staging / us-east-1');
    expect(JSON.stringify(m.slackBlocks)).toContain('sample-production / eu-west-1');
    expect(JSON.stringify(m.teamsCard)).toContain('sample-dev / us-west-2');
  });
});
