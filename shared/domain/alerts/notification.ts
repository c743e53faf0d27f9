import * as v from 'valibot';
import { ALERT_CHANNELS } from '../../model/alerts';

/**
 * The `id` of a Teams card's footer (the cost alert's period line, the commitment alert's API
 * line): the message's images go before it, or at the end of the body when the card has none (a
 * budget alert's ends with its root causes).
 */
export const CARD_FOOTER_ID = 'footer';

/**
 * A notification as it travels on the `notifications` queue: already rendered (the renderer is pure
 * and runs where the firing is known), addressed to one channel, with an id that makes its delivery
 * idempotent (`alert id + evaluated day` for alerts, a random id for test sends).
 */
export interface RenderedMessage {
  subject: string;
  html: string;
  text: string;
  /** Slack Block Kit blocks, and the plain text Slack shows in notifications and old clients. */
  slackBlocks: Record<string, unknown>[];
  slackText: string;
  /** An Adaptive Card (1.5) for a Teams Workflows webhook (its images go before `CARD_FOOTER_ID`). */
  teamsCard: Record<string, unknown>;
  /**
   * PNG images (a cost alert's chart, a budget alert's burn chart): inline in the e-mail
   * (`cid:<filename>`), uploaded to Slack, published and shown by URL in Teams; `alt` says what it shows.
   */
  images?: { filename: string; base64: string; alt?: string }[];
}

export const RenderedMessageSchema = v.object({
  subject: v.pipe(v.string(), v.maxLength(998)),
  html: v.string(),
  text: v.string(),
  slackBlocks: v.array(v.record(v.string(), v.unknown())),
  slackText: v.string(),
  teamsCard: v.record(v.string(), v.unknown()),
  images: v.optional(
    v.array(
      v.object({
        filename: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.-]{1,100}\.png$/)),
        base64: v.string(),
        alt: v.optional(v.pipe(v.string(), v.maxLength(500))),
      }),
    ),
  ),
});

export const NotificationSchema = v.object({
  id: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_.:#-]{1,200}$/)),
  orgId: v.pipe(v.string(), v.minLength(1)),
  kind: v.picklist(['ALERT', 'TEST']),
  alertId: v.nullable(v.string()),
  channel: v.picklist(ALERT_CHANNELS),
  emails: v.array(v.string()),
  slackChannelId: v.nullable(v.string()),
  teamsUrl: v.nullable(v.string()),
  message: RenderedMessageSchema,
  createdAt: v.string(),
});
export type Notification = v.InferOutput<typeof NotificationSchema>;

export class PoisonNotificationError extends Error {
  override name = 'PoisonNotificationError';
}

/** Parses a queue message body; anything else is a poison message (it ends in the DLQ). */
export function parseNotification(body: string): Notification {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new PoisonNotificationError('notification is not JSON');
  }
  const result = v.safeParse(NotificationSchema, json);
  if (!result.success)
    throw new PoisonNotificationError(`notification is malformed: ${result.issues[0]?.message}`);
  return result.output;
}

/** Where an alert's notification goes: its organisation, the alert and its channel's targets. */
export function alertAddress(alert: {
  id: string;
  organizationId: string;
  notificationChannel: Notification['channel'];
  emails: string[];
  slackChannelId: string | null;
  teamsChannelId: string | null;
}): Pick<Notification, 'orgId' | 'kind' | 'alertId' | 'channel' | 'emails' | 'slackChannelId' | 'teamsUrl'> {
  return {
    orgId: alert.organizationId,
    kind: 'ALERT',
    alertId: alert.id,
    channel: alert.notificationChannel,
    emails: alert.emails,
    slackChannelId: alert.slackChannelId,
    teamsUrl: alert.teamsChannelId,
  };
}

/** The notification id of an alert firing: one per alert and evaluated day, so a replay is recognised. */
export function alertNotificationId(alertId: string, evaluatedDay: string): string {
  return `${alertId}:${evaluatedDay}`;
}
