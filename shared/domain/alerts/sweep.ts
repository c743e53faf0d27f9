import type { StoredAlert } from '../../model/alerts';
import { mapSettled } from '../../pool';
import { type EvaluationMessage, MAX_ALERTS_PER_MESSAGE } from './evaluator';
import type { DueAlertIndex, DueIndex, DueRecord, Enqueue } from './ports';
import { nextEvaluationAt } from './schedule';
import { seriesGroupKey } from './series-source';

/** Due-index page size of the sweep: one transaction (at most 100 items) moves a page's alerts. */
const SWEEP_PAGE = 100;

export interface SweepDeps {
  index: DueAlertIndex;
  /** Sends evaluation messages on `alert-evaluation`. */
  send: Enqueue<EvaluationMessage>;
}

/**
 * One kind of alert the sweep takes off its own due index (cost alerts; budget alerts,
 * `budgets/alerts/sweep.ts`): one algorithm for every kind, so paging, the transactional move and
 * the hand-back of a refused message are written once.
 */
export interface SweepKind<A extends DueRecord, M> {
  index: DueIndex<A>;
  send: Enqueue<M>;
  /** When a taken alert is next due, for a sweep at `now`. */
  next(alert: A, now: Date): string;
  /** Taken alerts with the same key go out together (what they read), `perMessage` a message. */
  groupKey(alert: A): string;
  perMessage: number;
  message(orgId: string, alertIds: string[], scheduledFor: string): M;
  /**
   * True: a snoozed alert is moved on (conditional on that snooze) and not sent. False: it is sent
   * like the others and its evaluator records it without notifying.
   */
  skipSnoozed: boolean;
}

/** The cost alerts' kind: grouped by the series they read, moved on by their evaluation period. */
export function costAlertKind(deps: SweepDeps): SweepKind<StoredAlert, EvaluationMessage> {
  return {
    ...deps,
    next: (alert, now) => nextEvaluationAt(alert.evaluationPeriod, now),
    groupKey: seriesGroupKey,
    perMessage: MAX_ALERTS_PER_MESSAGE,
    message: (orgId, alertIds, scheduledFor) => ({ orgId, alertIds, scheduledFor }),
    skipSnoozed: true,
  };
}

export interface SweepOutcome {
  enqueued: number;
  snoozed: number;
  messages: number;
}

type Taken = { alertId: string; was: string; next: string };
type Group = { orgId: string; taken: Taken[] };

/** One sweep's state: the groups filling, the full ones waiting to be sent, the counts. */
class Sweep<A extends DueRecord, M> {
  readonly groups = new Map<string, Group>();
  readonly full: Group[] = [];
  readonly out: SweepOutcome = { enqueued: 0, snoozed: 0, messages: 0 };
  constructor(
    readonly now: Date,
    readonly kind: SweepKind<A, M>,
    readonly only: (orgId: string) => boolean,
  ) {}

  get at(): string {
    return this.now.toISOString();
  }

  /** Files a taken alert under what it reads; a group reaching the message size is full. */
  take(alert: A, next: string): void {
    const key = this.kind.groupKey(alert);
    let g = this.groups.get(key);
    if (!g) {
      g = { orgId: alert.organizationId, taken: [] };
      this.groups.set(key, g);
    }
    g.taken.push({ alertId: alert.id, was: alert.nextEvalAt as string, next });
    if (g.taken.length >= this.kind.perMessage) {
      this.groups.delete(key);
      this.full.push(g);
    }
  }

  /** Sends groups as messages; a refused message moves its alerts back and fails the sweep. */
  async flush(batch: readonly Group[]): Promise<void> {
    if (!batch.length) return;
    const results = await this.kind.send(
      batch.map((g) =>
        this.kind.message(
          g.orgId,
          g.taken.map((t) => t.alertId),
          this.at,
        ),
      ),
    );
    let firstError: Error | null = null;
    await mapSettled(batch, 1, async (g, i) => {
      const error = results[i];
      if (!error) {
        this.out.enqueued += g.taken.length;
        this.out.messages++;
        return;
      }
      firstError ??= error;
      // Back for the next sweep (conditional on still being where this sweep put them).
      for (let k = 0; k < g.taken.length; k += SWEEP_PAGE)
        await this.kind.index
          .advance(
            g.taken
              .slice(k, k + SWEEP_PAGE)
              .map((t) => ({ orgId: g.orgId, alertId: t.alertId, from: t.next, to: t.was })),
          )
          .catch(() => undefined);
    });
    if (firstError) throw firstError;
  }

