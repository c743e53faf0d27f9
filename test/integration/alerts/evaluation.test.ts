import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as evaluateWorker } from '../../../functions/workers/alert-evaluate';
import type { Principal } from '../../../shared/auth/principal';
import { getAlert, listEvaluations } from '../../../shared/db/alerts-repo';
import { db, tableName } from '../../../shared/db/client';
import { keys } from '../../../shared/db/keys';
import { ensureOrganization } from '../../../shared/db/organizations-repo';
import { evaluationStore } from '../../../shared/domain/alerts/adapters/evaluate';
import { dueAlertIndex } from '../../../shared/domain/alerts/adapters/sweep';
import { backtestAlert } from '../../../shared/domain/alerts/backtest';
import {
  type EvaluationMessage,
  evaluateAlert,
  evaluateAlerts,
  evaluateMessages,
} from '../../../shared/domain/alerts/evaluator';
import type { Notification } from '../../../shared/domain/alerts/notification';
import { CreateAlertBody } from '../../../shared/domain/alerts/schemas';
import type { AlertSeries } from '../../../shared/domain/alerts/series';
import { createEngineSeriesSource } from '../../../shared/domain/alerts/series-source';
import { archiveAlert, createAlert, snoozeAlert } from '../../../shared/domain/alerts/service';
import { sweepDueAlerts } from '../../../shared/domain/alerts/sweep';
import { mapLimit } from '../../../shared/pool';
import { parseOrThrow } from '../../../shared/validation';
import type { WarehouseQueries } from '../../../shared/warehouse/port';
import { setWarehouseQueries } from '../../../shared/warehouse/queries';
import { adminOf } from '../../support/principals';
import { collectingQueue } from '../../support/sqs';
import { suiteIds } from '../../support/suite';
import { conditionBody, costQuery, periodChangeBody, thresholdBody } from '../../unit/alerts/fixtures';

const { run, orgId } = suiteIds('eval');
const principal = adminOf(orgId, 'user_a');
const input = (extra: Record<string, unknown> = {}) =>
  parseOrThrow(CreateAlertBody, conditionBody(extra), 'plain', 'body');

function spikeOn(day: string): AlertSeries {
  return {
    dataThrough: day,
    days: [day],
    values: { ec2: [1240] },
    condition: [1],
    baselines: { 'rollingMedian(ec2,28,DAY)': [540] },
  };
}

/** The evaluator's dependencies over a series spiking on `day`, at `now`; notifications go to `notes`. */
function spikeDeps(notes: Notification[]) {
  return (day: string, now: string) => ({
    source: { read: async () => spikeOn(day) },
    store: evaluationStore,
    now: () => new Date(now),
    enqueueNotifications: collectingQueue(notes),
  });
}

