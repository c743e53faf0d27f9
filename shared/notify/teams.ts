import type { Notification } from '../domain/alerts/notification';
import type { WebhookPolicy } from '../net/address-policy';
import { postWebhook } from '../net/guarded-fetch';

/** A Teams Workflows webhook takes a message with one Adaptive Card attachment. */
export function teamsPayload(card: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'message',
    attachments: [
      { contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card },
    ],
  };
}

export async function sendTeams(n: Notification, policy: WebhookPolicy): Promise<void> {
  if (!n.teamsUrl) throw new Error('TEAMS notification without a webhook URL');
  const res = await postWebhook(n.teamsUrl, teamsPayload(n.message.teamsCard), policy);
  // Workflows answers 202 Accepted (200 for some flows); anything else is a failure to retry.
  if (res.status !== 200 && res.status !== 202)
    throw new Error(`Teams webhook answered ${res.status}: ${res.text.slice(0, 200)}`);
}
