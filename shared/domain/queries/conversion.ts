import type { ConversionOut } from '../../model/conversion';
import type { WarehouseQueries } from '../../warehouse/port';
import type { BillingInfo, CurrencyConversion } from '../../warehouse/warehouse-query';
import { conversionFactors } from '../fx/service';
import { addMonths, DAY_MS, dayMs, ymd } from './period';
import { warehouseCall } from './rows';

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

/** The column a mixed-currency answer is split by when no currency is asked. */
export const CURRENCY_GROUP = 'BillingCurrency';

/** How a cost query's amounts are expressed (see `CurrencyPlanner.plan`). */
export type CurrencyPlan =
  | { mode: 'native'; currency: string | null }
  | { mode: 'split'; currencies: string[] }
  | { mode: 'convert'; currency: string; conversion?: CurrencyConversion; out?: ConversionOut };

/**
 * The currency side of one explorer run: the billing currencies of the months a query reads
 * (`billingInfo`, read once per month per run) and every conversion applied (merged into the
 * answer's `conversion` by `mergeConversions`).
 */
export class CurrencyPlanner {
  /** Billing currencies from a month on (`billingInfo`), read once per month per run. */
  private readonly infos = new Map<string, Promise<BillingInfo>>();
  /** Every conversion applied in this run (merged into the answer's `conversion`). */
  readonly conversions: ConversionOut[] = [];
  /** Plans made in this run, by target and range: a range asked again (a forecast's history) is read once. */
  private readonly plans = new Map<string, Promise<CurrencyPlan>>();

  constructor(
    private readonly wh: WarehouseQueries,
    private readonly orgId: string,
    /** The recent months' billing info, read side by side with the series. */
    private readonly info: Promise<BillingInfo>,
  ) {}

  private infoSince(month: string): Promise<BillingInfo> {
    let read = this.infos.get(month);
    if (!read) {
      read = warehouseCall('billingInfo', () => this.wh.billingInfo(this.orgId, month));
      this.infos.set(month, read);
    }
    return read;
  }

  /**
   * How a cost query over `[start, end)` expresses its amounts. With a target currency: the
   * billing currencies of the range's months (and one month either side) other than the target
   * are converted at their per-day factors; with none and several billing currencies, the answer
   * is split by currency; else the single billing currency, unconverted. Asked again for the same
   * target and range in this run, the same plan (its rates read once).
   */
  plan(target: string | null, start: number, end: number): Promise<CurrencyPlan> {
    const key = `${target}:${start}:${end}`;
    let made = this.plans.get(key);
    if (!made) {
      made = this.makePlan(target, start, end);
      this.plans.set(key, made);
    }
    return made;
  }

  private async makePlan(target: string | null, start: number, end: number): Promise<CurrencyPlan> {
    const since = ymd(addMonths(dayMs(ymd(start)), -1)).slice(0, 7);
    const [recent, range] = await Promise.all([this.info, this.infoSince(since)]);
    if (!target) {
      if (range.currencies.length > 1) return { mode: 'split', currencies: range.currencies };
      // One currency from the range on (or none there: the recent months' single one).
      const one = range.currencies.length ? range.currencies : recent.currencies;
      return { mode: 'native', currency: one.length === 1 ? one[0]! : null };
    }
    const sources = range.currencies.filter((c) => c !== target);
    if (!sources.length) return { mode: 'convert', currency: target };
    const from = ymd(start);
    const to = ymd(Math.ceil(end / DAY_MS) * DAY_MS);
    const { conversion, out } = await planConversion(sources, target, from, to, range.lastChargeDay);
    this.conversions.push(out);
    return { mode: 'convert', currency: target, conversion, out };
  }
}

/**
 * The answer's `conversion`: every conversion to the answer's currency merged (source currencies,
 * rate sources and the range of publication days), or null when nothing was converted to it.
 */
export function mergeConversions(
  list: readonly ConversionOut[],
  target: string | null,
): ConversionOut | null {
  const to = target ?? list[0]?.to;
  const same = list.filter((c) => c.to === to && c.rates);
  if (!to || !same.length) return null;
  const from = [...new Set(same.flatMap((c) => c.from))].sort();
  const sources = [...new Set(same.flatMap((c) => (c.source ? c.source.split(', ') : [])))].sort();
  const starts = same.map((c) => c.rates!.from).sort();
  const ends = same.map((c) => c.rates!.to).sort();
  return {
    from,
    to,
    source: sources.join(', ') || null,
    rates: { from: starts[0]!, to: ends[ends.length - 1]! },
  };
}
