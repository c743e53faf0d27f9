import type { Notification } from '../../shared/domain/alerts/notification';

/** An alert notification of `message` by e-mail to finops@example.com, for building the raw e-mail. */
export function emailNotification(
  message: Notification['message'],
  fields: Partial<Notification> & Pick<Notification, 'id' | 'alertId'>,
): Notification {
  return {
    orgId: 'org_x',
    kind: 'ALERT',
    channel: 'EMAIL',
    emails: ['finops@example.com'],
    slackChannelId: null,
    teamsUrl: null,
    message,
    createdAt: '2026-11-21T06:00:00.000Z',
    ...fields,
  };
}
