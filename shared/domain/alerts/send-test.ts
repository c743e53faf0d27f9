import type { Principal } from '../../auth/principal';
import { enqueue } from '../../cloud/queue';
import { BadRequestError } from '../../errors';
import { newId } from '../../ids';
import { webhookUrlProblem } from '../../net/address-policy';
import { QUEUE } from '../../queues';
import type { BudgetTestMessage } from '../budgets/alerts/send-test';
import type { SendTestInput } from './schemas';
import { webhookPolicy } from './service';

export const TEST_SENT_MESSAGE = 'Test notification sent successfully';

/**
 * Sends a sample of the budget-alert message (`sampleBudgetFiring`, marked as a test, with its burn
 * chart) through the delivery path: rendered by the worker that draws budget alerts' burn charts
 * (`alert-evaluation` queue, `sendBudgetTest`), then the `notifications` queue and its worker. EMAIL needs `emails`, SLACK `slackChannelId`, TEAMS `teamsChannelId` (a Teams
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
  const test: BudgetTestMessage = {
    kind: 'budget-test',
    notification: {
      id: newId('ntest'),
      orgId: principal.orgId,
      kind: 'TEST',
      alertId: null,
      channel,
      emails: channel === 'EMAIL' ? input.emails : [],
      slackChannelId: channel === 'SLACK' ? (input.slackChannelId ?? null) : null,
      teamsUrl: channel === 'TEAMS' ? (input.teamsChannelId ?? null) : null,
      createdAt: now.toISOString(),
    },
  };
  await enqueue(QUEUE.alertEvaluation, test);
  return { message: TEST_SENT_MESSAGE };
}
