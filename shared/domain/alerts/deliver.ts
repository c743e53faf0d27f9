import { log } from '../../log';
import type { AlertChannel } from '../../model/alerts';
import type { Notification } from './notification';
import type { DeliveryStore } from './ports';

/**
 * Delivers one notification at most once: the delivery record is claimed with a conditional write
 * before anything is sent. A redelivered message whose record is `sent` sends nothing; one whose
 * last attempt failed (the provider refused it) is retried; one still `sending` under another
 * worker's lease is retried later; a `sending` record whose lease ran out (a worker died mid-send,
 * so whether the provider got it is unknown) is closed as `unknown` and not sent again.
 */
export type ChannelSender = (n: Notification) => Promise<void>;

export class DeliveryInProgressError extends Error {
  override name = 'DeliveryInProgressError';
}

export type DeliveryOutcome = 'sent' | 'duplicate' | 'abandoned';

export const DELIVERY_LEASE_SECONDS = 120;

export interface DeliverDeps {
  store: DeliveryStore;
  senders: Record<AlertChannel, ChannelSender>;
  now?: () => Date;
}

export async function deliverNotification(n: Notification, deps: DeliverDeps): Promise<DeliveryOutcome> {
  const { store, senders, now = () => new Date() } = deps;
  const claim = await store.claim(n.orgId, n.id, now(), DELIVERY_LEASE_SECONDS);
  if (!claim.claimed) {
    const existing = claim.existing;
    if (!existing || existing.status === 'sent' || existing.status === 'unknown') return 'duplicate';
    if (existing.status === 'sending' && Date.parse(existing.leaseUntil) > now().getTime())
      throw new DeliveryInProgressError(`notification ${n.id} is being sent by another worker`);
    await store
      .finish(n.orgId, n.id, 'unknown', now(), 'a previous attempt stopped mid-send')
      .catch(() => {});
    log.warn('notification abandoned: a previous attempt stopped mid-send', { id: n.id, orgId: n.orgId });
    return 'abandoned';
  }
  try {
    await senders[n.channel](n);
  } catch (error) {
    await store.finish(n.orgId, n.id, 'failed', now(), String((error as Error)?.message ?? error));
    throw error;
  }
  await store.finish(n.orgId, n.id, 'sent', now());
  return 'sent';
}