describe('alert sweep and evaluation', () => {
  test('the sweep enqueues due alerts once, skipping snoozed and archived ones', async () => {
    const t0 = new Date('2026-11-21T05:00:00Z');
    const due = await createAlert(principal, input({ name: 'due' }), t0);
    const snoozed = await createAlert(principal, input({ name: 'snoozed' }), t0);
    const archived = await createAlert(principal, input({ name: 'archived' }), t0);
    await snoozeAlert(principal, snoozed.id, '2026-12-01T00:00:00Z', undefined, t0);
    await archiveAlert(principal, archived.id, undefined, t0);

    const sent: EvaluationMessage[] = [];
    const send = collectingQueue(sent);
    const now = new Date('2026-11-21T05:30:00Z');
    const first = await sweepDueAlerts(now, { index: dueAlertIndex, send: send }, (o) => o === orgId);
    expect(sent.map((m) => m.alertIds)).toEqual([[due.id]]);
    expect(first).toEqual({ enqueued: 1, snoozed: 1, messages: 1 });
    // nextEvalAt moved to 06:00 the same day: a second sweep now finds nothing due.
    expect(await sweepDueAlerts(now, { index: dueAlertIndex, send: send }, (o) => o === orgId)).toEqual({
      enqueued: 0,
      snoozed: 0,
      messages: 0,
    });
    expect(sent).toHaveLength(1);
    const later = await sweepDueAlerts(
      new Date('2026-11-21T06:00:00Z'),
      { index: dueAlertIndex, send },
      (o) => o === orgId,
    );
    expect(later.enqueued).toBe(1);
  });

  test('evaluation notifies once per calendar week, records each evaluation, and replays keep the id', async () => {
    const alert = await createAlert(principal, input({ name: 'weekly dedup' }));
    const notes: Notification[] = [];
    const deps = spikeDeps(notes);
    const msg = { orgId, alertId: alert.id, scheduledFor: '' };
    const a = await evaluateAlert(msg, deps('2026-11-17', '2026-11-18T06:00:00Z'));
    expect(a).toMatchObject({
      triggered: true,
      suppressedBy: null,
      notificationId: `${alert.id}:2026-11-17`,
    });
    // The same evaluation again (a redelivered message): same notification id, which the notify
    // worker sends only once.
    const replay = await evaluateAlert(msg, deps('2026-11-17', '2026-11-18T06:05:00Z'));
    expect(replay?.notificationId).toBe(`${alert.id}:2026-11-17`);
    // A later day of the same ISO week is suppressed by dedup; the next week notifies again.
    const b = await evaluateAlert(msg, deps('2026-11-20', '2026-11-21T06:00:00Z'));
    expect(b).toMatchObject({ triggered: true, suppressedBy: 'DEDUP', notificationId: null });
    const c = await evaluateAlert(msg, deps('2026-11-23', '2026-11-24T06:00:00Z'));
    expect(c).toMatchObject({ suppressedBy: null, notificationId: `${alert.id}:2026-11-23` });
    expect(new Set(notes.map((n) => n.id))).toEqual(
      new Set([`${alert.id}:2026-11-17`, `${alert.id}:2026-11-23`]),
    );
    expect(notes[0]!.message.text).toContain('Alert: weekly dedup');
    expect(notes[0]!.message.text).toContain('ec2 on 2026-11-17 was $1,240, 2.3× its 28-day median of $540');
    const history = await listEvaluations(orgId, alert.id, 10);
    expect(history.items.map((e) => e.evaluatedDay)).toEqual([
      '2026-11-23',
      '2026-11-20',
      '2026-11-17',
      '2026-11-17',
    ]);
  });

  test.each([
    ['Pacific/Auckland', true],
    [undefined, false],
  ] as const)("CALENDAR WEEK windows are the organisation's weeks (timezone %s)", async (zone, second) => {
    // Sunday 23:30 then Monday 00:30 in Auckland (NZDT, UTC+13); both Sunday 22 November in UTC.
    const zoneOrg = `org_tz${run}${zone ? 'nz' : 'utc'}`;
    if (zone)
      await ensureOrganization({
        id: zoneOrg,
        name: 'tz',
        timezone: zone,
        createdAt: '2026-11-01T00:00:00Z',
      });
    const owner: Principal = { ...principal, orgId: zoneOrg };
    const alert = await createAlert(owner, input({ name: `week in ${zone ?? 'UTC'}` }));
    const notes: Notification[] = [];
    const deps = spikeDeps(notes);
    const msg = { orgId: zoneOrg, alertId: alert.id, scheduledFor: '' };
    const a = await evaluateAlert(msg, deps('2026-11-20', '2026-11-22T10:30:00Z'));
    expect(a).toMatchObject({ triggered: true, suppressedBy: null });
    const b = await evaluateAlert(msg, deps('2026-11-21', '2026-11-22T11:30:00Z'));
    expect(b).toMatchObject({ triggered: true, suppressedBy: second ? null : 'DEDUP' });
    expect(notes).toHaveLength(second ? 2 : 1);
  });

  test('the noise floor and the snooze suppress a true condition', async () => {
    const floor = await createAlert(principal, input({ name: 'floor', minCost: 5000 }));
    const notes: Notification[] = [];
    const deps = {
      source: { read: async () => spikeOn('2026-11-20') },
      store: evaluationStore,
      now: () => new Date('2026-11-21T06:00:00Z'),
      enqueueNotifications: collectingQueue(notes),
    };
    expect(await evaluateAlert({ orgId, alertId: floor.id, scheduledFor: '' }, deps)).toMatchObject({
      suppressedBy: 'MIN_COST',
    });
    const snoozed = await createAlert(principal, input({ name: 'snoozed eval' }));
    await snoozeAlert(
      principal,
      snoozed.id,
      '2026-12-01T00:00:00Z',
      undefined,
      new Date('2026-11-21T00:00:00Z'),
    );
    expect(await evaluateAlert({ orgId, alertId: snoozed.id, scheduledFor: '' }, deps)).toMatchObject({
      suppressedBy: 'SNOOZE',
    });
    expect(notes).toEqual([]);
  });
});

