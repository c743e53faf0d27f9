/** Dated exchange rates as stored (docs/currency.md); the rules over them: `shared/domain/fx/rates.ts`. */

export interface RateDay {
  /** Publication day, `YYYY-MM-DD`. */
  day: string;
  /** Units of each currency per 1 EUR. */
  rates: Record<string, number>;
}

/** A stored publication day: the rates and who published them. */
export interface StoredRateDay extends RateDay {
  source: string;
}
