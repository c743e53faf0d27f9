import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  DeleteQueueCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { queueDepth, startPoller } from '../../infra/local/pollers';
import { ensureQueue } from '../../infra/local/setup-aws';
import { getIngestion, getRefreshStatus } from '../../shared/db/dimensions-repo';
import { insertReport } from '../../shared/db/reports-repo';
import { getTeamOperation } from '../../shared/db/team-operations-repo';
import { ensureTeam, getTeamConsistent } from '../../shared/db/teams-repo';
import type { Notification } from '../../shared/domain/alerts/notification';
import { queues, type WorkerDef, workers } from '../../shared/queues';
import { LOCAL_BUCKET_NAME } from '../../shared/warehouse/object-store';
import { FOCUS_SAMPLE } from '../integration/warehouse/support';
import {
  captureQueue,
  emailCount,
  emailReport,
  firingAlert,
  queueTeamDelete,
  reliabilitySuite,
  seedRecentBilling,
  testEmailNotification,
  until,
} from '../support/reliability';
import { s3CreatedBody, sqsEventOf } from '../support/sqs';

/**
 * Issue 18, items 10 and 11, for every worker of shared/queues.ts (a worker without a case here
 * fails the suite):
 * - poison message: 9 good messages and 1 poison are sent to a queue made from the worker's own
 *   queue definition (same maxReceiveCount, same redrive policy, on fauxqs) and the worker runs
 *   from the local poller, as under `npm start`, taking all 10 in one batch (whatever the deployed
 *   batch size: the batch contract is the same). Its answer names exactly the poison; the poison is
 *   delivered exactly `maxReceiveCount` times and ends in the DLQ; each good message is delivered
 *   once and takes effect once (asserted in DynamoDB, the SES store or the messages it sends on);
 * - duplicate delivery: one of the good messages delivered three more times changes nothing.
 * The effects land in this test process's DynamoDB Local tables, SES emulator and DuckDB.
 */

const { sqs, run, cleanups } = reliabilitySuite();
const GOOD = 9;
const POISON_AT = 4;
const NOT_JSON = '{"poison": ';

interface WorkerCase {
  /** Creates what the messages need; answers the 9 good bodies, the poison and the effect check. */
  prepare(): Promise<{ good: string[]; poison: string; expectEffects(): Promise<void> }>;
}

/** Exactly one e-mail reached each of the `GOOD` addresses. */
async function expectOneEmailEach(address: (i: number) => string): Promise<void> {
  for (let i = 0; i < GOOD; i++) expect([address(i), await emailCount(address(i))]).toEqual([address(i), 1]);
}

