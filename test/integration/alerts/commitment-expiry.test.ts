import type { Principal } from '../../../shared/auth/principal';
import { claimCommitmentExpiry, listCommitmentExpiryClaims } from '../../../shared/db/commitment-expiry-repo';
import { evaluationStore } from '../../../shared/domain/alerts/adapters/evaluate';
import { dueAlertIndex } from '../../../shared/domain/alerts/adapters/sweep';
import { type EvaluationMessage, evaluateMessages } from '../../../shared/domain/alerts/evaluator';
import type { Notification } from '../../../shared/domain/alerts/notification';
import { sweepDueAlerts } from '../../../shared/domain/alerts/sweep';
import {
  archiveCommitmentAlert,
  createCommitmentAlert,
  listCommitmentAlerts,
  snoozeCommitmentAlert,
  unsnoozeCommitmentAlert,
  updateCommitmentAlert,
} from '../../../shared/domain/commitments/alert-resource';
import { type ExpiryDeps, evaluateCommitmentExpiry } from '../../../shared/domain/commitments/expiry-alert';
import type { ExpiringCommitment } from '../../../shared/domain/commitments/ports';
import { adminOf } from '../../support/principals';
import { collectingQueue } from '../../support/sqs';
import { DAY_MS, suiteIds, ymd } from '../../support/suite';

/**
 * Expiring-commitment alerts through the sweep and the batch evaluator, on the DynamoDB emulator:
 * the warehouse side is a stand-in giving commitments with fixed end days, so the days left (and
 * the window each is in) are computed here from `now`.
 */
const { orgId } = suiteIds('cexp');
const principal = adminOf(orgId, 'user_a');

const ENDS: Record<string, string> = { 'sp-1': '2027-01-10', 'ri-1': '2027-03-20', 'ri-far': '2027-09-01' };

function commitmentsAt(now: Date, withinDays: number) {
  const today = ymd(now.getTime());
  const items: ExpiringCommitment[] = Object.entries(ENDS)
    .map(([id, endDay]) => ({
      id,
      name: id === 'sp-1' ? 'Compute SP' : null,
      provider: id === 'sp-1' ? 'AWS' : 'Microsoft',
      type: id === 'sp-1' ? 'Savings Plan' : 'Reservation',
      endDay,
      daysLeft: Math.round((Date.parse(endDay) - Date.parse(today)) / DAY_MS),
      hourlyCommitment: id === 'sp-1' ? 2.4 : null,
      utilization: id === 'sp-1' ? 0.875 : null,
    }))
    .filter((c) => c.daysLeft >= 0 && c.daysLeft <= withinDays);
  return { today, items };
}

function depsInto(sent: Notification[]): ExpiryDeps {
  return {
    source: { expiring: async (_org, within, now) => commitmentsAt(now, within) },
    claims: { claimed: listCommitmentExpiryClaims, claim: claimCommitmentExpiry },
    enqueue: async (n) => {
      sent.push(n);
    },
    appUrl: 'https://console.example.test',
  };
}

function evaluatorInto(sent: Notification[], at: Date) {
  const expiry = depsInto(sent);
  return {
    source: { read: async () => null },
    store: evaluationStore,
    enqueueNotifications: collectingQueue(sent),
    kinds: {
      COMMITMENT_EXPIRY: (alert: Parameters<typeof evaluateCommitmentExpiry>[0], now: Date) =>
        evaluateCommitmentExpiry(alert, expiry, now),
    },
    now: () => at,
  };
}

/** One sweep at `at` over this organisation, and the evaluation of what it enqueued. */
async function tick(at: Date, sent: Notification[]) {
  const msgs: EvaluationMessage[] = [];
  await sweepDueAlerts(at, { index: dueAlertIndex, send: collectingQueue(msgs) }, (o) => o === orgId);
  const out = await evaluateMessages(msgs, evaluatorInto(sent, at));
  for (const o of out) if (!o.ok) throw o.error;
  return msgs;
}

const slack = { notificationChannel: 'SLACK' as const, slackChannelId: 'C-expiry' };

/** An expiring-commitment alert `name` posting to Slack channel C-expiry, created at `at`. */
const slackAlert = (name: string, withinDays: 30 | 60 | 90, at: Date) =>
  createCommitmentAlert(principal, { name, withinDays, emails: [], ...slack }, at);

