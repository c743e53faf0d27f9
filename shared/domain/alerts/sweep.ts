import type { StoredAlert } from '../../model/alerts';
import { mapSettled } from '../../pool';
import { type EvaluationMessage, MAX_ALERTS_PER_MESSAGE } from './evaluator';
import type { DueAlertIndex, Enqueue } from './ports';
import { nextEvaluationAt } from './schedule';
import { seriesGroupKey } from './series-source';

/** Due-index page size of the sweep: one transaction (at most 100 items) moves a page's alerts. */
const SWEEP_PAGE = 100;

export interface SweepDeps {
  index: DueAlertIndex;
  /** Sends evaluation messages on `alert-evaluation`. */
  send: Enqueue<EvaluationMessage>;
}

export interface SweepOutcome {
  enqueued: number;
  snoozed: number;
  messages: number;
}

type Taken = { alertId: string; was: string; next: string };
type Group = { orgId: string; taken: Taken[] };

/** One sweep's state: the groups filling, the full ones waiting to be sent, the counts. */
class Sweep {
  readonly groups = new Map<string, Group>();
  readonly full: Group[] = [];
  readonly out: SweepOutcome = { enqueued: 0, snoozed: 0, messages: 0 };
  constructor(
    readonly now: Date,
    readonly deps: SweepDeps,
    readonly only: (orgId: string) => boolean,
  ) {}

  get at(): string {
    return this.now.toISOString();
  }

  /** Files a taken alert under what it reads; a group reaching the message size is full. */
  take(alert: StoredAlert, next: string): void {
    const key = seriesGroupKey(alert);
    let g = this.groups.get(key);
    if (!g) {
      g = { orgId: alert.organizationId, taken: [] };
      this.groups.set(key, g);
    }
    g.taken.push({ alertId: alert.id, was: alert.nextEvalAt as string, next });
    if (g.taken.length >= MAX_ALERTS_PER_MESSAGE) {
      this.groups.delete(key);
      this.full.push(g);
    }
  }

  /** Sends groups as messages; a refused message moves its alerts back and fails the sweep. */
  async flush(batch: readonly Group[]): Promise<void> {
    if (!batch.length) return;
    const results = await this.deps.send(
      batch.map((g) => ({ orgId: g.orgId, alertIds: g.taken.map((t) => t.alertId), scheduledFor: this.at })),
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
        await this.deps.index
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
  async page(items: readonly StoredAlert[]): Promise<void> {
    const { now } = this;
    const plans = items
      .filter((a) => this.only(a.organizationId) && !a.archivedAt && a.nextEvalAt)
      .map((alert) => ({
        alert,
        next: nextEvaluationAt(alert.evaluationPeriod, now),
        snoozedUntil:
          alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime() ? alert.snoozedUntil : null,
      }));
    const moved = await this.deps.index.advance(
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
    const { index } = this.deps;
    let reading: ReturnType<DueAlertIndex['due']> | undefined = index.due(shard, this.at, SWEEP_PAGE);
    while (reading) {
      const page: Awaited<ReturnType<DueAlertIndex['due']>> = await reading;
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
 * The sweep: every shard of the due index up to `now` (shards in parallel), page by page. The
 * index carries the whole alert records, so a page needs no further read. Each due alert's
 * `nextEvalAt` is moved on with a conditional write (a page's writes in one transaction,
 * `DueAlertIndex.advance`), so of two concurrent sweeps exactly one takes an alert for a due slot,
 * and only the one that moved it enqueues it. A snoozed alert is moved on and skipped (conditional
 * on the snooze it was read with); the others are grouped by what they read (`seriesGroupKey`) into
 * messages of at most `MAX_ALERTS_PER_MESSAGE` alerts, sent with SendMessageBatch, so one evaluator
 * invocation reads each distinct query set once. A message SQS refuses moves its alerts'
 * `nextEvalAt` back for the next sweep and fails the sweep. `enqueued` counts alerts, `messages`
 * the messages sent.
 */
export async function sweepDueAlerts(
  now: Date,
  deps: SweepDeps,
  only: (orgId: string) => boolean = () => true,
): Promise<SweepOutcome> {
  const sweep = new Sweep(now, deps, only);
  const shards = await mapSettled(
    Array.from({ length: deps.index.shards }, (_, i) => i),
    deps.index.shards,
    (shard) => sweep.shard(shard),
  );
  await sweep.flush([...sweep.full.splice(0), ...sweep.groups.values()]);
  const failed = shards.find((s) => !s.ok);
  if (failed && !failed.ok) throw failed.error;
  return sweep.out;
}
