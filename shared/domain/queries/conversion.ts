import type { CurrencyConversion } from '../../warehouse/query-model';
import { conversionFactors } from '../fx/service';
import type { ConversionOut } from './model';

/**
 * How amounts of `sources` (billing currencies other than `target`) over the charge days
 * `[from, to)` are converted to `target`: the per-day factors the warehouse statement multiplies
 * by (`conversion`), and what the answer states (`out`: the rates applied to days holding data,
 * i.e. up to `lastChargeDay`). The one place the engine's cost queries and the refresh's candidate
 * and dimension figures get their factors from (docs/currency.md).
 */
export async function planConversion(
  sources: readonly string[],
  target: string,
  from: string,
  to: string,
  lastChargeDay: string | null,
): Promise<{ conversion: CurrencyConversion; out: ConversionOut }> {
  const factors = await conversionFactors(sources, target, from, to);
  const last = lastChargeDay ?? from;
  const used = factors.filter((f) => f.day <= last);
  const rateDays = used.map((f) => f.rateDay).sort();
  return {
    conversion: {
      target,
      from,
      factors: factors.map(({ currency, day, factor }) => ({ currency, day, factor })),
    },
    out: {
      from: [...sources],
      to: target,
      source: [...new Set(used.map((f) => f.source))].sort().join(', ') || null,
      rates: rateDays.length ? { from: rateDays[0]!, to: rateDays[rateDays.length - 1]! } : null,
    },
  };
}