const cases: Record<string, WorkerCase> = {
  notify: {
    async prepare() {
      const address = (i: number) => `rel-notify-${run}-${i}@example.com`;
      const good = Array.from({ length: GOOD }, (_, i) =>
        JSON.stringify(testEmailNotification(`rel-${run}-${i}`, `org_relnt${run}`, address(i), `rel ${i}`)),
      );
      return {
        good,
        poison: NOT_JSON,
        async expectEffects() {
          await expectOneEmailEach(address);
        },
      };
    },
  },

  'alert-evaluate': {
    async prepare() {
      const orgId = `org_relal${run}`;
      const address = (i: number) => `rel-alert-${run}-${i}@example.com`;
      const now = new Date();
      await seedRecentBilling(orgId);
      const notifications = await captureQueue(sqs, 'notifications', 'QUEUE_URL_NOTIFICATIONS', cleanups);
      const ids: string[] = [];
      for (let i = 0; i < GOOD; i++) ids.push((await firingAlert(orgId, `rel ${i}`, address(i))).id);
      const good = ids.map((id) =>
        JSON.stringify({ orgId, alertIds: [id], scheduledFor: now.toISOString() }),
      );
      let delivered = 0;
      return {
        good,
        poison: NOT_JSON,
        async expectEffects() {
          // A replayed evaluation may enqueue its notification again, under the same id (claimDedup);
          // the notify worker delivers each id once. So: one id per alert, and one e-mail each.
          const bodies = await notifications();
          const idsByAlert = new Map<string, Set<string>>();
          for (const n of bodies.map((b) => JSON.parse(b) as Notification))
            idsByAlert.set(n.alertId ?? '', (idsByAlert.get(n.alertId ?? '') ?? new Set()).add(n.id));
          expect([...idsByAlert.keys()].sort()).toEqual([...ids].sort());
          for (const set of idsByAlert.values()) expect(set.size).toBe(1);
          const { handler: notify } = await import('../../functions/workers/notify');
          const fresh = bodies.slice(delivered);
          delivered = bodies.length;
          expect((await notify(sqsEventOf(fresh, 'notifications'))).batchItemFailures).toEqual([]);
          await expectOneEmailEach(address);
        },
      };
    },
  },

  'report-delivery': {
    async prepare() {
      const orgId = `org_relrd${run}`;
      const address = (i: number) => `rel-report-${run}-${i}@example.com`;
      const good: string[] = [];
      for (let i = 0; i < GOOD; i++) {
        const report = emailReport(orgId, `rep_rel${run}${i}`, address(i));
        await insertReport(report);
        good.push(
          JSON.stringify({
            type: 'report-delivery',
            orgId,
            reportId: report.id,
            runAt: report.createdAt,
            trigger: 'MANUAL',
          }),
        );
      }
      return {
        good,
        poison: NOT_JSON,
        async expectEffects() {
          await expectOneEmailEach(address);
        },
      };
    },
  },

  'team-operations': {
    async prepare() {
      const orgId = `org_relto${run}`;
      const at = new Date().toISOString();
      const ops: { teamId: string; operationId: string }[] = [];
      // The hand-off sends each operation's message (outbox, then SQS) to a queue of this test.
      const handedOff = await captureQueue(sqs, 'team-ops', 'QUEUE_URL_TEAM_OPERATIONS', cleanups);
      for (let i = 0; i < GOOD; i++) {
        const teamId = `team_rel${i}`;
        const operationId = `tdel_rel${run}${i}`;
        await ensureTeam({
          id: teamId,
          organizationId: orgId,
          name: `Rel ${i}`,
          createdAt: at,
          deletingAt: at,
        });
        await queueTeamDelete(orgId, teamId, operationId, at);
        ops.push({ teamId, operationId });
      }
      expect(await handedOff()).toHaveLength(GOOD);
      let finished: unknown[] | undefined;
      return {
        good: ops.map((o) => JSON.stringify({ orgId, ...o })),
        poison: NOT_JSON,
        async expectEffects() {
          const now = await Promise.all(ops.map((o) => getTeamOperation(orgId, o.teamId, o.operationId)));
          for (const [i, op] of now.entries()) {
            expect(op).toMatchObject({ status: 'SUCCEEDED' });
            expect(await getTeamConsistent(orgId, ops[i]!.teamId)).toBeUndefined();
          }
          // Run once: a later delivery leaves each finished operation exactly as it was.
          if (finished) expect(now).toEqual(finished);
          finished = now;
        },
      };
    },
  },

  'warehouse-refresh': {
    async prepare() {
      const orgs = Array.from({ length: GOOD }, (_, i) => `org_relwr${run}${i}`);
      const requests = orgs.map((orgId, i) => ({
        type: 'warehouse-refresh',
        requestId: `rfr_rel${run}${i}`,
        orgId,
        mode: 'full',
        reason: 'test',
        requestedAt: new Date().toISOString(),
      }));
      let finished: unknown[] | undefined;
      return {
        good: requests.map((r) => JSON.stringify(r)),
        poison: NOT_JSON,
        async expectEffects() {
          const now = await Promise.all(orgs.map((o) => getRefreshStatus(o)));
          for (const [i, status] of now.entries())
            expect(status).toMatchObject({ state: 'succeeded', requestId: requests[i]!.requestId });
          if (finished) expect(now).toEqual(finished);
          finished = now;
        },
      };
    },
  },

  'billing-ingest': {
    async prepare() {
      const org = 'org_demo';
      const bucket = mkdtempSync(join(tmpdir(), 'rel-bucket-'));
      process.env.LOCAL_BUCKET_DIR = bucket;
      const refreshes = await captureQueue(sqs, 'refresh', 'QUEUE_URL_WAREHOUSE_REFRESH', cleanups);
      // A small upload: the sample's header and first 20 rows.
      const small = `${readFileSync(FOCUS_SAMPLE, 'utf8').split('\n').slice(0, 21).join('\n')}\n`;
      const uploads = Array.from({ length: GOOD }, (_, i) => ({
        key: `uploads/${org}/rel-${run}-${i}.csv`,
        eTag: `etag-rel-${run}-${i}`,
      }));
      for (const u of uploads) {
        const path = join(bucket, u.key);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, small);
      }
      copyFileSync(join(bucket, uploads[0]!.key), join(bucket, `uploads/${org}/rel-${run}-unused.csv`));
      let finished: unknown[] | undefined;
      return {
        good: uploads.map((u) => s3CreatedBody(LOCAL_BUCKET_NAME, u.key, u.eTag)),
        // An upload notified but gone from the bucket: every attempt fails until the DLQ.
        poison: s3CreatedBody(LOCAL_BUCKET_NAME, `uploads/${org}/rel-${run}-gone.csv`, 'etag-gone'),
        async expectEffects() {
          const now = await Promise.all(uploads.map((u) => getIngestion(org, u.key, u.eTag)));
          for (const record of now) expect(record).toMatchObject({ status: 'succeeded', rows: 20 });
          if (finished) expect(now).toEqual(finished);
          finished = now;
          // One refresh request per ingested upload, none for the poison or a redelivery.
          expect(await refreshes()).toHaveLength(GOOD);
        },
      };
    },
  },
};