/**
 * A warehouse whose daily cost is 100, and 400 on `spikeDay`, through `lastChargeDay`; `calls`
 * records each series read.
 */
function spikeWarehouse(
  lastChargeDay: string,
  spikeDay: string,
): { fake: WarehouseQueries; calls: string[] } {
  const calls: string[] = [];
  const rows = (q: { start: string; end: string }) => {
    const out: { period: string; group: Record<string, never>; value: number }[] = [];
    for (let t = Date.parse(q.start.slice(0, 10)); t < Date.parse(q.end.slice(0, 10)); t += 86_400_000) {
      const period = new Date(t).toISOString().slice(0, 10);
      if (period <= lastChargeDay) out.push({ period, group: {}, value: period === spikeDay ? 400 : 100 });
    }
    return out;
  };
  const fake: WarehouseQueries = {
    kind: 'duckdb',
    billingMonths: async () => ['2026-11'],
    usageMetrics: async () => [],
    billingInfo: async () => ({ lastChargeDay, currencies: ['USD'] }),
    costSeries: async (q) => {
      calls.push(`costSeries ${q.start}..${q.end}`);
      return rows(q);
    },
    costSeriesMany: async (q, ids) => {
      calls.push(`costSeriesMany ${q.start}..${q.end}`);
      return ids.map(() => rows(q));
    },
    usageSeries: async () => [],
    catalog: async () => undefined,
    dataVersion: async () => undefined,
    commitmentFacts: async () => [],
    commitmentTerms: async () => [],
  };
  return { fake, calls };
}

/**
 * The enclosing describe's organisation `org_<name><run>` and its admin, over a warehouse whose daily
 * cost is 100 a day and 400 on the last complete day (2026-11-19: the last charge day is the 20th).
 */
function spikeSuite(name: string) {
  const orgId = `org_${name}${run}`;
  const owner: Principal = { ...principal, orgId };
  const lastChargeDay = '2026-11-20';
  const spikeDay = '2026-11-19';
  afterEach(() => setWarehouseQueries(undefined));
  return { orgId, owner, lastChargeDay, spikeDay, ...spikeWarehouse(lastChargeDay, spikeDay) };
}

