/** What a converted answer states: docs/currency.md. */
export interface ConversionOut {
  /** The billing currencies converted. */
  from: string[];
  /** The currency of the figures. */
  to: string;
  /** Who published the rates (e.g. `European Central Bank`). */
  source: string | null;
  /** First and last publication day of the rates applied to days holding data. */
  rates: { from: string; to: string } | null;
}
