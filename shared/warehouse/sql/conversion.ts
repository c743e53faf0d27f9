import { UnprocessableError } from '../../errors';
import type { CurrencyConversion } from '../warehouse-query';
import type { Dialect } from './dialect';

// Currency conversion inside a statement: the per-day factor lookup, and the missing-rate failure
// it raises, read back as a 422.

/** The text a statement fails with when a row has no rate: `FX_RATE_MISSING <currency> <day>`. */
const FX_MISSING = 'FX_RATE_MISSING';

/** A row needed a rate that is not loaded: 422 naming the currency and the day. */
export class MissingRateError extends UnprocessableError {
  override name = 'MissingRateError';
  constructor(
    readonly currency: string,
    readonly day: string,
    readonly target: string | undefined,
  ) {
    super(
      `No exchange rate for ${currency}${target ? ` to ${target}` : ''} on ${day} (nor in the 7 days before): load the euro reference rates for that day (npm run fx -- load, or POST /admin/fx-rates)`,
    );
  }
}

/**
 * The factor a series statement multiplies each partial sum by: 1 for sums in the target currency;
 * else the element of the currency's list of per-day factors at the sum's charge day (a list
 * literal indexed by days since `from`: arithmetic per row, no join). `cur` and `at` are the
 * expressions of the billing currency and of the (hour- or day-truncated) charge timestamp. A sum
 * whose factor is NULL (no rate that day, or a currency without factors) fails the statement,
 * naming the currency and the day: never 1:1. Every value is ours and checked (codes, dates,
 * finite numbers), so the lists are inlined. The statement's range filter keeps every row on or
 * after `from`.
 */
export function conversionFactorSql(c: CurrencyConversion, d: Dialect, cur: string, at: string): string {
  const code = currencyLiteral;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(c.from)) throw new Error(`invalid conversion start ${c.from}`);
  const origin = Date.parse(`${c.from}T00:00:00Z`);
  const lists = new Map<string, (string | null)[]>();
  for (const f of c.factors) {
    const at = (Date.parse(`${f.day}T00:00:00Z`) - origin) / 86_400_000;
    if (!Number.isInteger(at) || at < 0 || at > 100_000 || !Number.isFinite(f.factor) || f.factor <= 0)
      throw new Error(`invalid conversion factor ${JSON.stringify(f)}`);
    const list = lists.get(f.currency) ?? [];
    while (list.length <= at) list.push(null);
    list[at] = f.factor.toExponential();
    lists.set(f.currency, list);
  }
  const index = d.dayIndex(c.from, at);
  const message = `'${FX_MISSING} ' || coalesce(${cur}, '(none)') || ' ' || ${d.dayText(at)} || ' ' || ${code(c.target)}`;
  const branches = [...lists.entries()].map(
    ([currency, list]) =>
      `WHEN ${cur} = ${code(currency)} THEN ${d.listAt(d.list(list.map((x) => x ?? 'NULL')), index)}`,
  );
  const lookup = branches.length ? `CASE ${branches.join(' ')} END` : 'CAST(NULL AS DOUBLE)';
  return `(CASE WHEN ${cur} = ${code(c.target)} THEN 1 ELSE coalesce(${lookup}, ${d.fail(message)}) END)`;
}

/**
 * An amount converted row by row at its charge day's factor, for the statements that are not cost
 * series (the refresh's candidate and dimension-value figures): `amount` times the same factor
 * lookup as the series statements (`conversionFactorSql`), so a row without a rate fails the
 * statement naming its currency and day. A row charged before the factors' first day fails too
 * (a list index below 1 would read from the list's end on DuckDB). Without a conversion the amount
 * is returned as it is.
 */
export function convertedAmountSql(
  amount: string,
  c: CurrencyConversion | undefined,
  d: Dialect,
  cols: { currency: string; chargeStart: string } = {
    currency: d.col('BillingCurrency'),
    chargeStart: d.col('ChargePeriodStart'),
  },
): string {
  if (!c) return amount;
  const day = `date_trunc('day', ${cols.chargeStart})`;
  const early = `'${FX_MISSING} ' || coalesce(${cols.currency}, '(none)') || ' ' || ${d.dayText(day)} || ' ' || ${currencyLiteral(c.target)}`;
  const factor = conversionFactorSql(c, d, cols.currency, day);
  return `(${amount} * (CASE WHEN ${cols.currency} = ${currencyLiteral(c.target)} THEN 1 WHEN ${d.dayIndex(c.from, day)} < 1 THEN ${d.fail(early)} ELSE ${factor} END))`;
}

/** A checked ISO 4217 code as an SQL literal. */
export function currencyLiteral(x: string): string {
  if (!/^[A-Z]{3}$/.test(x)) throw new Error(`invalid currency code ${JSON.stringify(x)}`);
  return `'${x}'`;
}

/** The MissingRateError of a statement that failed for a missing rate, else the error itself. */
export function missingRateOf(error: unknown): unknown {
  const text = error instanceof Error ? error.message : String(error);
  const m = new RegExp(`${FX_MISSING} (\\S+) (\\d{4}-\\d{2}-\\d{2})(?: ([A-Z]{3}))?`).exec(text);
  return m ? new MissingRateError(m[1]!, m[2]!, m[3]) : error;
}