describe('alerts that ask the same queries', () => {
  const { orgId: groupOrg, owner, spikeDay, fake, calls } = spikeSuite('group');

  test('are swept into one message and read from the warehouse once', async () => {
    const t0 = new Date('2026-11-21T05:00:00Z');
    const make = (name: string, condition: string, extra: Record<string, unknown> = {}) =>
      createAlert(owner, input({ name, condition, ...extra }), t0);
    const fires = await make('1.5x median', 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5');
    const quiet = await make('5x median', 'ec2 > rollingMedian(ec2, 28, DAY) * 5');
    const under = await make('under 50', 'ec2 < 50');
    const other = await make('total', 'spend > 300', { queries: [costQuery('spend')] });
    const sent: EvaluationMessage[] = [];
    const now = new Date('2026-11-21T06:00:00Z');
    const swept = await sweepDueAlerts(
      now,
      { index: dueAlertIndex, send: collectingQueue(sent) },
      (o) => o === groupOrg,
    );
    expect(swept).toEqual({ enqueued: 4, snoozed: 0, messages: 2 });
    const sorted = sent.map((m) => [...(m.alertIds ?? [])].sort()).sort((a, b) => b.length - a.length);
    expect(sorted).toEqual([[fires.id, quiet.id, under.id].sort(), [other.id]]);

    setWarehouseQueries(fake);
    const notes: Notification[] = [];
    const deps = {
      source: createEngineSeriesSource(),
      store: evaluationStore,
      now: () => now,
      enqueueNotifications: collectingQueue(notes),
    };
    const big = sent.find((m) => m.alertIds?.length === 3)!;
    const results = await evaluateAlerts(big, deps);
    // One engine read for the three alerts: the cost query once (however many conditions).
    expect(calls).toHaveLength(1);
    const byId = new Map(results.map((r) => [r!.alertId, r!]));
    expect(byId.get(fires.id)).toMatchObject({ evaluatedDay: spikeDay, triggered: true, suppressedBy: null });
    expect(byId.get(fires.id)!.values.ec2).toBe(400);
    expect(byId.get(quiet.id)).toMatchObject({ evaluatedDay: spikeDay, triggered: false });
    expect(byId.get(under.id)).toMatchObject({ triggered: false });
    expect(notes.map((n) => n.alertId)).toEqual([fires.id]);
    expect(notes[0]!.message.text).toContain(`ec2 on ${spikeDay} was $400, 4.0× its 28-day median of $100`);

    const single = await evaluateAlerts(sent.find((m) => m.alertIds?.length === 1)!, deps);
    expect(calls).toHaveLength(2);
    expect(single[0]).toMatchObject({ alertId: other.id, triggered: true, values: { spend: 400 } });
  });
});

describe('batched sweep and evaluation', () => {
  const { orgId: batchOrg, owner, lastChargeDay, spikeDay, fake, calls } = spikeSuite('batch');

  /** `n` alerts created 8 at a time, each made by `make(i)`. */
  async function createMany(n: number, make: (i: number) => Record<string, unknown>, at: Date) {
    return mapLimit(
      Array.from({ length: n }, (_, i) => i),
      8,
      async (i) => (await createAlert(owner, parseOrThrow(CreateAlertBody, make(i), 'plain', 'body'), at)).id,
    );
  }

  test('two concurrent sweeps over 130 due alerts enqueue each exactly once, at most 100 a message', async () => {
    const t0 = new Date('2026-11-21T05:00:00Z');
    const ids = await createMany(130, (i) => conditionBody({ name: `many ${i}` }), t0);
    const a: EvaluationMessage[] = [];
    const b: EvaluationMessage[] = [];
    const now = new Date('2026-11-21T05:30:00Z');
    const only = (o: string) => o === batchOrg;
    const [ra, rb] = await Promise.all([
      sweepDueAlerts(now, { index: dueAlertIndex, send: collectingQueue(a) }, only),
      sweepDueAlerts(now, { index: dueAlertIndex, send: collectingQueue(b) }, only),
    ]);
    const sent = [...a, ...b].flatMap((m) => m.alertIds ?? []);
    expect(sent).toHaveLength(130);
    expect(new Set(sent)).toEqual(new Set(ids));
    expect(ra.enqueued + rb.enqueued).toBe(130);
    for (const m of [...a, ...b]) expect(m.alertIds!.length).toBeLessThanOrEqual(100);
    // Same queries: the alerts a sweep took fill messages of 100 before a new one starts.
    for (const ms of [a, b]) expect(ms.filter((m) => m.alertIds!.length < 100).length).toBeLessThanOrEqual(1);
    // Every alert moved on to the next slot (06:00), and a third sweep finds none due.
    const stored = await getAlert(batchOrg, ids[129]!);
    expect(stored?.nextEvalAt).toBe('2026-11-21T06:00:00.000Z');
    expect(
      (
        await sweepDueAlerts(
          now,
          { index: dueAlertIndex, send: collectingQueue<EvaluationMessage>([]) },
          only,
        )
      ).enqueued,
    ).toBe(0);
  });

  test('a message SQS refuses puts its alerts back for the next sweep', async () => {
    const refusingOrg = `org_refuse${run}`;
    const refOwner: Principal = { ...principal, orgId: refusingOrg };
    const t0 = new Date('2026-11-21T05:00:00Z');
    const one = await createAlert(refOwner, input({ name: 'one' }), t0);
    const two = await createAlert(
      refOwner,
      input({ name: 'two', queries: [costQuery('spend')], condition: 'spend > 1' }),
      t0,
    );
    const now = new Date('2026-11-21T05:30:00Z');
    const only = (o: string) => o === refusingOrg;
    // SQS takes the first message of the batch and refuses the second.
    let refused: string[] = [];
    await expect(
      sweepDueAlerts(
        now,
        {
          index: dueAlertIndex,
          send: async (ms) => {
            refused = ms[1]!.alertIds!;
            return ms.map((_, i) => (i === 1 ? new Error('refused') : null));
          },
        },
        only,
      ),
    ).rejects.toThrow('refused');
    expect(refused).toHaveLength(1);
    const again: EvaluationMessage[] = [];
    const retry = await sweepDueAlerts(now, { index: dueAlertIndex, send: collectingQueue(again) }, only);
    expect(retry.enqueued).toBe(1);
    expect(again.flatMap((m) => m.alertIds)).toEqual(refused);
    expect([one.id, two.id]).toContain(refused[0]);
  });

  test('a batch where one alert fires and 30 do not: 31 evaluations, one claim, one notification', async () => {
    const t0 = new Date('2026-11-21T05:00:00Z');
    // 30 quiet alerts (conditions and thresholds over the same query) and one that fires.
    const quiet = await createMany(
      30,
      (i) =>
        i % 3 === 2
          ? thresholdBody({
              name: `quiet threshold ${i}`,
              currency: 'USD',
              queries: conditionBody().queries,
              queryName: 'ec2',
              thresholds: [
                {
                  value: 5000 + i,
                  severityLevel: 'INFO',
                  metricMode: 'ABSOLUTE_SPEND',
                  changeBasis: 'ABSOLUTE_DELTA',
                },
              ],
            })
          : conditionBody({ name: `quiet ${i}`, condition: `ec2 > rollingMedian(ec2, 28, DAY) * ${5 + i}` }),
      t0,
    );
    const [fires] = await createMany(1, () => conditionBody({ name: 'fires', condition: 'ec2 > 300' }), t0);
    setWarehouseQueries(fake);
    calls.length = 0;
    const notes: Notification[] = [];
    const now = new Date('2026-11-21T06:00:00Z');
    const msg = { orgId: batchOrg, alertIds: [...quiet, fires!], scheduledFor: now.toISOString() };
    // The same message twice in one invocation (a redelivery beside the original): evaluated once.
    const [first, second] = await evaluateMessages([msg, msg], {
      source: createEngineSeriesSource(),
      store: evaluationStore,
      now: () => now,
      enqueueNotifications: collectingQueue(notes),
    });
    expect(first).toEqual(second);
    if (!first!.ok) throw first!.error;
    expect(first!.value).toHaveLength(31);
    expect(first!.value.every((e) => e !== null && e.evaluatedDay === spikeDay)).toBe(true);
    expect(first!.value.filter((e) => e!.triggered).map((e) => e!.alertId)).toEqual([fires]);
    expect(notes.map((n) => n.id)).toEqual([`${fires}:${spikeDay}`]);
    // One warehouse read for the 31 alerts: the union of their windows, ending on the last complete day.
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatch(new RegExp(`\\.\\.${lastChargeDay}`));
    // Each alert's history holds exactly one evaluation.
    for (const id of [...quiet, fires!]) {
      const history = await listEvaluations(batchOrg, id, 5);
      expect(history.items).toHaveLength(1);
      expect(history.items[0]!.notificationId).toBe(id === fires ? `${fires}:${spikeDay}` : null);
    }
  });

  test('an alert stored before the thresholds copy existed has its thresholds queried', async () => {
    const t0 = new Date('2026-11-21T05:00:00Z');
    const [id] = await createMany(
      1,
      () =>
        thresholdBody({
          name: 'legacy item',
          currency: 'USD',
          queries: conditionBody().queries,
          queryName: 'ec2',
          thresholds: [
            {
              value: 300,
              severityLevel: 'INFO',
              metricMode: 'ABSOLUTE_SPEND',
              changeBasis: 'ABSOLUTE_DELTA',
            },
          ],
        }),
      t0,
    );
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.alert(batchOrg, id!),
        UpdateExpression: 'REMOVE evalThresholds',
      }),
    );
    expect((await getAlert(batchOrg, id!))?.evalThresholds).toBeUndefined();
    setWarehouseQueries(fake);
    const now = new Date('2026-11-21T06:00:00Z');
    const [evaluation] = await evaluateAlerts(
      { orgId: batchOrg, alertIds: [id!], scheduledFor: now.toISOString() },
      {
        source: createEngineSeriesSource(),
        store: evaluationStore,
        now: () => now,
        enqueueNotifications: collectingQueue<Notification>([]),
      },
    );
    // 400 on the spike day is above the queried threshold of 300.
    expect(evaluation).toMatchObject({ evaluatedDay: spikeDay, triggered: true, values: { ec2: 400 } });
  });

  test('the worker fails only the malformed message of its batch', async () => {
    const t0 = new Date('2026-11-21T05:00:00Z');
    const [id] = await createMany(1, () => conditionBody({ name: 'worker', condition: 'ec2 > 100000' }), t0);
    setWarehouseQueries(fake);
    const record = (messageId: string, body: string) =>
      ({ messageId, body, receiptHandle: messageId, attributes: {}, messageAttributes: {} }) as never;
    const res = await evaluateWorker({
      Records: [
        record('good', JSON.stringify({ orgId: batchOrg, alertIds: [id], scheduledFor: t0.toISOString() })),
        record('bad', '{"orgId": 1}'),
      ],
    });
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: 'bad' }]);
    expect((await listEvaluations(batchOrg, id!, 5)).items).toHaveLength(1);
  });
});

