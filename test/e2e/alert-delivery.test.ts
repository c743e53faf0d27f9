import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Notification } from '../../shared/domain/alerts/notification';
import { atLeast, captured, emailsTo } from '../support/alert-messages';
import { api, session } from '../support/session';

const s = () => session();
const member = () => s().apiKeys.member;
const run = Math.random().toString(36).slice(2, 8);

const drain = () => api('POST', '/_local/drain', { body: { timeoutMs: 60_000 } });

describe('budget alert test send and the notify worker', () => {
  test('EMAIL: answers the fixed message and the e-mail lands in the SES emulator once', async () => {
    const to = `test-${run}@example.com`;
    const res = await api('POST', '/alerts-v2/budgetAlerts/sendTest', {
      token: member(),
      body: { notificationChannel: 'EMAIL', emails: [to] },
    });
    expect(res).toMatchObject({ status: 200, body: { message: 'Test notification sent successfully' } });
    await drain();
    const mails = await atLeast(() => emailsTo(to), 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/^\[Test\] Cost alert: Test notification — \d{4}-\d{2}-\d{2}$/);
    expect(mails[0]!.body.text).toContain('EC2 cost on');
    expect(mails[0]!.body.text).toContain('2.3× its 28-day median of $540');
    expect(mails[0]!.body.html).toContain('Open in the explorer');
  });

  test('SLACK and TEAMS test sends reach the capture server', async () => {
    const channel = `C${run.toUpperCase()}`;
    const slack = await api('POST', '/alerts-v2/budgetAlerts/sendTest', {
      token: member(),
      body: { notificationChannel: 'SLACK', slackChannelId: channel },
    });
    expect(slack.status).toBe(200);
    const hook = `${s().endpoints.capture}/teams/${run}`;
    const teams = await api('POST', '/alerts-v2/budgetAlerts/sendTest', {
      token: member(),
      body: { notificationChannel: 'TEAMS', teamsChannelId: hook },
    });
    expect(teams.status).toBe(200);
    await drain();
    const posted = (await atLeast(() => captured('slack'), 1)).filter((c) => c.body.channel === channel);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.path).toBe('/slack/api/chat.postMessage');
    expect(posted[0]!.headers.authorization).toMatch(/^Bearer /);
    expect(JSON.stringify(posted[0]!.body.blocks)).toContain('28-day median');
    const cards = (await captured('teams')).filter((c) => c.path === `/teams/${run}`);
    expect(cards).toHaveLength(1);
    expect(cards[0]!.body).toMatchObject({
      type: 'message',
      attachments: [
        { contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard' } },
      ],
    });
  });

  test('a bad channel, bad e-mails or a missing target is a 400 {error}', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ notificationChannel: 'PIGEON', emails: ['a@example.com'] }, /notificationChannel/],
      [{ notificationChannel: 'EMAIL', emails: ['nope'] }, /emails\.0/],
      [{ notificationChannel: 'EMAIL', emails: [] }, /emails/],
      [{ notificationChannel: 'SLACK' }, /slackChannelId/],
      [{ notificationChannel: 'TEAMS', teamsChannelId: 'https://127.0.0.1/x' }, /loopback/],
    ];
    for (const [body, message] of cases) {
      const res = await api<{ error: string }>('POST', '/alerts-v2/budgetAlerts/sendTest', {
        token: member(),
        body,
      });
      expect({ status: res.status, keys: Object.keys(res.body) }).toEqual({ status: 400, keys: ['error'] });
      expect(res.body.error).toMatch(message);
    }
  });

  test('a poison message lands in the DLQ and the rest of its batch is delivered', async () => {
    const q = s().queues.notifications!;
    const sqs = new SQSClient({
      endpoint: s().endpoints.sqs,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const dlqDepth = async () => {
      const r = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: q.dlqUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      );
      return Number(r.Attributes?.ApproximateNumberOfMessages ?? 0);
    };
    const before = await dlqDepth();
    const to = `batch-${run}@example.com`;
    const good: Notification = {
      id: `ntest_batch_${run}`,
      orgId: s().orgId,
      kind: 'TEST',
      alertId: null,
      channel: 'EMAIL',
      emails: [to],
      slackChannelId: null,
      teamsUrl: null,
      message: {
        subject: `batch ${run}`,
        html: '<p>ok</p>',
        text: 'ok',
        slackBlocks: [],
        slackText: 'ok',
        teamsCard: {},
      },
      createdAt: new Date().toISOString(),
    };
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: q.url,
        Entries: [
          { Id: 'poison', MessageBody: '{"not":"a notification"' },
          { Id: 'good', MessageBody: JSON.stringify(good) },
          { Id: 'again', MessageBody: JSON.stringify(good) },
        ],
      }),
    );
    const drained = await api<{ drained: boolean }>('POST', '/_local/drain', { body: { timeoutMs: 90_000 } });
    expect(drained.body.drained).toBe(true);
    expect(await dlqDepth()).toBe(before + 1);
    // The good notification was sent once, though it was on the queue twice.
    expect(await emailsTo(to)).toHaveLength(1);
    sqs.destroy();
  }, 120_000);
});
