import type { ExplorerRequest, Query } from './query-model';

/**
 * Cost alerts. `CostAlert` is exactly the record of the spec ("Cost alert"): create, widget data,
 * list, update, archive and snooze answer these fields and no others. What the service keeps
 * beside it (version, schedule, the variant, the noise floor) is `StoredAlert`.
 */
export const ALERT_CHANNELS = ['EMAIL', 'SLACK', 'TEAMS'] as const;
export type AlertChannel = (typeof ALERT_CHANNELS)[number];
export const EVALUATION_PERIODS = ['DAILY', 'WEEKLY', 'MONTHLY'] as const;
export type EvaluationPeriod = (typeof EVALUATION_PERIODS)[number];
export const THRESHOLD_TYPES = ['ABOVE', 'UNDER'] as const;
export type ThresholdType = (typeof THRESHOLD_TYPES)[number];
export const DEDUP_KINDS = ['CALENDAR', 'ROLLING'] as const;
export type DedupKind = (typeof DEDUP_KINDS)[number];
export const CALENDAR_UNITS = ['WEEK', 'MONTH'] as const;
export type CalendarUnit = (typeof CALENDAR_UNITS)[number];
export const SEVERITY_LEVELS = ['INFO', 'WARNING', 'CRITICAL'] as const;
export type SeverityLevel = (typeof SEVERITY_LEVELS)[number];
/**
 * `ABSOLUTE_SPEND`: the period's spend is compared with `value` (legacy threshold alerts).
 * `PERIOD_CHANGE`: the change of the period's spend against the previous period of the same length
 * is compared with `value` (the third variant), in currency or in percent (`changeBasis`).
 */
export const METRIC_MODES = ['ABSOLUTE_SPEND', 'PERIOD_CHANGE'] as const;
export type MetricMode = (typeof METRIC_MODES)[number];
export const CHANGE_BASES = ['ABSOLUTE_DELTA', 'PERCENTAGE'] as const;
export type ChangeBasis = (typeof CHANGE_BASES)[number];

/** Default window of a ROLLING dedup when the body gives no `dedupWindowDays`. */
export const DEFAULT_DEDUP_WINDOW_DAYS = 7;

/**
 * Which of the three create variants an alert is (derived from the body, never sent), or
 * `COMMITMENT_EXPIRY`: an expiring-commitments alert (`/alerts-v2/commitmentAlerts`,
 * docs/commitments.md), evaluated by its own kind evaluator (`EvaluateDeps.kinds`).
 */
export type AlertVariant = 'CONDITION' | 'THRESHOLD' | 'PERIOD_CHANGE' | 'COMMITMENT_EXPIRY';

export interface CostAlert {
  id: string;
  organizationId: string;
  createdById: string;
  scopeId: string | null;
  createdAt: string;
  archivedAt: string | null;
  snoozedUntil: string | null;
  urlState: string;
  name: string;
  description: string;
  queryName: string;
  currency: 'USD' | 'EUR' | 'GBP' | 'CNY';
  queries: Query[];
  evaluationPeriod: EvaluationPeriod;
  thresholdType: ThresholdType;
  condition: string | null;
  conditionAdvancedExplorerQuery: ExplorerRequest;
  dedupKind: DedupKind | null;
  dedupCalendarUnit: CalendarUnit | null;
  dedupWindowDays: number | null;
  notificationChannel: AlertChannel;
  emails: string[];
  slackChannelId: string | null;
  teamsChannelId: string | null;
}

/** The record's fields in the spec's order: the API answers exactly these. */
export const COST_ALERT_FIELDS = [
  'id',
  'organizationId',
  'createdById',
  'scopeId',
  'createdAt',
  'archivedAt',
  'snoozedUntil',
  'urlState',
  'name',
  'description',
  'queryName',
  'currency',
  'queries',
  'evaluationPeriod',
  'thresholdType',
  'condition',
  'conditionAdvancedExplorerQuery',
  'dedupKind',
  'dedupCalendarUnit',
  'dedupWindowDays',
  'notificationChannel',
  'emails',
  'slackChannelId',
  'teamsChannelId',
] as const satisfies readonly (keyof CostAlert)[];

export interface AlertThreshold {
  id: string;
  costAlertId: string;
  /** The spec carries it on every threshold; cost alerts have no budget, so it is always null. */
  budgetAlertId: string | null;
  value: number;
  severityLevel: SeverityLevel;
  metricMode: MetricMode;
  changeBasis: ChangeBasis;
}

