import type {
  AlertEvaluation,
  AlertThreshold,
  DedupRule,
  NextEvalMove,
  RootCauses,
  StoredAlert,
} from '../../model/alerts';
import type { Notification } from './notification';

/**
 * The ports of the alert workers (docs/architecture.md, "Dependencies of the domain"): what the
 * evaluator, the sweep and the delivery need from storage, queues and the warehouse, declared here
 * as interfaces. The adapters (DynamoDB repositories, SQS, the query engine) are built in
 * `adapters/` and passed in by the worker that runs them; a test or the bench passes its own.
 */

/** Sends items on a queue (SendMessageBatch): per item, in order, null when it is on the queue or the error. */
export type Enqueue<T> = (items: readonly T[]) => Promise<(Error | null)[]>;

/** The evaluator's storage: alert records, thresholds, the dedup state and the evaluation history. */
export interface EvaluationStore {
  /** The alerts of one organisation by id (absent ids are missing from the map). */
  getAlerts(orgId: string, alertIds: readonly string[]): Promise<Map<string, StoredAlert>>;
  /** Thresholds of alerts stored before each carried a copy (`evalThresholds`). */
  getThresholdsOf(
    orgId: string,
    alertIds: readonly string[],
    concurrency: number,
  ): Promise<Map<string, AlertThreshold[]>>;
  /** The organisation's IANA timezone (calendar dedup). */
  organizationTimezone(orgId: string): Promise<string | undefined>;
  /** The dedup rule's conditional write: true when this evaluation may notify. */
  claimDedup(
    orgId: string,
    alertId: string,
    rule: DedupRule,
    evaluatedDay: string,
    notificationId: string,
    now: Date,
  ): Promise<boolean>;
  putEvaluations(orgId: string, evaluations: readonly AlertEvaluation[]): Promise<void>;
}

/** What the sweep reads of a due record (a cost alert, a budget alert). */
export interface DueRecord {
  id: string;
  organizationId: string;
  nextEvalAt?: string | null;
  archivedAt?: string | null;
  snoozedUntil?: string | null;
}

/** A sweep's storage: a sharded due index and the conditional moves of `nextEvalAt`. */
export interface DueIndex<A extends DueRecord> {
  /** Number of shards of the index (read in parallel). */
  readonly shards: number;
  /** One page of a shard's alerts due at or before `at`, whole records. */
  due(
    shard: number,
    at: string,
    limit: number,
    cursor?: Record<string, unknown>,
  ): Promise<{ items: A[]; next?: Record<string, unknown> }>;
  /** Moves up to 100 alerts in one transaction; per move, whether this call moved it. */
  advance(moves: readonly NextEvalMove[]): Promise<boolean[]>;
}

/** The cost alerts' due index. */
export type DueAlertIndex = DueIndex<StoredAlert>;

/** The notify worker's storage: the per-notification delivery record. */
export interface DeliveryStore {
  claim(
    orgId: string,
    id: string,
    now: Date,
    leaseSeconds: number,
  ): Promise<{ claimed: true } | { claimed: false; existing?: { status: string; leaseUntil: string } }>;
  finish(
    orgId: string,
    id: string,
    status: 'sent' | 'failed' | 'unknown',
    now: Date,
    error?: string,
  ): Promise<void>;
}

/**
 * The warehouse side of a firing's root causes (through the query engine): the top contributors
 * to the change of the alert's query between the evaluated period and its baseline, or null when
 * the alert has no cost query to break down.
 */
export interface RootCauseSource {
  explain(alert: StoredAlert, period: { start: string; end: string }, now: Date): Promise<RootCauses | null>;
}

export type { Notification };
