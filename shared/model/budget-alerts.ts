import type { AlertChannel, RootCauses, SeverityLevel } from './alerts';

/**
 * Budget alerts (issue 28, docs/budgets.md): thresholds on a budget's month, per line or in total,
 * against the actual to date or the month-end forecast, notified by e-mail, Slack or Teams.
 */
export const BUDGET_METRIC_MODES = ['ABSOLUTE_SPEND', 'PERCENTAGE_OF_BUDGET'] as const;
export type BudgetMetricMode = (typeof BUDGET_METRIC_MODES)[number];
export const BUDGET_BASES = ['ACTUAL', 'FORECASTED'] as const;
export type BudgetBasis = (typeof BUDGET_BASES)[number];

/** `line` of a budget alert that evaluates each of the budget's lines separately. */
export const EACH_LINE = '*';

export interface BudgetAlertThreshold {
  id: string;
  /** The alert's id (the spec's field on every threshold). */
  budgetAlertId: string;
  /** Always null: a budget alert's threshold belongs to no cost alert. */
  costAlertId: null;
  value: number;
  severityLevel: SeverityLevel;
  metricMode: BudgetMetricMode;
  basis: BudgetBasis;
}

/** The record as it is answered. */
export interface BudgetAlert {
  id: string;
  organizationId: string;
  createdById: string;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
  snoozedUntil: string | null;
  name: string;
  budgetId: string;
  /** A line's value; null: the budget total; `*`: each line separately. */
  line: string | null;
  thresholds: BudgetAlertThreshold[];
  notificationChannel: AlertChannel;
  emails: string[];
  slackChannelId: string | null;
  teamsChannelId: string | null;
}

/** What is stored: the record plus the optimistic-lock version and the due time. */
export interface StoredBudgetAlert extends BudgetAlert {
  version: number;
  /** Next time the sweep enqueues it; null while archived. */
  nextEvalAt: string | null;
}

export function toBudgetAlertRecord(a: StoredBudgetAlert): BudgetAlert {
  const { version: _v, nextEvalAt: _n, ...record } = a;
  return record;
}

/** One threshold of one line as an evaluation saw it. */
export interface BudgetThresholdCheck {
  thresholdId: string;
  line: string | null;
  basis: BudgetBasis;
  /** The threshold in the budget's currency (a percentage of the line's budget made an amount). */
  amount: number;
  /** The actual to date (ACTUAL) or the month-end forecast (FORECASTED) it was compared with. */
  measured: number | null;
  crossed: boolean;
  /** The notification it sent; null when it did not fire or had fired already this month. */
  notificationId: string | null;
  /** Why a crossed threshold sent nothing: it fired already this month, or the alert is snoozed. */
  suppressedBy: 'FIRED' | 'SNOOZE' | null;
  /** The line's root causes when this check sent its notification (as in the message). */
  rootCauses?: RootCauses | null;
}

/** One evaluation of a budget alert, as `GET …/history` answers it (kept 90 days). */
export interface BudgetAlertEvaluation {
  alertId: string;
  evaluatedAt: string;
  budgetVersionId: string;
  month: string;
  dataThrough: string | null;
  checks: BudgetThresholdCheck[];
  triggered: boolean;
  /** The root causes of the first notification this evaluation sent (cost alerts' `rootCauses` shape); null when none. */
  rootCauses?: RootCauses | null;
}
