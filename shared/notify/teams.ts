import { type MessageImageStore, messageImageStore, publishMessageImage } from '../cloud/message-images';
import { CARD_FOOTER_ID, type Notification } from '../domain/alerts/notification';
import { log } from '../log';
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

/** A published image: its URL and what it shows. */
export interface CardImage {
  url: string;
  alt: string;
}

/**
 * The card with its images: each an `Image` element, full width, after the message's text and
 * before its footer (the element whose `id` is `CARD_FOOTER_ID`; at the end without one). The card
 * is the renderer's, left as it is. Clicking the image opens it at full size.
 */
export function cardWithImages(card: Record<string, unknown>, images: CardImage[]): Record<string, unknown> {
  if (images.length === 0) return card;
  const body: unknown[] = Array.isArray(card.body) ? [...card.body] : [];
  const footer = body.findIndex((b) => (b as { id?: unknown } | null)?.id === CARD_FOOTER_ID);
  const at = footer >= 0 ? footer : body.length;
  body.splice(
    at,
    0,
    ...images.map((i) => ({
      type: 'Image',
      url: i.url,
      altText: i.alt,
      size: 'Stretch',
      spacing: 'Medium',
      selectAction: { type: 'Action.OpenUrl', url: i.url, title: 'Open the chart' },
    })),
  );
  return { ...card, body };
}

/**
 * The message's images published (an incoming webhook refuses messages over ~28 KB, so a chart
 * cannot travel inline): their URLs, or none when the deployment has no image store or publishing
 * fails — the card then goes without its chart rather than not at all.
 */
async function publishedImages(n: Notification, store: MessageImageStore | undefined): Promise<CardImage[]> {
  const images = n.message.images ?? [];
  if (images.length === 0 || !store) return [];
  try {
    return await Promise.all(
      images.map(async (i) => ({
        url: await publishMessageImage(store, Buffer.from(i.base64, 'base64')),
        alt: i.alt ?? 'Chart',
      })),
    );
  } catch (error) {
    log.warn('Teams card image not published: the card goes without it', { id: n.id, error });
    return [];
  }
}

export async function sendTeams(
  n: Notification,
  policy: WebhookPolicy,
  store: MessageImageStore | undefined = messageImageStore(),
): Promise<void> {
  if (!n.teamsUrl) throw new Error('TEAMS notification without a webhook URL');
  const card = cardWithImages(n.message.teamsCard, await publishedImages(n, store));
  const res = await postWebhook(n.teamsUrl, teamsPayload(card), policy);
  // Workflows answers 202 Accepted (200 for some flows); anything else is a failure to retry.
  if (res.status !== 200 && res.status !== 202)
    throw new Error(`Teams webhook answered ${res.status}: ${res.text.slice(0, 200)}`);
}
