import type { Principal } from '../../../auth/principal';
import type { ChartInput } from '../../../charts/spec';
import type { Dashboard } from '../../../model/dashboards';
import type { ReportContextValue } from '../../../model/report-schemas';
import type { BudgetsOverview } from '../../budgets/digest';
import type { Expiring } from '../../commitments/expiring';
import type { ExplorerResult, PeriodOut } from '../../queries/model';

/** What a report's widgets are rendered for: its organisation and context at the run's time (`renderWidget`). */
export interface RenderContext {
  orgId: string;
  context: ReportContextValue;
  /** The run's scheduled time: date presets resolve against it. */
  now: Date;
  timeZone: string;
  /**
   * Who reads the dashboards a GRAPH_SNAPSHOT or DASHBOARD_PDF names: the caller of a preview; a
   * scheduled delivery reads them as its organisation (`orgReader`).
   */
  viewer?: Principal;
  /** Reads a dashboard with its widgets, null when it does not exist or is not visible. */
  dashboards?: (dashboardId: string) => Promise<Dashboard | null>;
  /**
   * The organisation's reporting currency: the currency of the figures when neither the context
   * nor a query asks one. Read from the organisation when not given.
   */
  reportingCurrency?: string;
  /** The DIGESTs' daily cost histories read in this run, by query, currency and days (see `monthForecast`). */
  histories?: Map<string, Promise<ExplorerResult>>;
}

/** One chart of a report: what it draws (`chart`) and the period and cut-off it states. */
export type ChartData = PeriodInfo & {
  /** The dashboard widget's key, or null for a chart of the report's own context. */
  key: string | null;
  chart: ChartInput;
};

export interface Change {
  /** The group values from the root down to this node (dimension → value). */
  group: Record<string, string | null>;
  dimension: string;
  value: string | null;
  current: number;
  previous: number;
  diff: number;
  /** Percent change; null when the previous figure is 0. */
  relativeDiff: number | null;
  /** Both thresholds met: a mover. */
  highlighted: boolean;
  children: Change[];
}

export interface PeriodInfo {
  period: PeriodOut;
  comparisonPeriod: PeriodOut | null;
  dataThrough: string | null;
  /** The currency the figures are in: the context's (converted), else the billing currency. */
  currency: string | null;
  requestedCurrency: string | null;
  /** The conversion applied to the figures, if any (docs/currency.md). */
  conversion: ExplorerResult['conversion'];
}

export interface Totals {
  current: number;
  previous: number;
  diff: number;
  relativeDiff: number | null;
}

/**
 * The DIGEST's month-end forecast: the month holding the day after `dataThrough`, its actual days
 * plus the forecasting model's forecast of the rest, the 80 % interval on the whole month
 * (docs/reports.md).
 */
export interface MonthForecast {
  /** `YYYY-MM`. */
  month: string;
  value: number;
  lower80: number;
  upper80: number;
  /** Actual through this day. */
  dataThrough: string;
  method: string;
}

export type WidgetData =
  | { type: 'TEXT'; title: string | null; markdown: string; html: string; mrkdwn: string; text: string }
  | (PeriodInfo & {
      type: 'DIGEST';
      title: string | null;
      display: 'tree' | 'table' | 'summary';
      groupBy: string[];
      thresholds: { minAbsoluteDiff: number; minRelativeDiff: number; topLargestAbsoluteChange: number };
      totals: Totals;
      /** Every node, root level = the first group-by. */
      tree: Change[];
      /** The highlighted nodes with the largest absolute change, at most `topLargestAbsoluteChange`. */
      movers: Omit<Change, 'children'>[];
      summary: string;
      /** The month in progress, forecast to its end (null without billing data). */
      forecast: MonthForecast | null;
      /** The organisation's budget lines forecast over budget this month (null without budgets). */
      budgets: BudgetsOverview | null;
    })
  | (PeriodInfo & {
      type: 'TOP_FLOP';
      title: string | null;
      groupBy: string;
      totals: Totals;
      increases: Omit<Change, 'children'>[];
      decreases: Omit<Change, 'children'>[];
    })
  | (ChartData & { type: 'GRAPH_SNAPSHOT'; title: string | null; rendered: true })
  | {
      type: 'DASHBOARD_PDF';
      title: string | null;
      rendered: true;
      dashboardId: string;
      dashboardName: string;
      /** The dashboard's widgets in reading order (top to bottom, left to right). */
      charts: ChartData[];
    }
  | {
      type: 'GRAPH_SNAPSHOT' | 'DASHBOARD_PDF';
      title: string | null;
      rendered: false;
      reason: string;
    }
  | CommitmentsWidgetData;

export interface CommitmentFiguresOut {
  /** Ratios (0.8 = 80 %) of the period's sums; null without commitment cost (or eligible usage). */
  utilization: number | null;
  coverage: number | null;
  effectiveSavingsRate: number | null;
  /** Amounts in `currency`. */
  unusedCost: number;
  savings: number;
}

export type CommitmentsWidgetData = ChartData &
  PeriodInfo & {
    type: 'COMMITMENTS';
    title: string | null;
    rendered: true;
    figures: CommitmentFiguresOut;
    withinDays: number;
    expiring: Pick<Expiring['items'][number], 'id' | 'name' | 'provider' | 'type' | 'end' | 'daysLeft'>[];
  };
