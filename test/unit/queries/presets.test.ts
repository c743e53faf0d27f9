import { resolvePreset } from '../../../shared/domain/queries/presets';
import { DATE_PRESETS } from '../../../shared/enums';

// Wednesday 2025-05-14, 15:30 UTC.
const now = new Date('2025-05-14T15:30:00Z');

describe('date presets', () => {
  it('resolves every preset of the spec to a half-open UTC range', () => {
    const expected: Record<(typeof DATE_PRESETS)[number], [string, string]> = {
      TRAILING_90_DAYS: ['2025-02-14', '2025-05-15'],
      TRAILING_30_DAYS: ['2025-04-15', '2025-05-15'],
      TRAILING_45_DAYS: ['2025-03-31', '2025-05-15'],
      TRAILING_7_DAYS: ['2025-05-08', '2025-05-15'],
      TRAILING_3_DAYS: ['2025-05-12', '2025-05-15'],
      TRAILING_1_DAYS: ['2025-05-14', '2025-05-15'],
      TRAILING_14_WEEKS: ['2025-02-06', '2025-05-15'],
      MTD: ['2025-05-01', '2025-05-15'],
      QTD: ['2025-04-01', '2025-05-15'],
      YTD: ['2025-01-01', '2025-05-15'],
      CURRENT_MONTH: ['2025-05-01', '2025-06-01'],
      CURRENT_QUARTER: ['2025-04-01', '2025-07-01'],
      CURRENT_YEAR: ['2025-01-01', '2026-01-01'],
      LAST_WEEK: ['2025-05-05', '2025-05-12'],
      LAST_MONTH: ['2025-04-01', '2025-05-01'],
      LAST_6_MONTHS: ['2024-11-01', '2025-05-01'],
      LAST_12_MONTHS: ['2024-05-01', '2025-05-01'],
      LAST_4_YEARS: ['2021-01-01', '2025-01-01'],
      LAST_3_MONTHS: ['2025-02-01', '2025-05-01'],
      LAST_INVOICE_MONTH: ['2025-04-01', '2025-05-01'],
    };
    expect(Object.keys(expected).sort()).toEqual([...DATE_PRESETS].sort());
    for (const preset of DATE_PRESETS) {
      const [start, end] = expected[preset];
      expect({ preset, ...resolvePreset(preset, now) }).toEqual({ preset, start, end });
    }
  });

  it('handles year boundaries and Sundays', () => {
    const jan = new Date('2026-01-04T00:00:00Z'); // a Sunday
    expect(resolvePreset('LAST_MONTH', jan)).toEqual({ start: '2025-12-01', end: '2026-01-01' });
    expect(resolvePreset('LAST_WEEK', jan)).toEqual({ start: '2025-12-22', end: '2025-12-29' });
    expect(resolvePreset('QTD', jan)).toEqual({ start: '2026-01-01', end: '2026-01-05' });
    expect(resolvePreset('LAST_3_MONTHS', jan)).toEqual({ start: '2025-10-01', end: '2026-01-01' });
  });
});
