import { hourlyUsage } from '../../../shared/domain/commitments/service';
import { levelsUpTo, simulate, simulateLevel } from '../../../shared/domain/commitments/simulation';

/**
 * The savings-plan simulation on generated hourly usage: every figure of every level is computed
 * here by brute force, hour by hour, and the recommended level is the best of the curve found here.
 */
const DISCOUNT = 0.28;
// A week of hourly usage: a weekday/night pattern, with a few idle hours.
const usage = Array.from({ length: 7 * 24 }, (_, h) => {
  const hour = h % 24;
  const day = Math.floor(h / 24);
  if (day === 6 && hour < 6) return 0;
  return (hour >= 8 && hour < 20 ? 12 : 5) + (day % 3) * 1.5 + ((h * 7) % 5) / 10;
});

function bruteForce(level: number) {
  let covered = 0;
  let used = 0;
  for (const u of usage) {
    // The plan pays plan-rate usage up to `level` per hour.
    const atPlanRate = u * (1 - DISCOUNT);
    const spent = Math.min(level, atPlanRate);
    used += spent;
    covered += spent / (1 - DISCOUNT);
  }
  const total = usage.reduce((a, b) => a + b, 0);
  return {
    utilization: used / (level * usage.length),
    coverage: covered / total,
    netSavings: covered - level * usage.length,
  };
}

describe('savings-plan simulation', () => {
  it('per level: utilisation, coverage and net savings equal the hour-by-hour figures; the recommendation is the best level', () => {
    const levels = levelsUpTo(usage, DISCOUNT, 50);
    expect(levels).toHaveLength(50);
    expect(levels[49]).toBeCloseTo(Math.max(...usage) * (1 - DISCOUNT), 12);
    const { curve, recommended } = simulate({
      usage,
      discount: DISCOUNT,
      levels,
      term: '1yr',
      paymentOption: 'No Upfront',
    });
    let best = { level: 0, net: 0 };
    curve.forEach((c, i) => {
      const b = bruteForce(levels[i]!);
      expect(c.hourlyCommitment).toBe(levels[i]);
      expect(c.utilization).toBeCloseTo(b.utilization, 12);
      expect(c.coverage).toBeCloseTo(b.coverage, 12);
      expect(c.netSavings).toBeCloseTo(b.netSavings, 9);
      expect(c.monthlyNetSavings).toBeCloseTo((b.netSavings / usage.length) * 730, 9);
      if (b.netSavings > best.net) best = { level: levels[i]!, net: b.netSavings };
    });
    expect(recommended?.hourlyCommitment).toBe(best.level);
    // The full-peak level leaves commitment unused at night: it saves less than the recommendation.
    expect(curve[49]!.netSavings).toBeLessThan(best.net);
    // The smallest level is used whole in every hour with usage, and lost in the idle hours.
    expect(curve[0]!.utilization).toBeCloseTo(usage.filter((u) => u > 0).length / usage.length, 12);
  });

  it('break-even month: the first month whose avoided on-demand cost pays the upfront part and the months', () => {
    const input = { usage, discount: DISCOUNT, term: '1yr' as const };
    const level = 3;
    const b = bruteForce(level);
    const coveredPerMonth = ((b.netSavings + level * usage.length) / usage.length) * 730;
    const commitmentPerMonth = level * 730;
    const firstMonth = (upfront: number) => {
      for (let m = 1; m <= 12; m++)
        if (m * coveredPerMonth >= upfront * commitmentPerMonth * 12 + m * (1 - upfront) * commitmentPerMonth)
          return m;
      return null;
    };
    expect(simulateLevel({ ...input, paymentOption: 'No Upfront' }, level).breakEvenMonth).toBe(
      firstMonth(0),
    );
    expect(simulateLevel({ ...input, paymentOption: 'Partial Upfront' }, level).breakEvenMonth).toBe(
      firstMonth(0.5),
    );
    expect(simulateLevel({ ...input, paymentOption: 'All Upfront' }, level).breakEvenMonth).toBe(
      firstMonth(1),
    );
    expect(firstMonth(1)).toBeGreaterThan(1);
    // A level far above the usage never breaks even.
    expect(simulateLevel({ ...input, paymentOption: 'All Upfront' }, 100).breakEvenMonth).toBeNull();
  });

  it('no usage: no levels and no recommendation', () => {
    const zero = new Array(24).fill(0);
    expect(levelsUpTo(zero, DISCOUNT, 50)).toEqual([]);
    expect(
      simulate({ usage: zero, discount: DISCOUNT, levels: [1], term: '3yr', paymentOption: 'All Upfront' })
        .recommended,
    ).toBeNull();
  });
});

describe('hourlyUsage: the uncovered eligible usage per hour of the lookback', () => {
  const start = Date.parse('2024-04-01T00:00:00Z');
  const fact = (bucket: string, eligibleList: number, provider = 'AWS') => ({
    bucket,
    commitmentId: '',
    group: { provider, type: '' },
    used: 0,
    unused: 0,
    fee: 0,
    coveredList: 0,
    credit: 0,
    eligibleList,
  });

  it('keeps hourly facts in their hours', () => {
    const { usage } = hourlyUsage(
      [fact('2024-04-01T00:00:00', 5), fact('2024-04-01T13:00:00', 7), fact('2024-04-02T00:00:00', 3)],
      'AWS',
      start,
      48,
    );
    const expected = new Array<number>(48).fill(0);
    expected[0] = 5;
    expected[13] = 7;
    expected[24] = 3;
    expect(usage).toEqual(expected);
  });

  it("spreads a daily export's day over its 24 hours (every fact at midnight), other providers ignored", () => {
    const { usage } = hourlyUsage(
      [
        fact('2024-04-01T00:00:00', 48, 'Microsoft'),
        fact('2024-04-02T00:00:00', 24, 'Microsoft'),
        fact('2024-04-01T05:00:00', 99, 'AWS'),
      ],
      'Microsoft',
      start,
      48,
    );
    expect(usage.slice(0, 24)).toEqual(new Array<number>(24).fill(2));
    expect(usage.slice(24)).toEqual(new Array<number>(24).fill(1));
    expect(usage.reduce((a, b) => a + b, 0)).toBe(72);
  });
});