it('every worker of shared/queues.ts has a poison and duplicate case, and every queue a worker', () => {
  expect(Object.keys(cases).sort()).toEqual(workers.map((w) => w.name).sort());
  expect(queues.map((q) => q.name).sort()).toEqual(workers.map((w) => w.queue).sort());
});

describe.each(workers.map((w) => [w.name, w] as const))('worker %s', (_name, worker: WorkerDef) => {
  it('a poison message in a batch of 10: exactly it fails, maxReceiveCount times, then sits in the DLQ; the 9 others take effect once, and a message delivered 3 more times changes nothing', async () => {
    const c = cases[worker.name];
    if (!c) throw new Error(`no reliability case for worker ${worker.name}`);
    const def = queues.find((q) => q.name === worker.queue);
    if (!def) throw new Error(`worker ${worker.name} reads unknown queue ${worker.queue}`);
    const { good, poison, expectEffects } = await c.prepare();
    expect(good).toHaveLength(GOOD);

    const queue = await ensureQueue(sqs, { ...def, name: `rel-${worker.queue}-${run}` }, 1);
    cleanups.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl: queue.url })));
    cleanups.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl: queue.dlqUrl })));
    const bodies = [...good.slice(0, POISON_AT), poison, ...good.slice(POISON_AT)];
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queue.url,
        Entries: bodies.map((body, i) => ({ Id: String(i), MessageBody: body })),
      }),
    );
    const idOf = new Map((sent.Successful ?? []).map((s) => [Number(s.Id), s.MessageId ?? '']));
    const poisonId = idOf.get(POISON_AT) ?? '';
    expect(idOf.size).toBe(10);

    const batches: { ids: string[]; failed: string[] | 'threw' }[] = [];
    const poller = startPoller(sqs, { ...worker, batchSize: 10 }, queue, {
      retryDelaySeconds: 0,
      onBatch: (event: SQSEvent, result: SQSBatchResponse | undefined) =>
        batches.push({
          ids: event.Records.map((r) => r.messageId),
          failed: result ? result.batchItemFailures.map((f) => f.itemIdentifier) : 'threw',
        }),
    });
    const dead: Message[] = [];
    try {
      await until(async () => {
        const res = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: queue.dlqUrl,
            MaxNumberOfMessages: 10,
            VisibilityTimeout: 600,
          }),
        );
        dead.push(...(res.Messages ?? []));
        return dead.length > 0 && !poller.busy && (await queueDepth(sqs, queue.url)) === 0;
      }, 120_000);
    } finally {
      await poller.stop();
    }

    // The first batch holds all 10 messages and its answer names the poison only.
    expect(batches[0]?.ids.sort()).toEqual([...idOf.values()].sort());
    expect(batches[0]?.failed).toEqual([poisonId]);
    // Then only the poison comes back, failing each time, until the redrive policy moves it.
    expect(batches.slice(1)).toEqual(
      Array.from({ length: def.maxReceiveCount - 1 }, () => ({ ids: [poisonId], failed: [poisonId] })),
    );
    expect(dead.map((m) => [m.MessageId, m.Body])).toEqual([[poisonId, poison]]);
    await expectEffects();

    // Duplicate delivery: the first good message (same message id and body) three more times.
    const { handler } = (await import(`../../functions/${worker.entry}`)) as {
      handler: (event: SQSEvent, context?: unknown) => Promise<SQSBatchResponse>;
    };
    const again = sqsEventOf([{ messageId: idOf.get(0) ?? '', body: good[0] ?? '' }], worker.queue);
    for (let i = 0; i < 3; i++) expect((await handler(again)).batchItemFailures).toEqual([]);
    await expectEffects();
  }, 240_000);
});
