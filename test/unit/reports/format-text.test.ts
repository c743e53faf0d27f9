import { formatReport } from '../../../shared/domain/reports/render/format';
import type { WidgetData } from '../../../shared/domain/reports/render/widget-data';

/** The plain-text e-mail states an empty list as the HTML does ("None."), never a bare heading. */
const topFlop = (increases: number[], decreases: number[]): WidgetData => {
  const node = (value: string, diff: number) => ({
    group: { service: value },
    dimension: 'service',
    value,
    current: 100 + diff,
    previous: 100,
    diff,
    relativeDiff: diff,
    highlighted: true,
  });
  return {
    type: 'TOP_FLOP',
    title: null,
    groupBy: 'service',
    period: { startDate: '2026-10-01', endDate: '2026-10-31', aggBy: 'Period' },
    comparisonPeriod: { startDate: '2026-09-01', endDate: '2026-09-30', aggBy: 'Period' },
    dataThrough: '2026-10-31',
    currency: 'USD',
    requestedCurrency: 'USD',
    conversion: null,
    totals: { current: 0, previous: 0, diff: 0, relativeDiff: null },
    increases: increases.map((d, i) => node(`up${i}`, d)),
    decreases: decreases.map((d, i) => node(`down${i}`, d)),
  } as WidgetData;
};

describe('the plain-text report', () => {
  it('says None. under an empty "Largest decreases:" and "Largest increases:", as the HTML does', () => {
    const onlyUp = formatReport({ name: 'R', description: '' }, '2026-11-01T00:00:00Z', [topFlop([5], [])]);
    expect(onlyUp.text).toMatch(/Largest decreases:\nNone\./);
    expect(onlyUp.html).toContain('None.');
    const onlyDown = formatReport({ name: 'R', description: '' }, '2026-11-01T00:00:00Z', [
      topFlop([], [-5]),
    ]);
    expect(onlyDown.text).toMatch(/Largest increases:\nNone\.\nLargest decreases:\n- down0: /);
  });
});
