import { getDelivery, putDelivery } from '../../../shared/db/notifications-repo';
import { deliveryStore } from '../../../shared/domain/alerts/adapters/delivery';
import { DeliveryInProgressError, deliverNotification } from '../../../shared/domain/alerts/deliver';
import type { Notification } from '../../../shared/domain/alerts/notification';

const run = Math.random().toString(36).slice(2, 8);
let seq = 0;

function notification(): Notification {
  seq++;
  return {
    id: `alrt_it${run}:2026-11-${String(seq).padStart(2, '0')}`,
    orgId: `org_deliv${run}`,
    kind: 'ALERT',
    alertId: `alrt_it${run}`,
    channel: 'SLACK',
    emails: [],
    slackChannelId: 'C1',
    teamsUrl: null,
    message: { subject: 's', html: '<p>h</p>', text: 't', slackBlocks: [], slackText: 't', teamsCard: {} },
    createdAt: new Date().toISOString(),
  };
}

function counting(fail = 0) {
  const sent: string[] = [];
  let failures = fail;
  const send = async (n: Notification) => {
    if (failures > 0) {
      failures--;
      throw new Error('provider said no');
    }
    sent.push(n.id);
  };
  return { sent, senders: { EMAIL: send, SLACK: send, TEAMS: send } };
}

describe('notification delivery is idempotent per notification id', () => {
  test('a redelivery of a sent notification sends nothing', async () => {
    const n = notification();
    const c = counting();
    expect(await deliverNotification(n, { store: deliveryStore, senders: c.senders })).toBe('sent');
    expect(await deliverNotification(n, { store: deliveryStore, senders: c.senders })).toBe('duplicate');
    expect(await deliverNotification({ ...n }, { store: deliveryStore, senders: c.senders })).toBe(
      'duplicate',
    );
    expect(c.sent).toEqual([n.id]);
    expect(await getDelivery(n.orgId, n.id)).toMatchObject({ status: 'sent', attempts: 1 });
  });

  test('a failed send is recorded and the retry sends once', async () => {
    const n = notification();
    const c = counting(1);
    await expect(deliverNotification(n, { store: deliveryStore, senders: c.senders })).rejects.toThrow(
      'provider said no',
    );
    expect(await getDelivery(n.orgId, n.id)).toMatchObject({ status: 'failed', error: 'provider said no' });
    expect(await deliverNotification(n, { store: deliveryStore, senders: c.senders })).toBe('sent');
    expect(await deliverNotification(n, { store: deliveryStore, senders: c.senders })).toBe('duplicate');
    expect(c.sent).toEqual([n.id]);
    expect(await getDelivery(n.orgId, n.id)).toMatchObject({ status: 'sent', attempts: 2 });
  });

  test('concurrent deliveries of one notification send it once', async () => {
    const n = notification();
    const c = counting();
    const outcomes = await Promise.allSettled(
      [1, 2, 3, 4].map(() => deliverNotification(n, { store: deliveryStore, senders: c.senders })),
    );
    expect(c.sent).toEqual([n.id]);
    for (const o of outcomes) {
      if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(DeliveryInProgressError);
      else expect(['sent', 'duplicate']).toContain(o.value);
    }
  });

  test('a send interrupted mid-way is not repeated once its lease ran out', async () => {
    const n = notification();
    const c = counting();
    const past = new Date(Date.now() - 3600_000).toISOString();
    await putDelivery(n.orgId, {
      id: n.id,
      status: 'sending',
      attempts: 1,
      leaseUntil: past,
      updatedAt: past,
    });
    expect(await deliverNotification(n, { store: deliveryStore, senders: c.senders })).toBe('abandoned');
    expect(c.sent).toEqual([]);
    expect(await getDelivery(n.orgId, n.id)).toMatchObject({ status: 'unknown' });
    expect(await deliverNotification(n, { store: deliveryStore, senders: c.senders })).toBe('duplicate');
  });
});
