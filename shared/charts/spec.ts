/**
 * The chart-spec builder: series as the query engine answers them → an ECharts option (BAR, LINE,
 * AREA, WATERFALL) or a table (TABLE). Pure: no Node, AWS or DOM import, so the server (which
 * rasterises the option to PNG) and a web console draw the same chart from the same input.
 *
 * Display options (the explorer's `displayOptions`): `hideEmptyRows` drops series without a
 * non-zero figure; `topN` keeps the N largest series by |total| and sums the rest into one
 * `Other` series; `showTotal` (default on) adds the total to the subtitle and a total row to a
 * table; `precision` is the number of decimals of every figure (default: 2).
 */

import { echartsSpec } from './echarts';
import type { ChartInput, ChartSpec } from './model';
import { shapeSeries } from './series';
import { tableSpec } from './table';

// The chart builder's public face: the console and the server import the builder and its types from here.
export { LEGEND_MAX_CHARS, wrapWords } from './echarts';
export {
  chartInputOf,
  type EngineAnswer,
  type EngineQuery,
  seriesFromQueries,
  widgetChartType,
} from './engine-answer';
export { formatAxis, formatFigure, stampLines } from './figures';
export * from './model';
export { currencyTotals, grandTotal, shapeSeries, totalLine } from './series';
export { TABLE_MAX_BUCKET_COLUMNS } from './table';

/**
 * Builds the spec of one chart. Series are drawn in the order given (the engine's: largest first);
 * WATERFALL draws each series' total as a step from the running sum, then the total bar.
 */
export function buildChartSpec(input: ChartInput): ChartSpec {
  const opts = input.displayOptions ?? {};
  const precision = opts.precision ?? 2;
  const showTotal = opts.showTotal !== false;
  const series = shapeSeries(input.series, opts);
  if (input.chartType === 'TABLE') return tableSpec(input, series, precision, showTotal);
  return echartsSpec(input, series, precision, showTotal);
}
