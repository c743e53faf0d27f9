import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { recentMonths, writeFocusCsv } from '../../infra/local/demo-data/generator';
import type { Principal } from '../../shared/auth/principal';
import { resetQueueClient } from '../../shared/cloud/queue';
import { resetConfig } from '../../shared/config';
import type { Notification } from '../../shared/domain/alerts/notification';
import { CreateAlertBody } from '../../shared/domain/alerts/schemas';
import { createAlert } from '../../shared/domain/alerts/service';
import { queueTeamOperation } from '../../shared/domain/teams/operations';
import type { Report } from '../../shared/model/reports';
import { parseOrThrow } from '../../shared/validation';
import { getWarehouse } from '../../shared/warehouse/warehouse';
import { conditionBody } from '../unit/alerts/fixtures';
import { costQuery } from './explorer';
import { adminOf as admin } from './principals';

/**
 * What the worker and schedule suites of test/reliability share: queues of the test's own that
 * a worker's follow-up messages go to, the SES store, and records whose processing has an effect
 * that can be counted (an alert that always fires, a report with one e-mail destination).
 */

export const testSqs = (): SQSClient =>
  new SQSClient({
    endpoint: process.env.SQS_ENDPOINT,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });

/**
 * What a reliability suite opens once: its own SQS client, a tag that makes its ids unique, and
 * cleanups that run (then the client is closed) after its tests.
 */
export function reliabilitySuite(): { sqs: SQSClient; run: string; cleanups: (() => Promise<unknown>)[] } {
  const sqs = testSqs();
  const cleanups: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const c of cleanups) await c().catch(() => undefined);
    sqs.destroy();
  });
  return { sqs, run: `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`, cleanups };
}

/**
 * Points this process's `envVar` (e.g. `QUEUE_URL_NOTIFICATIONS`) at a new queue and answers a
 * reader of everything sent to it so far (received messages stay hidden, so each is read once and
 * kept). `cleanups` gets the queue's deletion.
 */
export async function captureQueue(
  sqs: SQSClient,
  name: string,
  envVar: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<() => Promise<string[]>> {
  const q = await sqs.send(
    new CreateQueueCommand({
      QueueName: `rel-${name}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`,
    }),
  );
  process.env[envVar] = q.QueueUrl ?? '';
  resetConfig();
  resetQueueClient();
  cleanups.push(() => sqs.send(new DeleteQueueCommand({ QueueUrl: q.QueueUrl })));
  const seen: string[] = [];
  return async () => {
    for (;;) {
      const res = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 600 }),
      );
      if (!res.Messages?.length) return seen;
      seen.push(...res.Messages.map((m) => m.Body ?? ''));
    }
  };
}

/** A TEST notification (a `notifications` message) e-mailing `address` one line of text. */
export const testEmailNotification = (
  id: string,
  orgId: string,
  address: string,
  subject: string,
): Notification => ({
  id,
  orgId,
  kind: 'TEST',
  alertId: null,
  channel: 'EMAIL',
  emails: [address],
  slackChannelId: null,
  teamsUrl: null,
  message: { subject, html: '<p>x</p>', text: 'x', slackBlocks: [], slackText: 'x', teamsCard: {} },
  createdAt: new Date().toISOString(),
});

/** Queues a pending delete of `teamId` (outbox, then its hand-off to `team-operations`), by `user_rel`. */
export async function queueTeamDelete(orgId: string, teamId: string, operationId: string, at: string) {
  await queueTeamOperation({
    operationId,
    orgId,
    teamId,
    kind: 'delete',
    status: 'PENDING',
    actorId: 'user_rel',
    actorKind: 'user',
    createdAt: at,
    updatedAt: at,
  });
}

/** E-mails the SES emulator holds for `address`. */
export async function emailCount(address: string): Promise<number> {
  const { emails } = (await (await fetch(`${process.env.SES_ENDPOINT}/store`)).json()) as {
    emails: { destination: { to: string[] } }[];
  };
  return emails.filter((e) => e.destination.to.some((t) => t.includes(address))).length;
}

/** The reliability suites' admin. */
export const adminOf = (orgId: string): Principal => admin(orgId, 'user_rel');

/** Generated billing data up to today for `orgId`, in this process's warehouse. */
export async function seedRecentBilling(orgId: string): Promise<void> {
  const csv = join(mkdtempSync(join(tmpdir(), 'rel-billing-')), 'billing.csv');
  const now = new Date();
  await writeFocusCsv(csv, {
    seed: 3,
    months: recentMonths(1, now, true),
    until: now.toISOString().slice(0, 10),
    resourcesPerProvider: 2,
    providers: ['AWS'],
    accountPrefix: '7000',
  });
  await (await getWarehouse()).ingestFile({ orgId, path: csv, sourceName: 'billing.csv' });
}

/** A cost alert that fires on any day with data (`spend >= 0`), e-mailing `address`. */
export async function firingAlert(orgId: string, name: string, address: string, at = new Date()) {
  const body = conditionBody({
    name,
    queries: [costQuery('spend')],
    condition: 'spend >= 0',
    emails: [address],
  });
  return createAlert(adminOf(orgId), parseOrThrow(CreateAlertBody, body, 'plain', 'body'), at);
}

/** A one-TEXT-widget report e-mailed to `address`, stored as the repository stores it. */
export function emailReport(orgId: string, id: string, address: string, over: Partial<Report> = {}): Report {
  const at = new Date().toISOString();
  return {
    id,
    organizationId: orgId,
    name: `Reliability ${id}`,
    description: '',
    type: 'PUBLIC',
    teamId: null,
    context: { metricId: 'cost', groupBy: null, datePreset: 'LAST_MONTH', currency: 'USD' },
    scheduledPeriod: null,
    scheduledWeekday: null,
    status: 'ACTIVE',
    widgets: [{ type: 'TEXT', contentMarkdown: `Report **${id}**` }],
    destinations: [{ destinationType: 'EMAIL', destinationValues: [address] }],
    createdById: 'user_rel',
    createdAt: at,
    updatedAt: at,
    archivedAt: null,
    version: 1,
    nextRunAt: null,
    ...over,
  } as unknown as Report;
}

/** Resolves once `check` answers true, polling every 100 ms; throws after `timeoutMs`. */
export async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('condition not met in time');
}
