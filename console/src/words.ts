/**
 * The console's words for the API's enums (pure, no DOM): date presets, metrics, steps, chart types
 * and visibility, and a month bucket as "May 2026". The API keeps its codes; only the page says
 * them in words (the `<option value>` stays the code, so a saved view and a link are unchanged).
 */

/** Date presets as a user says them (docs/warehouse.md, "Date presets", for what each covers). */
const PRESET_WORDS: Record<string, string> = {
  TRAILING_90_DAYS: 'Last 90 days',
  TRAILING_30_DAYS: 'Last 30 days',
  TRAILING_45_DAYS: 'Last 45 days',
  TRAILING_7_DAYS: 'Last 7 days',
  TRAILING_3_DAYS: 'Last 3 days',
  TRAILING_1_DAYS: 'Today',
  TRAILING_14_WEEKS: 'Last 14 weeks',
  MTD: 'Month to date',
  QTD: 'Quarter to date',
  YTD: 'Year to date',
  CURRENT_MONTH: 'This month',
  CURRENT_QUARTER: 'This quarter',
  CURRENT_YEAR: 'This year',
  LAST_WEEK: 'Last week',
  LAST_MONTH: 'Last month',
  LAST_6_MONTHS: 'Last 6 whole months',
  LAST_12_MONTHS: 'Last 12 whole months',
  LAST_4_YEARS: 'Last 4 whole years',
  LAST_3_MONTHS: 'Last 3 whole months',
  LAST_INVOICE_MONTH: 'Last invoice month',
};

/** A code as a sentence: `net_amortized_cost` → "Net amortized cost", `SOME_CODE` → "Some code". */
export function sentenceCase(code: string): string {
  const text = code.replace(/[_-]+/g, ' ').trim().toLowerCase();
  return text ? text[0]!.toUpperCase() + text.slice(1) : code;
}

export function presetWords(preset: string): string {
  return PRESET_WORDS[preset] ?? sentenceCase(preset);
}

/** `cost` → "Cost", `net_amortized_cost` → "Net amortized cost". */
export function metricWords(metricId: string): string {
  return sentenceCase(metricId);
}

const AGG_WORDS: Record<string, string> = {
  Day: 'By day',
  Week: 'By week',
  Month: 'By month',
  Period: 'Whole period',
};
export function aggWords(aggBy: string): string {
  return AGG_WORDS[aggBy] ?? aggBy;
}

const CHART_WORDS: Record<string, string> = {
  BAR: 'Bars',
  LINE: 'Lines',
  AREA: 'Areas',
  WATERFALL: 'Waterfall',
  TABLE: 'Table',
};
export function chartWords(chartType: string): string {
  return CHART_WORDS[chartType] ?? sentenceCase(chartType);
}

/** `PUBLIC` → "Public" (dashboards' and reports' visibility). */
export function visibilityWords(type: string): string {
  return sentenceCase(type);
}

const METHOD_WORDS: Record<string, string> = {
  ets: 'exponential smoothing',
  theta: 'Theta method',
  'ets-theta': 'exponential smoothing and Theta, averaged',
  'seasonal-naive': 'same weekday of last week',
  'weekday-mean': 'mean of the same weekday over 4 weeks',
};
/** A forecast's method (docs/forecasting.md) as a user reads it. */
export function forecastMethodWords(method: string): string {
  return METHOD_WORDS[method] ?? sentenceCase(method);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A month bucket's start (`2026-05-01`) as "May 2026"; any other text unchanged. */
export function monthLabel(date: string): string {
  const m = /^(\d{4})-(\d{2})-01$/.exec(date);
  return m ? `${MONTHS[Number(m[2]) - 1]} ${m[1]}` : date;
}