  /** Moves one page's due alerts on in one transaction and takes those this sweep moved. */
  async page(items: readonly A[]): Promise<void> {
    const { now, kind } = this;
    const plans = items
      .filter((a) => this.only(a.organizationId) && !a.archivedAt && a.nextEvalAt)
      .map((alert) => ({
        alert,
        next: kind.next(alert, now),
        snoozedUntil:
          kind.skipSnoozed && alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime()
            ? alert.snoozedUntil
            : null,
      }));
    const moved = await kind.index.advance(
      plans.map((p) => ({
        orgId: p.alert.organizationId,
        alertId: p.alert.id,
        from: p.alert.nextEvalAt as string,
        to: p.next,
        ...(p.snoozedUntil ? { snoozedUntil: p.snoozedUntil } : {}),
      })),
    );
    plans.forEach(({ alert, next, snoozedUntil }, i) => {
      if (!moved[i]) return;
      if (snoozedUntil) this.out.snoozed++;
      else this.take(alert, next);
    });
  }

  /** Every page of one shard; the next page is read while this one's transaction runs. */
  async shard(shard: number): Promise<void> {
    const { index } = this.kind;
    let reading: ReturnType<DueIndex<A>['due']> | undefined = index.due(shard, this.at, SWEEP_PAGE);
    while (reading) {
      const page: Awaited<ReturnType<DueIndex<A>['due']>> = await reading;
      // Moved alerts leave the range read, so the next page is read at once.
      reading = page.next ? index.due(shard, this.at, SWEEP_PAGE, page.next) : undefined;
      reading?.catch(() => undefined); // awaited on the next turn
      await this.page(page.items);
      // Full messages go out as they fill (10 a call), so a large sweep sends while it reads.
      if (this.full.length >= 10) await this.flush(this.full.splice(0));
    }
  }
}

/**
 * The sweep of one kind: every shard of its due index up to `now` (shards in parallel), page by
 * page, the next page read while this one's alerts move. The index carries the whole records, so a
 * page needs no further read. Each due alert's `nextEvalAt` is moved on with a conditional write (a
 * page's writes in one transaction, `DueIndex.advance`), so of two concurrent sweeps exactly one
 * takes an alert for a due slot, and only the one that moved it enqueues it. With `skipSnoozed`, a
 * snoozed alert is moved on and skipped (conditional on the snooze it was read with); the others
 * are grouped by `groupKey` into messages of at most `perMessage` alerts, sent with
 * SendMessageBatch, so one evaluator invocation reads each distinct query set once. A message SQS
 * refuses moves its alerts' `nextEvalAt` back for the next sweep and fails the sweep. `enqueued`
 * counts alerts, `messages` the messages sent.
 */
export async function sweepDue<A extends DueRecord, M>(
  now: Date,
  kind: SweepKind<A, M>,
  only: (orgId: string) => boolean = () => true,
): Promise<SweepOutcome> {
  const sweep = new Sweep(now, kind, only);
  const shards = await mapSettled(
    Array.from({ length: kind.index.shards }, (_, i) => i),
    kind.index.shards,
    (shard) => sweep.shard(shard),
  );
  await sweep.flush([...sweep.full.splice(0), ...sweep.groups.values()]);
  const failed = shards.find((s) => !s.ok);
  if (failed && !failed.ok) throw failed.error;
  return sweep.out;
}

/** The cost alerts' sweep (`sweepDue` of `costAlertKind`). */
export function sweepDueAlerts(
  now: Date,
  deps: SweepDeps,
  only: (orgId: string) => boolean = () => true,
): Promise<SweepOutcome> {
  return sweepDue(now, costAlertKind(deps), only);
}
