import type { Principal } from '../../auth/principal';
import { enqueue } from '../../cloud/queue';
import { config } from '../../config';
import { BadRequestError } from '../../errors';
import { newId } from '../../ids';
import { webhookUrlProblem } from '../../net/address-policy';
import { QUEUE } from '../../queues';
import type { Notification } from './notification';
import { type AlertFiring, renderAlertMessage } from './render';
import type { SendTestInput } from './schemas';
import { webhookPolicy } from './service';

export const TEST_SENT_MESSAGE = 'Test notification sent successfully';

/** The sample a test send renders: an EC2 spike against its 28-day median, marked as a test. */
export function sampleFiring(now: Date, appUrl: string): AlertFiring {
  const day = new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
  return {
    alert: {
      id: 'alrt_test',
      name: 'Test notification',
      description: 'A sample alert, sent to check that this channel receives cost alerts.',
      currency: 'USD',
      queries: [
        {
          type: 'cost',
          name: 'ec2',
          alias: 'EC2 cost',
          visible: true,
          colorIndex: 0,
          chartType: 'LINE',
          extendDashboardConditions: true,
          colorPalette: 'DEFAULT',
        },
      ],
      queryName: 'ec2',
      condition: 'ec2 > rollingMedian(ec2, 28, DAY) * 1.5 and ec2 > 100',
      thresholdType: 'ABOVE',
      evaluationPeriod: 'DAILY',
      urlState: '',
      scopeId: null,
    },
    thresholds: [],
    evaluatedDay: day,
    period: { start: day, end: day },
    values: { ec2: 1240 },
    baselines: { 'rollingMedian(ec2,28,DAY)': 540 },
    appUrl,
    test: true,
  };
}

/**
 * Sends a sample notification through the delivery path (the `notifications` queue and its worker,
 * as alerts do). EMAIL needs `emails`, SLACK `slackChannelId`, TEAMS `teamsChannelId` (a Teams
 * Workflows webhook URL, checked like an alert's).
 */
export async function sendTestNotification(principal: Principal, input: SendTestInput, now = new Date()) {
  const channel = input.notificationChannel;
  if (channel === 'EMAIL' && input.emails.length === 0)
    throw new BadRequestError(
      'emails: at least one e-mail address is required for notificationChannel EMAIL',
    );
  if (channel === 'SLACK' && !input.slackChannelId)
    throw new BadRequestError('slackChannelId is required for notificationChannel SLACK');
  if (channel === 'TEAMS') {
    if (!input.teamsChannelId)
      throw new BadRequestError(
        'teamsChannelId (a Teams Workflows webhook URL) is required for notificationChannel TEAMS',
      );
    const problem = webhookUrlProblem(input.teamsChannelId, webhookPolicy());
    if (problem) throw new BadRequestError(`teamsChannelId ${problem}`);
  }
  const notification: Notification = {
    id: newId('ntest'),
    orgId: principal.orgId,
    kind: 'TEST',
    alertId: null,
    channel,
    emails: channel === 'EMAIL' ? input.emails : [],
    slackChannelId: channel === 'SLACK' ? (input.slackChannelId ?? null) : null,
    teamsUrl: channel === 'TEAMS' ? (input.teamsChannelId ?? null) : null,
    message: renderAlertMessage(sampleFiring(now, config().consoleBaseUrl)),
    createdAt: now.toISOString(),
  };
  await enqueue(QUEUE.notifications, notification);
  return { message: TEST_SENT_MESSAGE };
}
