import { stampLines } from './figures';
import {
  CHART_TYPES,
  type ChartDisplayOptions,
  type ChartInput,
  type ChartPoint,
  type ChartSeries,
  type ChartStamp,
  type ChartType,
} from './model';
import { OTHER } from './series';

// The builder's input from the query engine's answer (the explorer's, a dashboard widget's).

/** The shape of an engine answer the builder reads (structurally `QueryOut[]` of the explorer). */
export interface EngineQuery {
  name: string;
  alias: string | null;
  unit: string | null;
  currency: string | null;
  series: {
    group: Record<string, string | null>;
    points: ChartPoint[];
    total: number | null;
    other?: true;
  }[];
}

/**
 * Labels every series of the engine's queries: the group values (`(none)` for a missing value,
 * `Other` for the summed rest) joined by ` / `, prefixed by the query's alias or name when there
 * are several queries; a query without group-by is named by its alias or name.
 */
export function seriesFromQueries(queries: readonly EngineQuery[]): ChartSeries[] {
  const several = queries.length > 1;
  return queries.flatMap((q) =>
    q.series.map((s) => {
      const label = q.alias ?? q.name;
      const groups = Object.values(s.group);
      const group = s.other ? OTHER : groups.map((g) => g ?? '(none)').join(' / ');
      const name = !groups.length && !s.other ? label : several ? `${label}: ${group}` : group;
      const currency = q.currency === null ? s.group.BillingCurrency : undefined;
      return {
        name,
        points: s.points.map((p) => ({ date: p.date, value: p.value })),
        total: s.total,
        ...(s.other ? { other: true as const } : {}),
        ...(currency ? { currency } : {}),
      };
    }),
  );
}

/** The part of an engine answer a chart reads (structurally the explorer's answer). */
export interface EngineAnswer {
  period: { startDate: string; endDate: string };
  comparison?: { period: { startDate: string; endDate: string } } | null;
  dataThrough: string | null;
  currency: string | null;
  conversion?: ChartStamp['conversion'];
  queries: readonly EngineQuery[];
}

/**
 * A saved widget's chart type: its first visible query's (the explorer draws per query), `BAR` when
 * it has none; a type the builder cannot draw is shown as a table.
 */
export function widgetChartType(queries: readonly { visible?: boolean; chartType?: string }[]): ChartType {
  const q = queries.find((x) => x.visible !== false) ?? queries[0];
  const t = q?.chartType ?? 'BAR';
  return (CHART_TYPES as readonly string[]).includes(t) ? (t as ChartType) : 'TABLE';
}

/** The builder's input from an engine answer: series labels, currency, unit and stamp. */
export function chartInputOf(
  r: EngineAnswer,
  o: {
    title: string;
    chartType: ChartType;
    displayOptions?: ChartDisplayOptions | undefined;
    requestedCurrency?: string | null;
  },
): ChartInput {
  const units = [...new Set(r.queries.map((q) => q.unit).filter((u): u is string => !!u))];
  return {
    title: o.title,
    chartType: o.chartType,
    series: seriesFromQueries(r.queries),
    currency: r.queries.every((q) => q.currency === null) ? null : r.currency,
    unit: units.length === 1 ? units[0]! : null,
    displayOptions: o.displayOptions,
    stamp: stampLines({
      period: r.period,
      comparisonPeriod: r.comparison?.period ?? null,
      dataThrough: r.dataThrough,
      currency: r.currency,
      requestedCurrency: o.requestedCurrency ?? null,
      conversion: r.conversion ?? null,
    }),
    dataThrough: r.dataThrough,
  };
}
