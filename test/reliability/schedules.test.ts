import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SQSBatchResponse } from 'aws-lambda';
import { scheduledEvent } from '../../infra/local/ticker';
import { resetQueueClient } from '../../shared/cloud/queue';
import { resetConfig } from '../../shared/config';
import { readRateDays } from '../../shared/db/fx-repo';
import { insertReport } from '../../shared/db/reports-repo';
import { getTeamOperation } from '../../shared/db/team-operations-repo';
import { ensureTeam, getTeamConsistent } from '../../shared/db/teams-repo';
import type { EvaluationMessage } from '../../shared/domain/alerts/evaluator';
import { loadRates } from '../../shared/domain/fx/service';
import type { DeliveryMessage } from '../../shared/domain/reports/delivery';
import { type ScheduleDef, schedules } from '../../shared/queues';
import {
  captureQueue,
  emailCount,
  emailReport,
  firingAlert,
  queueTeamDelete,
  reliabilitySuite,
  seedRecentBilling,
} from '../support/reliability';
import { sqsEventOf } from '../support/sqs';

/**
 * Issue 18, item 11 for schedules: every schedule of shared/queues.ts fired twice at once, then a
 * third time, still gives exactly one delivery or effect. Each tick names this test's organisation
 * (`detail.orgIds`, as `POST /_local/tick` does), so suites sharing the stack are not swept. What a
 * sweep enqueues goes to queues of this test, and is then run through the real workers.
 */

const { sqs, run, cleanups } = reliabilitySuite();

type Handler = (event: unknown, context?: unknown) => Promise<unknown>;
async function handlerOf(entry: string): Promise<Handler> {
  return ((await import(`../../functions/${entry}`)) as { handler: Handler }).handler;
}
const worker = async (entry: string, bodies: string[], queue: string) => {
  const res = (await (await handlerOf(entry))(sqsEventOf(bodies, queue))) as SQSBatchResponse;
  expect(res.batchItemFailures).toEqual([]);
};

/** Fires `def` twice at once at `now`, then once more; answers the three results. */
async function fireTwiceThenAgain(def: ScheduleDef, now: Date, orgId: string): Promise<unknown[]> {
  const handler = await handlerOf(def.entry);
  const tick = () => handler(scheduledEvent(def.name, now, { orgIds: [orgId] }));
  const both = await Promise.all([tick(), tick()]);
  return [...both, await tick()];
}

const cases: Record<string, (def: ScheduleDef) => Promise<void>> = {
  async 'alert-sweep'(def) {
    const orgId = `org_relas${run}`;
    const address = `rel-sweep-${run}@example.com`;
    await seedRecentBilling(orgId);
    const evaluations = await captureQueue(sqs, 'evaluations', 'QUEUE_URL_ALERT_EVALUATION', cleanups);
    const notifications = await captureQueue(sqs, 'sweep-notes', 'QUEUE_URL_NOTIFICATIONS', cleanups);
    const alert = await firingAlert(orgId, 'swept', address);
    await fireTwiceThenAgain(def, new Date(Date.now() + 3_600_000), orgId);
    const messages = await evaluations();
    // The alert is taken by one sweep only (its nextEvalAt moves with a conditional write).
    expect(messages.flatMap((m) => (JSON.parse(m) as EvaluationMessage).alertIds)).toEqual([alert.id]);
    await worker('workers/alert-evaluate', messages, 'alert-evaluation');
    await worker('workers/notify', await notifications(), 'notifications');
    expect(await emailCount(address)).toBe(1);
  },

  async 'report-sweep'(def) {
    const orgId = `org_relrs${run}`;
    const address = `rel-report-sweep-${run}@example.com`;
    const due = new Date(Date.now() - 60_000).toISOString();
    const report = emailReport(orgId, `rep_relsw${run}`, address, {
      scheduledPeriod: 'WEEKLY',
      scheduledWeekday: 1,
      nextRunAt: due,
    } as never);
    await insertReport(report);
    const deliveries = await captureQueue(sqs, 'deliveries', 'QUEUE_URL_REPORT_DELIVERY', cleanups);
    await fireTwiceThenAgain(def, new Date(), orgId);
    const messages = await deliveries();
    // Both sweeps may enqueue the run (enqueue comes before the advance); it is one run, delivered once.
    expect(messages.length).toBeGreaterThanOrEqual(1);
    for (const m of messages)
      expect(JSON.parse(m) as DeliveryMessage).toMatchObject({ reportId: report.id, runAt: due });
    await worker('workers/report-delivery', messages, 'report-delivery');
    expect(await emailCount(address)).toBe(1);
  },

  async 'outbox-sweep'(def) {
    const orgId = `org_relos${run}`;
    const teamId = 'team_rel';
    const operationId = `tdel_relsw${run}`;
    const at = new Date().toISOString();
    await ensureTeam({ id: teamId, organizationId: orgId, name: 'Swept', createdAt: at, deletingAt: at });
    // The hand-off's send fails (no such queue): the message waits in the outbox for the sweep.
    process.env.QUEUE_URL_TEAM_OPERATIONS = `${process.env.SQS_ENDPOINT}/000000000000/missing-${run}`;
    resetConfig();
    resetQueueClient();
    await queueTeamDelete(orgId, teamId, operationId, at);
    const swept = await captureQueue(sqs, 'swept', 'QUEUE_URL_TEAM_OPERATIONS', cleanups);
    await fireTwiceThenAgain(def, new Date(Date.now() + 60_000), orgId);
    const messages = await swept();
    expect(messages.length).toBeGreaterThanOrEqual(1);
    for (const m of messages) expect(JSON.parse(m)).toEqual({ orgId, teamId, operationId });
    // The operation runs on the first message; any other finds it finished and changes nothing.
    await worker('workers/team-sync', messages.slice(0, 1), 'team-operations');
    const done = await getTeamOperation(orgId, teamId, operationId);
    expect(done).toMatchObject({ status: 'SUCCEEDED' });
    expect(await getTeamConsistent(orgId, teamId)).toBeUndefined();
    await worker('workers/team-sync', messages.slice(1), 'team-operations');
    expect(await getTeamOperation(orgId, teamId, operationId)).toEqual(done);
  },

  // There is no internet here, so the handler's https GET of the ECB file cannot run; what it does
  // with the file (fetchAndLoadRates → loadRates) is run twice at once, then once more.
  async 'fx-fetch'() {
    const file = readFileSync(join(__dirname, '../fixtures/fx/eurofxref-daily-2024-06-28.xml'), 'utf8');
    await Promise.all([loadRates(file), loadRates(file)]);
    await loadRates(file);
    const days = await readRateDays('2024-06-28', '2024-06-28');
    expect(days).toHaveLength(1);
    expect(days[0]?.rates.USD).toBe(1.0705);
  },
};

it('every schedule of shared/queues.ts has a case', () => {
  expect(Object.keys(cases).sort()).toEqual(schedules.map((s) => s.name).sort());
});

describe.each(schedules.map((s) => [s.name, s] as const))('schedule %s', (name, def: ScheduleDef) => {
  it('fired twice at once and then again, gives exactly one delivery or effect', async () => {
    const c = cases[name];
    if (!c) throw new Error(`no reliability case for schedule ${name}`);
    await c(def);
  }, 120_000);
});
