import type { Principal } from '../../../shared/auth/principal';
import { listEvaluations } from '../../../shared/db/alerts-repo';
import {
  type AlertSeries,
  type EvaluationMessage,
  evaluateAlert,
  sweepDueAlerts,
} from '../../../shared/domain/alerts/evaluate';
import type { Notification } from '../../../shared/domain/alerts/notification';
import { CreateAlertBody } from '../../../shared/domain/alerts/schemas';
import { archiveAlert, createAlert, snoozeAlert } from '../../../shared/domain/alerts/service';
import { parseOrThrow } from '../../../shared/validation';
import { conditionBody } from '../../unit/alerts/fixtures';

const run = Math.random().toString(36).slice(2, 8);
const orgId = `org_eval${run}`;
const principal: Principal = { orgId, principalId: 'user_a', kind: 'user', role: 'admin', teamIds: [] };
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

describe('alert sweep and evaluation', () => {
  test('the sweep enqueues due alerts once, skipping snoozed and archived ones', async () => {
    const t0 = new Date('2026-11-21T05:00:00Z');
    const due = await createAlert(principal, input({ name: 'due' }), t0);
    const snoozed = await createAlert(principal, input({ name: 'snoozed' }), t0);
    const archived = await createAlert(principal, input({ name: 'archived' }), t0);
    await snoozeAlert(principal, snoozed.id, '2026-12-01T00:00:00Z', undefined, t0);
    await archiveAlert(principal, archived.id, undefined, t0);

    const sent: EvaluationMessage[] = [];
    const send = async (m: EvaluationMessage) => {
      sent.push(m);
    };
    const now = new Date('2026-11-21T05:30:00Z');
    const first = await sweepDueAlerts(now, send, (o) => o === orgId);
    expect(sent.map((m) => m.alertId)).toEqual([due.id]);
    expect(first).toEqual({ enqueued: 1, snoozed: 1 });
    // nextEvalAt moved to 06:00 the same day: a second sweep now finds nothing due.
    expect(await sweepDueAlerts(now, send, (o) => o === orgId)).toEqual({ enqueued: 0, snoozed: 0 });
    expect(sent).toHaveLength(1);
    const later = await sweepDueAlerts(new Date('2026-11-21T06:00:00Z'), send, (o) => o === orgId);
    expect(later.enqueued).toBe(1);
  });

  test('evaluation notifies once per calendar week, records each evaluation, and replays keep the id', async () => {
    const alert = await createAlert(principal, input({ name: 'weekly dedup' }));
    const notes: Notification[] = [];
    const deps = (day: string, now: string) => ({
      source: { read: async () => spikeOn(day) },
      now: () => new Date(now),
      enqueueNotification: async (n: Notification) => {
        notes.push(n);
      },
    });
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

  test('the noise floor and the snooze suppress a true condition', async () => {
    const floor = await createAlert(principal, input({ name: 'floor', minCost: 5000 }));
    const notes: Notification[] = [];
    const deps = {
      source: { read: async () => spikeOn('2026-11-20') },
      now: () => new Date('2026-11-21T06:00:00Z'),
      enqueueNotification: async (n: Notification) => {
        notes.push(n);
      },
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