describe('expiring-commitment alerts', () => {
  test('a 90-day alert announces each commitment once per window, across sweeps and redeliveries', async () => {
    const t0 = new Date('2026-11-28T05:00:00Z');
    const alert = await slackAlert('renewals', 90, t0);
    const sent: Notification[] = [];
    // 2026-11-28: sp-1 has 43 days left (60-day window), ri-1 112 (none), ri-far 277 (none).
    const msgs = await tick(new Date('2026-11-28T05:30:00Z'), sent);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.message.text).toContain(
      'Compute SP (sp-1): AWS, Savings Plan, ends 2027-01-10 (43 days left)',
    );
    expect(sent[0]!.message.text).toContain('hourly commitment 2.4/h, utilisation 87.5% (last 30 days)');
    expect(sent[0]!.message.text).toContain('https://console.example.test/#/commitments');
    expect(sent[0]!.slackChannelId).toBe('C-expiry');
    // The same message redelivered, and later sweeps the same day: nothing more.
    await evaluateMessages(msgs, evaluatorInto(sent, new Date('2026-11-28T05:31:00Z')));
    await tick(new Date('2026-11-28T06:00:00Z'), sent);
    await tick(new Date('2026-11-29T06:00:00Z'), sent);
    expect(sent).toHaveLength(1);
    // 2026-12-20: ri-1 enters the 90-day window (90 days left); sp-1 enters the 30-day one (21 left).
    await tick(new Date('2026-12-20T06:00:00Z'), sent);
    expect(sent).toHaveLength(2);
    expect(sent[1]!.message.text).toContain('2 commitments ending within 90 days (as of 2026-12-20)');
    expect(sent[1]!.message.text).toContain('sp-1): AWS, Savings Plan, ends 2027-01-10 (21 days left)');
    expect(sent[1]!.message.text).toContain('ri-1: Microsoft, Reservation, ends 2027-03-20 (90 days left)');
    expect(sent[1]!.message.text).toContain('hourly commitment unknown, utilisation unknown');
    await tick(new Date('2026-12-21T06:00:00Z'), sent);
    expect(sent).toHaveLength(2);
    expect([...(await listCommitmentExpiryClaims(orgId, alert.id))].sort()).toEqual([
      '30#sp-1',
      '60#sp-1',
      '90#ri-1',
    ]);
    await archiveCommitmentAlert(principal, alert.id, undefined, new Date('2026-12-21T07:00:00Z'));
  });

  test('a 30-day alert announces only the last window; a commitment first seen late is announced once', async () => {
    const alert = await slackAlert('last month', 30, new Date('2026-12-25T05:00:00Z'));
    const sent: Notification[] = [];
    // 16 days left: inside 30, 60 and 90, announced once (the 30-day window).
    await tick(new Date('2026-12-25T06:00:00Z'), sent);
    await tick(new Date('2026-12-26T06:00:00Z'), sent);
    expect(sent.filter((n) => n.alertId === alert.id)).toHaveLength(1);
    expect([...(await listCommitmentExpiryClaims(orgId, alert.id))]).toEqual(['30#sp-1']);
    await archiveCommitmentAlert(principal, alert.id, undefined, new Date('2026-12-26T07:00:00Z'));
  });

  test('snoozed and archived alerts send nothing and claim nothing', async () => {
    const t0 = new Date('2027-01-02T05:00:00Z');
    const snoozed = await slackAlert('snoozed', 90, t0);
    const archived = await slackAlert('archived', 90, t0);
    await snoozeCommitmentAlert(principal, snoozed.id, '2027-02-01T00:00:00Z', undefined, t0);
    await archiveCommitmentAlert(principal, archived.id, undefined, t0);
    const sent: Notification[] = [];
    await tick(new Date('2027-01-02T06:00:00Z'), sent);
    // The sweep skips a snoozed alert; a redelivered message of it evaluates but sends nothing.
    const out = await evaluateMessages(
      [{ orgId, alertIds: [snoozed.id, archived.id], scheduledFor: t0.toISOString() }],
      evaluatorInto(sent, new Date('2027-01-02T06:01:00Z')),
    );
    expect(out[0]).toMatchObject({ ok: true, value: [{ triggered: true, suppressedBy: 'SNOOZE' }, null] });
    expect(sent).toHaveLength(0);
    expect(await listCommitmentExpiryClaims(orgId, snoozed.id)).toEqual(new Set());
    const listed = await listCommitmentAlerts(principal, { limit: 50, includeArchived: false });
    expect(listed.items.map((a) => a.name)).toEqual(['snoozed']);
    expect(listed.items[0]).toMatchObject({
      withinDays: 90,
      notificationChannel: 'SLACK',
      snoozedUntil: '2027-02-01T00:00:00.000Z',
    });
  });

  test('the notification target is checked like the cost alerts’', async () => {
    await expect(
      createCommitmentAlert(principal, {
        name: 'x',
        withinDays: 30,
        emails: [],
        notificationChannel: 'EMAIL',
      }),
    ).rejects.toThrow(/at least one e-mail address/);
    await expect(
      createCommitmentAlert(principal, {
        name: 'x',
        withinDays: 30,
        emails: [],
        notificationChannel: 'TEAMS',
        teamsChannelId: 'http://169.254.169.254/latest',
      }),
    ).rejects.toThrow(/teamsChannelId/);
  });

  test('PUT replaces the definition (If-Match versioned), unsnooze ends the snooze, and the claims stay', async () => {
    const t0 = new Date('2026-12-20T05:00:00Z');
    const alert = await slackAlert('to edit', 30, t0);
    expect(alert.version).toBe(1);
    const sent: Notification[] = [];
    await tick(new Date('2026-12-20T06:00:00Z'), sent); // sp-1 (21 days left) announced in the 30-day window
    expect([...(await listCommitmentExpiryClaims(orgId, alert.id))]).toEqual(['30#sp-1']);
    const body = {
      name: 'edited',
      withinDays: 90 as const,
      notificationChannel: 'EMAIL' as const,
      emails: ['ops@example.com'],
    };
    await expect(updateCommitmentAlert(principal, alert.id, body, '"7"')).rejects.toMatchObject({
      status: 409,
    });
    const edited = await updateCommitmentAlert(principal, alert.id, body, '"1"');
    expect(edited).toMatchObject({
      name: 'edited',
      withinDays: 90,
      notificationChannel: 'EMAIL',
      emails: ['ops@example.com'],
      slackChannelId: null,
      version: 2,
      createdAt: alert.createdAt,
    });
    // A member who did not create it may not change it; the target is checked as at creation.
    const member: Principal = { ...principal, principalId: 'user_b', role: 'member' };
    await expect(updateCommitmentAlert(member, alert.id, body, undefined)).rejects.toMatchObject({
      status: 403,
    });
    await expect(
      updateCommitmentAlert(principal, alert.id, { ...body, emails: [] }, undefined),
    ).rejects.toThrow(/at least one e-mail address/);
    // The wider window announces what it newly holds (ri-1, 90 days) once; sp-1 stays claimed.
    await tick(new Date('2026-12-21T06:00:00Z'), sent);
    expect([...(await listCommitmentExpiryClaims(orgId, alert.id))].sort()).toEqual(['30#sp-1', '90#ri-1']);
    const snoozed = await snoozeCommitmentAlert(principal, alert.id, '2027-06-01T00:00:00Z', '"2"', t0);
    expect([snoozed.snoozedUntil, snoozed.version]).toEqual(['2027-06-01T00:00:00.000Z', 3]);
    const woken = await unsnoozeCommitmentAlert(principal, alert.id, '"3"');
    expect([woken.snoozedUntil, woken.version]).toEqual([null, 4]);
    expect((await unsnoozeCommitmentAlert(principal, alert.id)).version).toBe(4); // idempotent
    const archived = await archiveCommitmentAlert(principal, alert.id);
    await expect(updateCommitmentAlert(principal, alert.id, body, undefined)).rejects.toMatchObject({
      status: 409,
    });
    expect(archived.archivedAt).not.toBeNull();
    await expect(updateCommitmentAlert(principal, 'alert_unknown', body, undefined)).rejects.toMatchObject({
      status: 404,
    });
  });
});