/** What is stored: the record plus the service's own fields (never answered). */
export interface StoredAlert extends CostAlert {
  variant: AlertVariant;
  /** Don't fire while the evaluated value is below this amount (currency); null: no floor. */
  minCost: number | null;
  tagIds: string[];
  updatedAt: string;
  version: number;
  /** Next time the sweep should enqueue it; null while archived. */
  nextEvalAt: string | null;
  /**
   * A copy of its thresholds, written with them in the same transaction, so the evaluator loads an
   * alert and its thresholds with one BatchGet. Absent on alerts stored before the copy existed
   * (their thresholds are queried).
   */
  evalThresholds?: AlertThreshold[];
  /** `COMMITMENT_EXPIRY` only: the days before a commitment's end it is announced (30, 60 or 90). */
  expiryWithinDays?: number;
}

export function toRecord(alert: CostAlert): CostAlert {
  const out: Record<string, unknown> = {};
  for (const field of COST_ALERT_FIELDS) out[field] = alert[field];
  return out as unknown as CostAlert;
}

/** One evaluation of an alert, as `GET …/history` answers it (kept 90 days). */
export interface AlertEvaluation {
  alertId: string;
  evaluatedAt: string;
  /** The last complete day the evaluation looked at (`YYYY-MM-DD`). */
  evaluatedDay: string;
  /** The evaluated values by query name (and `change`/`baseline` for the threshold variants). */
  values: Record<string, number | null>;
  triggered: boolean;
  /** Why a true evaluation sent nothing: dedup window, snooze, or below the noise floor. */
  suppressedBy: 'DEDUP' | 'SNOOZE' | 'MIN_COST' | null;
  notificationId: string | null;
  /**
   * The root causes the firing's message showed (root-causes.ts: the top contributors to the change
   * against the baseline), kept with the evaluation; null for an evaluation that sent no message,
   * when they could not be computed, and on evaluations recorded before they were kept (the history
   * answers null for those). Optional here only for the evaluators of other kinds, which have none.
   */
  rootCauses?: RootCauses | null;
}

export interface RootCause {
  /** The dimension value (several group-by values joined with " / "); `(no value)` for null, `Other` for the rest. */
  label: string;
  before: number;
  after: number;
  /** `after − before`, in the alert's currency. */
  change: number;
  /** The change against `before`, in percent; null when `before` is 0. */
  changePercent: number | null;
  /** This value's share of the total change, in percent (negative when it moved the other way); null when the total did not change. */
  share: number | null;
}

export interface RootCauses {
  /** The dimensions broken down by, joined with " / " (the alert query's own `groupBy`, else service / sub_account / region). */
  dimension: string;
  /** The query broken down (its alias, else its name). */
  query: string;
  /** The evaluated period and the baseline it is compared with (inclusive days). */
  period: { start: string; end: string };
  baseline: { start: string; end: string; label: string };
  before: number;
  after: number;
  change: number;
  /** The top contributors by absolute change, largest first. */
  top: RootCause[];
  /** The top contributors' share of the total change, in percent; null when the total did not change. */
  explained: number | null;
}

/**
 * Dedup rules (docs/alerts.md): CALENDAR WEEK/MONTH — at most one notification per calendar week
 * (ISO, Monday to Sunday) or month of the organisation's calendar: the window holding the
 * evaluation's local date (`localDay`: when the notification goes out, read in the organisation's
 * timezone, UTC when it has none); ROLLING — at most one per `dedupWindowDays` days of evaluated
 * billing days (a notification on day d blocks days d+1 … d+window−1); no dedup (threshold
 * variants) — at most one per evaluated day. The store applies the rule with one conditional write
 * (`claimDedup`).
 */
export type DedupRule =
  | { kind: 'WINDOW'; windowKey: string }
  | { kind: 'ROLLING' /** The latest previous notification day that no longer blocks. */; notAfter: string };

/**
 * A move of an alert's `nextEvalAt` (and its due-index key) from `from` to `to`: the sweep, when it
 * takes a due alert. Conditional on `from` and on the alert not being archived, so of two sweeps
 * (EventBridge delivers at least once) exactly one moves it; with `snoozedUntil`, also on the
 * snooze being still that one (the sweep skips a snoozed alert on what it read from the index).
 */
export interface NextEvalMove {
  orgId: string;
  alertId: string;
  from: string;
  to: string;
  /** Also conditional on the snooze being still this one. */
  snoozedUntil?: string;
}
