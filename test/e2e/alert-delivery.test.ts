import { GetQueueAttributesCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Notification } from '../../shared/domain/alerts/notification';
import { BURN_CHART_ALT } from '../../shared/domain/budgets/alerts/render';
import { atLeast, captured, emailsTo, pngSize, slackFiles } from '../support/alert-messages';
import { cardImagesOf } from '../support/browser';
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
    // A sample of the budget-alert message, marked as a test, over the month of yesterday.
    const month = new Date(Date.now() - 86_400_000).toISOString().slice(0, 7);
    expect(mails[0]!.subject).toBe(
      `[Test] Budget alert: Test notification — Test budget / Amazon Elastic Compute Cloud WARNING (${month})`,
    );
    const text = mails[0]!.body.text ?? '';
    expect(text).toMatch(/^This is a test notification: the figures below are a sample\./);
    expect(text).toContain('Threshold crossed: WARNING: forecast ≥ 90% of budget ($3,600)');
    expect(text).toContain(`Budget for ${month}: $4,000`);
    expect(text).toMatch(/: http.*\/console\/#\/budgets$/m);
    // Sample root causes, as a real budget-alert message has.
    expect(text).toContain('Top contributors by ');
    expect(text).toContain('sample-production / us-east-1: ');
    // Its sample burn chart, inline (the HTML uses its Content-ID), a real 800 × 420 PNG.
    const atts = mails[0]!.attachments ?? [];
    expect(atts.map((a) => [a.filename, a.contentType, a.contentDisposition, a.cid])).toEqual([
      ['burn-chart.png', 'image/png', 'inline', 'burn-chart.png'],
    ]);
    expect(pngSize(Buffer.from(atts[0]!.content, 'base64'))).toEqual({ width: 800, height: 420 });
    expect(mails[0]!.body.text).not.toContain('Cost alert');
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
    expect(JSON.stringify(posted[0]!.body.blocks)).toContain('Test budget');
    // The burn chart is shared in the message's thread.
    const ts = posted[0]!.answer?.ts;
    expect(ts).toEqual(expect.any(String));
    const shares = (await captured('slack')).filter(
      (c) => c.path === '/slack/api/files.completeUploadExternal' && c.body.channel_id === channel,
    );
    expect(shares.map((c) => c.body.thread_ts)).toEqual([ts]);
    const files = await slackFiles(channel);
    expect(files.map((f) => f.filename)).toEqual(['burn-chart.png']);
    expect(pngSize(Buffer.from(files[0]!.content ?? '', 'base64'))).toEqual({ width: 800, height: 420 });
    const cards = (await captured('teams')).filter((c) => c.path === `/teams/${run}`);
    expect(cards).toHaveLength(1);
    expect(JSON.stringify(cards[0]!.body)).toContain('[Test] Budget alert: Test notification');
    expect(cards[0]!.body).toMatchObject({
      type: 'message',
      attachments: [
        { contentType: 'application/vnd.microsoft.card.adaptive', content: { type: 'AdaptiveCard' } },
      ],
    });
    // The burn chart by URL (a webhook refuses a message that carries it): the same PNG as Slack's,
    // served without a credential, said in words for a screen reader.
    const images = cardImagesOf(cards[0]!.body);
    expect(images.map((i) => i.altText)).toEqual([BURN_CHART_ALT]);
    const got = await fetch(images[0]!.url);
    expect([got.status, got.headers.get('content-type'), got.headers.get('x-content-type-options')]).toEqual([
      200,
      'image/png',
      'nosniff',
    ]);
    expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(files[0]!.content ?? '', 'base64'))).toBe(
      true,
    );
    // Only names of the published shape are served: no other file of the folder, no path.
    const base = `${s().baseUrl}/message-images/`;
    const name = images[0]!.url.slice(base.length);
    expect(images[0]!.url.startsWith(base) && /^[A-Za-z0-9_-]{43}\.png$/.test(name)).toBe(true);
    for (const bad of [
      `${name.slice(0, -5)}x.png`,
      `..%2F${name}`,
      '..%2Fsession.json',
      name.replace('.png', ''),
    ])
      expect((await fetch(`${base}${bad}`)).status).toBe(404);
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
