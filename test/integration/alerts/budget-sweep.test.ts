import { getBudgetAlert } from '../../../shared/db/budget-alerts-repo';
import { ensureOrganization } from '../../../shared/db/organizations-repo';
import { dueBudgetAlertIndex } from '../../../shared/domain/alerts/adapters/sweep';
import type { DueIndex, Enqueue } from '../../../shared/domain/alerts/ports';
import { sweepDue } from '../../../shared/domain/alerts/sweep';
import type { BudgetEvaluationMessage } from '../../../shared/domain/budgets/alerts/evaluate';
import { BudgetAlertBody } from '../../../shared/domain/budgets/alerts/schemas';
import { createBudgetAlert } from '../../../shared/domain/budgets/alerts/service';
import { budgetAlertKind } from '../../../shared/domain/budgets/alerts/sweep';
import { BudgetBody } from '../../../shared/domain/budgets/schemas';
import { createBudget } from '../../../shared/domain/budgets/service';
import type { StoredBudgetAlert } from '../../../shared/model/budget-alerts';
import { mapLimit } from '../../../shared/pool';
import { parseOrThrow } from '../../../shared/validation';
import { adminOf } from '../../support/principals';
import { collectingQueue } from '../../support/sqs';

/**
 * The budget alerts are a second kind of the alert sweep (`sweepDue`): their due index is read page
 * by page while the alerts of each page move on, so a sweep must find every due alert however many
 * pages a shard holds. The index here reads 7 items a page (the sweep asks 100), so each of the
 * four shards holds several pages of the 90 alerts, against DynamoDB Local.
 */
const run = Math.random().toString(36).slice(2, 8);
const owner = (orgId: string) => adminOf(orgId, 'user_a');
const SMALL_PAGES: DueIndex<StoredBudgetAlert> = {
  ...dueBudgetAlertIndex,
  due: (shard, at, _limit, cursor) => dueBudgetAlertIndex.due(shard, at, 7, cursor),
};

async function alertsOf(orgId: string, n: number, at: Date): Promise<string[]> {
  await ensureOrganization({ id: orgId, name: 'budget sweep', timezone: 'UTC', createdAt: at.toISOString() });
  const budget = await createBudget(
    owner(orgId),
    parseOrThrow(
      BudgetBody,
      {
        name: 'cloud',
        currency: 'USD',
        startMonth: '2026-11',
        groupBy: null,
        lines: [{ value: null, owner: 'a@example.com', amounts: { '2026-11': 1000 } }],
      },
      'plain',
      'body',
    ),
  );
  return mapLimit(
    Array.from({ length: n }, (_, i) => i),
    8,
    async (i) =>
      (
        await createBudgetAlert(
          owner(orgId),
          parseOrThrow(
            BudgetAlertBody,
            {
              name: `watch ${i}`,
              budgetId: budget.id,
              thresholds: [{ value: 80 }],
              notificationChannel: 'EMAIL',
              emails: ['a@example.com'],
            },
            'plain',
            'body',
          ),
          at,
        )
      ).id,
  );
}

/** The sweeps' time: half an hour after the alerts were created (05:00), all due at once. */
const NOW = new Date('2026-11-21T05:30:00Z');

/**
 * An organisation of `n` due budget alerts (`org_<prefix><run>`), and a sweep of its alone (the
 * index read in pages of 7) at `at` (NOW unless given), sending with `send`.
 */
async function dueOrg(prefix: string, n: number) {
  const orgId = `org_${prefix}${run}`;
  const ids = await alertsOf(orgId, n, new Date('2026-11-21T05:00:00Z'));
  const sweep = (send: Enqueue<BudgetEvaluationMessage>, at = NOW) =>
    sweepDue(at, budgetAlertKind({ index: SMALL_PAGES, send }), (o) => o === orgId);
  return { orgId, ids, sweep };
}

describe('the budget alerts in the shared sweep', () => {
  test('two concurrent sweeps over 90 due alerts in pages of 7 enqueue each exactly once, 25 a message', async () => {
    const { orgId, ids, sweep } = await dueOrg('bsweep', 90);
    const a: BudgetEvaluationMessage[] = [];
    const b: BudgetEvaluationMessage[] = [];
    const [ra, rb] = await Promise.all([sweep(collectingQueue(a)), sweep(collectingQueue(b))]);
    const sent = [...a, ...b].flatMap((m) => m.budgetAlertIds);
    expect(sent.sort()).toEqual([...ids].sort());
    expect(ra.enqueued + rb.enqueued).toBe(90);
    for (const m of [...a, ...b]) {
      expect(m).toMatchObject({ kind: 'budget', orgId, scheduledFor: NOW.toISOString() });
      expect(m.budgetAlertIds.length).toBeLessThanOrEqual(25);
    }
    // Every alert moved on to the next 06:00 UTC, and a third sweep finds none due.
    for (const id of ids.slice(0, 5))
      expect((await getBudgetAlert(orgId, id))?.nextEvalAt).toBe('2026-11-21T06:00:00.000Z');
    const third = await sweep(collectingQueue<BudgetEvaluationMessage>([]));
    expect(third.enqueued).toBe(0);
    // At the next slot each is due again, once.
    const next: BudgetEvaluationMessage[] = [];
    const later = await sweep(collectingQueue(next), new Date('2026-11-21T06:00:00Z'));
    expect(later.enqueued).toBe(90);
    expect(new Set(next.flatMap((m) => m.budgetAlertIds)).size).toBe(90);
  });

  test('a message SQS refuses puts its alerts back for the next sweep', async () => {
    const { ids, sweep } = await dueOrg('brefuse', 30);
    let refused: string[] = [];
    await expect(
      sweep(async (ms) => {
        refused = ms.at(-1)!.budgetAlertIds;
        return ms.map((_, i) => (i === ms.length - 1 ? new Error('refused') : null));
      }),
    ).rejects.toThrow('refused');
    expect(refused.length).toBeGreaterThan(0);
    const again: BudgetEvaluationMessage[] = [];
    const retry = await sweep(collectingQueue(again));
    expect(retry.enqueued).toBe(refused.length);
    expect(again.flatMap((m) => m.budgetAlertIds).sort()).toEqual([...refused].sort());
    for (const id of refused) expect(ids).toContain(id);
  });
});
