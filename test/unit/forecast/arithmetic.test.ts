import { errorQuantiles } from '../../../shared/domain/forecast/accuracy';
import { dayOfMonth, toDate, toDay } from '../../../shared/domain/forecast/days';

describe('forecast days: calendar arithmetic without Date objects', () => {
  test('toDay and toDate agree with Date on every day from 1900 to 2200', () => {
    const wrong: string[] = [];
    for (let t = Date.UTC(1900, 0, 1); t <= Date.UTC(2200, 0, 1); t += 86_400_000) {
      const date = new Date(t).toISOString().slice(0, 10);
      const day = t / 86_400_000;
      if (toDay(date) !== day || toDate(day) !== date || dayOfMonth(day) !== new Date(t).getUTCDate())
        wrong.push(date);
    }
    expect(wrong).toEqual([]);
  });

  test('anything but YYYY-MM-DD is not a day', () => {
    for (const s of [
      '',
      '2024-1-01',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '2024-01-32',
      '20240101',
      'x',
    ])
      expect(toDay(s)).toBeNaN();
  });
});

describe('errorQuantiles: nearest-rank percentiles without a sort', () => {
  test('the 10th and 90th percentiles are those of the sorted values; the 95 % ones at least the normal stretch', () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 16_807) % 2_147_483_647;
      return seed / 2_147_483_647;
    };
    for (const n of [1, 2, 5, 39, 40, 41, 112, 784]) {
      const values = Array.from({ length: n }, () => Math.round((rand() - 0.3) * 1000) / 10);
      const sorted = [...values].sort((a, b) => a - b);
      const at = (p: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n) - 1))] as number;
      const [q025, q10, q90, q975] = errorQuantiles(Float64Array.from(values));
      const mid = at(0.5);
      const stretch = 1.96 / 1.2816;
      expect(q10).toBe(at(0.1));
      expect(q90).toBe(at(0.9));
      expect(q025).toBeCloseTo(Math.min(at(0.025), mid + (at(0.1) - mid) * stretch), 12);
      expect(q975).toBeCloseTo(Math.max(at(0.975), mid + (at(0.9) - mid) * stretch), 12);
    }
  });
});