test('the backtest judges a WEEKLY alert once a week, on the last day of each complete week', async () => {
  // Daily cost grows 30 % every ISO week (weeks from Monday 2026-07-27), data through Sunday 22 Nov.
  const days: string[] = [];
  for (let t = Date.parse('2026-07-27'); t <= Date.parse('2026-11-22'); t += 86_400_000)
    days.push(new Date(t).toISOString().slice(0, 10));
  const spend = days.map((_, i) => 100 * 1.3 ** Math.floor(i / 7));
  const source = { read: async () => ({ dataThrough: '2026-11-22', days, values: { spend } }) };
  const body = parseOrThrow(
    CreateAlertBody,
    periodChangeBody({ teamsChannelId: undefined, notificationChannel: 'EMAIL', emails: ['a@example.com'] }),
    'plain',
    'body',
  );
  const result = await backtestAlert(principal, body, new Date('2026-11-24T06:00:00Z'), source);
  // The 90 days end on 22 November: from 25 August, holding 13 Sundays (30 August … 22 November).
  expect(result.from).toBe('2026-08-25');
  const sundays = days.filter((d) => d >= '2026-08-25' && new Date(`${d}T00:00:00Z`).getUTCDay() === 0);
  expect(sundays).toHaveLength(13);
  expect(result.fired.map((f) => f.day)).toEqual(sundays);
  expect(result.notifications).toEqual(sundays);
  expect(result.fired[0]!.values.changePercent).toBeCloseTo(30, 9);
});
