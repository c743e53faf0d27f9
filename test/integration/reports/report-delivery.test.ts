import { createServer } from 'node:http';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { handler } from '../../../functions/workers/report-delivery';
import { resetConfig } from '../../../shared/config';
import { db, tableName } from '../../../shared/db/client';
import { keys } from '../../../shared/db/keys';
import {
  getReport,
  insertReport,
  listDeliveries,
  listDueReports,
  setFirstNextRun,
} from '../../../shared/db/reports-repo';
import {
  backfillNextRuns,
  type DeliveryMessage,
  deliverRun,
  type Senders,
  sweepDueReports,
} from '../../../shared/domain/reports/delivery';
import type { Report } from '../../../shared/model/reports';
import { WebhookRefusedError } from '../../../shared/net/guarded-fetch';
import type { Attachment } from '../../../shared/notify/email';
import { postSlackReport, sendReportEmail } from '../../../shared/notify/report-senders';
import { uploadSlackFiles } from '../../../shared/notify/slack';
import { isPdf, isValidPng, tinyPdf, tinyPng } from '../../support/report-delivery-files';

/**
 * Report delivery against the local stack's SES emulator and Slack capture server: attachments on
 * both channels, Slack's external upload flow, and the idempotency of each destination (a failing
 * one retried alone, a redelivered SQS message, a sweep ticked twice).
 */
const run = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const orgId = `org_rdlv${run}`;
const capture = () => process.env.CAPTURE_URL as string;
let seq = 0;
const uniq = () => `${run}${++seq}`;

interface StoredEmail {
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
  attachments: {
    filename: string;
    contentType: string;
    contentDisposition: string;
    cid?: string;
    content: string;
  }[];
}
interface CapturedCall {
  path: string;
  body: Record<string, unknown>;
  answer?: { ok: boolean; error?: string; ts?: string };
}
interface CapturedFile {
  id: string;
  filename: string;
  title: string | null;
  content: string | null;
  channels: string[];
}

async function emailsTo(address: string): Promise<StoredEmail[]> {
  const store = (await (await fetch(`${process.env.SES_ENDPOINT}/store`)).json()) as {
    emails: StoredEmail[];
  };
  return store.emails.filter((e) => e.destination.to.some((t) => t.includes(address)));
}
async function slackCalls(): Promise<CapturedCall[]> {
  return (await (await fetch(`${capture()}/messages?kind=slack`)).json()) as CapturedCall[];
}
/** chat.postMessage calls Slack accepted for the channel. */
async function postsTo(channel: string): Promise<CapturedCall[]> {
  return (await slackCalls()).filter(
    (c) => c.path.endsWith('/chat.postMessage') && c.body.channel === channel && c.answer?.ok === true,
  );
}
async function filesIn(channel: string): Promise<CapturedFile[]> {
  return (await (await fetch(`${capture()}/slack/files?channel=${channel}`)).json()) as CapturedFile[];
}
async function failChannel(channel: string, body: { error: string; times?: number; method?: string }) {
  const res = await fetch(`${capture()}/slack/failures/${channel}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
}
async function unfailChannel(channel: string) {
  await fetch(`${capture()}/slack/failures/${channel}`, { method: 'DELETE' });
}

const png = tinyPng(6, 4, [20, 120, 220]);
const pdf = tinyPdf('Dashboard costs');
const attachments: Attachment[] = [
  { filename: 'chart-spend.png', contentType: 'image/png', content: png, inline: true },
  { filename: 'dashboard.pdf', contentType: 'application/pdf', content: pdf, inline: false },
];
const message = (subject: string) => ({
  subject,
  html: '<html><body><h1>Spend</h1><img src="cid:chart-spend.png"></body></html>',
  text: 'Spend',
  slackText: `Spend ${subject}`,
  slackBlocks: [{ type: 'section', text: { type: 'mrkdwn', text: `*${subject}*` } }],
  attachments,
});

/** The worker's senders, with the attachments the renderer will produce (png16) added to each message. */
const sendersWithFiles: Senders = {
  email: (to, m, headers) => sendReportEmail(to, { ...m, attachments }, headers),
  slack: (channel, m, steps) => postSlackReport(channel, { ...m, attachments }, steps),
};

function report(over: Partial<Report> = {}): Report {
  const now = new Date().toISOString();
  return {
    id: `rep_${uniq()}`,
    organizationId: orgId,
    name: `Delivery ${run}`,
    description: '',
    type: 'PUBLIC' as Report['type'],
    teamId: null,
    context: {
      metricId: 'cost',
      groupBy: null,
      datePreset: 'LAST_MONTH',
      currency: 'USD',
    } as Report['context'],
    scheduledPeriod: null,
    scheduledWeekday: null,
    status: 'ACTIVE',
    widgets: [{ type: 'TEXT', contentMarkdown: 'Hello **team**' }] as Report['widgets'],
    destinations: [],
    createdById: 'usr_test',
    createdAt: now,
    updatedAt: now,
    archivedAt: null,
    version: 1,
    nextRunAt: null,
    ...over,
  };
}

const manual = (r: Report, runAt = new Date().toISOString()): DeliveryMessage => ({
  type: 'report-delivery',
  orgId: r.organizationId,
  reportId: r.id,
  runAt,
  trigger: 'MANUAL',
});

function sqsEvent(...bodies: unknown[]): SQSEvent {
  return {
    Records: bodies.map((b, i) => ({
      messageId: `m-${uniq()}-${i}`,
      receiptHandle: 'r',
      body: JSON.stringify(b),
      attributes: {} as never,
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:report-delivery',
      awsRegion: 'us-east-1',
    })),
  };
}

beforeAll(() => resetConfig());

describe('senders with attachments', () => {
  it('e-mails the PNG inline and the PDF attached, bytes intact, through SES', async () => {
    const to = `rd+${uniq()}@example.com`;
    await sendReportEmail(to, message('With files'), { 'X-Report-Id': 'rep_x' });
    const [mail, ...more] = await emailsTo(to);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('With files');
    const byName = Object.fromEntries(mail!.attachments.map((a) => [a.filename, a]));
    expect(byName['chart-spend.png']).toMatchObject({
      contentType: 'image/png',
      contentDisposition: 'inline',
      cid: 'chart-spend.png',
    });
    expect(byName['dashboard.pdf']).toMatchObject({
      contentType: 'application/pdf',
      contentDisposition: 'attachment',
    });
    const pngBack = Buffer.from(byName['chart-spend.png']!.content, 'base64');
    const pdfBack = Buffer.from(byName['dashboard.pdf']!.content, 'base64');
    expect(pngBack.equals(Buffer.from(png))).toBe(true);
    expect(isValidPng(pngBack)).toBe(true);
    expect(pdfBack.equals(Buffer.from(pdf))).toBe(true);
    expect(isPdf(pdfBack)).toBe(true);
  });

  it("posts the Slack message, then shares each file in the message's thread by the external upload flow", async () => {
    const channel = `CF${uniq().toUpperCase()}`;
    await postSlackReport(channel, message('Slack files'));
    const posts = await postsTo(channel);
    expect(posts).toHaveLength(1);
    const files = await filesIn(channel);
    expect(files.map((f) => [f.filename, f.title]).sort()).toEqual([
      ['chart-spend.png', 'chart-spend.png'],
      ['dashboard.pdf', 'dashboard.pdf'],
    ]);
    const bytes = Object.fromEntries(files.map((f) => [f.filename, Buffer.from(f.content ?? '', 'base64')]));
    expect(bytes['chart-spend.png']!.equals(Buffer.from(png))).toBe(true);
    expect(bytes['dashboard.pdf']!.equals(Buffer.from(pdf))).toBe(true);
    // The flow's requests: form-encoded filename + length, then one completion naming both files.
    const calls = await slackCalls();
    const ids = new Set(files.map((f) => f.id));
    const gets = calls.filter(
      (c) =>
        c.path.endsWith('/files.getUploadURLExternal') &&
        ids.has(String((c.answer as { file_id?: string })?.file_id)),
    );
    expect(
      gets.map((c) => c.body).sort((a, b) => String(a.filename).localeCompare(String(b.filename))),
    ).toEqual([
      { filename: 'chart-spend.png', length: String(png.byteLength) },
      { filename: 'dashboard.pdf', length: String(pdf.byteLength) },
    ]);
    const completes = calls.filter(
      (c) => c.path.endsWith('/files.completeUploadExternal') && c.body.channel_id === channel,
    );
    expect(completes).toHaveLength(1);
    // In the report message's thread, with a comment naming the files.
    expect(completes[0]!.body.thread_ts).toBe(posts[0]!.answer?.ts);
    expect(completes[0]!.body.initial_comment).toBe('Files of Slack files: chart-spend.png, dashboard.pdf');
    expect(JSON.parse(String(completes[0]!.body.files))).toEqual(
      files.map((f) => ({ id: f.id, title: f.filename })).sort((a, b) => (a.id < b.id ? -1 : 1)),
    );
  });

  it('the capture server checks the bot token and the announced length like Slack', async () => {
    const call = (method: string, headers: Record<string, string>, body: string) =>
      fetch(`${capture()}/slack/api/${method}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      }).then((r) => r.json() as Promise<{ ok: boolean; error?: string; upload_url?: string }>);
    expect(await call('files.getUploadURLExternal', {}, 'filename=a.png&length=3')).toEqual({
      ok: false,
      error: 'not_authed',
    });
    expect(await call('chat.postMessage', { authorization: 'Bearer nope' }, 'channel=C1')).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    const auth = { authorization: 'Bearer xoxb-local' };
    expect(await call('files.getUploadURLExternal', auth, 'filename=a.png')).toMatchObject({
      ok: false,
      error: 'invalid_arguments',
    });
    const got = await call('files.getUploadURLExternal', auth, 'filename=a.png&length=3');
    expect(got.ok).toBe(true);
    const short = await fetch(got.upload_url as string, { method: 'POST', body: new Uint8Array([1, 2]) });
    expect(short.status).toBe(400);
  });

  it('never sends the bytes to an upload URL off Slack, whatever the API answers', async () => {
    // A fake Slack API that hands out the instance metadata address as upload URL.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ ok: true, upload_url: 'https://169.254.169.254/latest/meta-data', file_id: 'F1' }),
      );
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const before = process.env.SLACK_API_BASE_URL;
    process.env.SLACK_API_BASE_URL = `http://127.0.0.1:${port}/api`;
    resetConfig();
    try {
      await expect(uploadSlackFiles('C1', [{ filename: 'a.png', content: png }])).rejects.toBeInstanceOf(
        WebhookRefusedError,
      );
    } finally {
      process.env.SLACK_API_BASE_URL = before;
      resetConfig();
      server.closeAllConnections();
      server.close();
    }
  });
});

describe('each destination is delivered once', () => {
  it('a failing Slack channel is retried alone, recorded with its error, and the others are not resent', async () => {
    const to = `rd+${uniq()}@example.com`;
    const good = `CG${uniq().toUpperCase()}`;
    const bad = `CB${uniq().toUpperCase()}`;
    const r = report({
      destinations: [
        { destinationType: 'EMAIL', destinationValues: [to] },
        { destinationType: 'SLACK', destinationValues: [good, bad] },
      ] as Report['destinations'],
    });
    await insertReport(r);
    await failChannel(bad, { error: 'channel_not_found' });
    const msg = manual(r);
    await expect(deliverRun(msg, sendersWithFiles)).rejects.toThrow(
      /1 destination\(s\) failed: SLACK .*channel_not_found/,
    );
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await postsTo(good)).toHaveLength(1);
    expect(await filesIn(good)).toHaveLength(2);
    expect(await postsTo(bad)).toHaveLength(0);
    const log1 = (await listDeliveries(orgId, r.id, 10)).items;
    expect(log1.map((d) => [d.destination, d.status, d.error]).sort()).toEqual(
      [
        [to, 'SENT', null],
        [good, 'SENT', null],
        [bad, 'FAILED', 'Slack chat.postMessage failed: 200 channel_not_found'],
      ].sort(),
    );

    // SQS retries the message while the channel still fails: still nothing resent to the others.
    await expect(deliverRun(msg, sendersWithFiles)).rejects.toThrow('channel_not_found');
    await unfailChannel(bad);
    await expect(deliverRun(msg, sendersWithFiles)).resolves.toEqual({
      status: 'DELIVERED',
      sent: 1,
      alreadyDone: 2,
    });
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await postsTo(good)).toHaveLength(1);
    expect(await filesIn(good)).toHaveLength(2);
    expect(await postsTo(bad)).toHaveLength(1);
    expect(await filesIn(bad)).toHaveLength(2);
    const log2 = (await listDeliveries(orgId, r.id, 10)).items;
    expect(log2.find((d) => d.destination === bad)).toMatchObject({
      status: 'SENT',
      error: null,
      attempts: 3,
    });
    expect(log2.find((d) => d.destination === good)).toMatchObject({ status: 'SENT', attempts: 1 });
    expect(log2.every((d) => !('steps' in d))).toBe(true);
  });

  it('a failed file upload is retried without posting the Slack message again', async () => {
    const channel = `CU${uniq().toUpperCase()}`;
    const r = report({
      destinations: [{ destinationType: 'SLACK', destinationValues: [channel] }] as Report['destinations'],
    });
    await insertReport(r);
    await failChannel(channel, { error: 'internal_error', times: 1, method: 'files.completeUploadExternal' });
    const msg = manual(r);
    await expect(deliverRun(msg, sendersWithFiles)).rejects.toThrow('files.completeUploadExternal failed');
    expect(await postsTo(channel)).toHaveLength(1);
    expect(await filesIn(channel)).toHaveLength(0);
    expect((await listDeliveries(orgId, r.id, 10)).items[0]).toMatchObject({
      status: 'FAILED',
      error: 'Slack files.completeUploadExternal failed: 200 internal_error',
    });
    await deliverRun(msg, sendersWithFiles);
    const posts = await postsTo(channel);
    expect(posts).toHaveLength(1);
    expect((await filesIn(channel)).map((f) => f.filename).sort()).toEqual([
      'chart-spend.png',
      'dashboard.pdf',
    ]);
    // The retry still shares them in the thread of the message posted by the first attempt.
    const shared = (await slackCalls()).filter(
      (c) =>
        c.path.endsWith('/files.completeUploadExternal') && c.body.channel_id === channel && c.answer?.ok,
    );
    expect(shared.map((c) => c.body.thread_ts)).toEqual([posts[0]!.answer?.ts]);
    expect((await listDeliveries(orgId, r.id, 10)).items[0]).toMatchObject({ status: 'SENT', attempts: 2 });
  });

  it('the same SQS message delivered twice (one batch, then again) sends one e-mail and one Slack post', async () => {
    const to = `rd+${uniq()}@example.com`;
    const channel = `CD${uniq().toUpperCase()}`;
    const r = report({
      destinations: [
        { destinationType: 'EMAIL', destinationValues: [to] },
        { destinationType: 'SLACK', destinationValues: [channel] },
      ] as Report['destinations'],
    });
    await insertReport(r);
    const msg = manual(r);
    expect(await handler(sqsEvent(msg, msg))).toEqual({ batchItemFailures: [] });
    expect(await handler(sqsEvent(msg))).toEqual({ batchItemFailures: [] });
    expect(await emailsTo(to)).toHaveLength(1);
    expect(await postsTo(channel)).toHaveLength(1);
  });

  it('a failing destination fails the SQS record (retry, then the DLQ); the others of the batch are done', async () => {
    const ok = `CO${uniq().toUpperCase()}`;
    const bad = `CX${uniq().toUpperCase()}`;
    const r1 = report({
      destinations: [{ destinationType: 'SLACK', destinationValues: [ok] }] as Report['destinations'],
    });
    const r2 = report({
      destinations: [{ destinationType: 'SLACK', destinationValues: [bad] }] as Report['destinations'],
    });
    await insertReport(r1);
    await insertReport(r2);
    await failChannel(bad, { error: 'not_in_channel' });
    const event = sqsEvent(manual(r1), manual(r2));
    const res = await handler(event);
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: event.Records[1]!.messageId }]);
    expect(await postsTo(ok)).toHaveLength(1);
    await unfailChannel(bad);
  });

  it('a schedule tick fired twice enqueues and delivers the run once', async () => {
    const to = `rd+${uniq()}@example.com`;
    // Due long ago, so no other test's report is due at this sweep's clock.
    const due = '2019-01-07T08:00:00.000Z'; // a Monday
    const r = report({
      scheduledPeriod: 'WEEKLY',
      scheduledWeekday: 1,
      nextRunAt: due,
      destinations: [{ destinationType: 'EMAIL', destinationValues: [to] }] as Report['destinations'],
    });
    await insertReport(r);
    const queued: DeliveryMessage[] = [];
    const enqueue = async (m: DeliveryMessage) => {
      queued.push(m);
    };
    const now = new Date('2019-01-07T08:05:00.000Z');
    await sweepDueReports(now, enqueue);
    await sweepDueReports(now, enqueue);
    const mine = queued.filter((m) => m.reportId === r.id);
    expect(mine).toEqual([
      { type: 'report-delivery', orgId, reportId: r.id, runAt: due, trigger: 'SCHEDULE' },
    ]);
    // The queue redelivers it too: still one e-mail for that run. (Its next run, 2019-01-14, is due at
    // the running stack's own clock too, so the stack's ticker may deliver that one meanwhile.)
    expect(await handler(sqsEvent(...mine, ...mine))).toEqual({ batchItemFailures: [] });
    const runs = (await emailsTo(to)).map((m) => /\((\d{4}-\d\d-\d\d)\)$/.exec(m.subject)?.[1]);
    expect(runs.filter((d) => d === '2019-01-07')).toHaveLength(1);
    // The run advanced the schedule to the next Monday 08:00 (or the stack's ticker, whose clock is
    // today, took that run too and advanced it further: never back, never twice to the same run).
    const next = (await getReport(orgId, r.id))?.nextRunAt ?? '';
    expect(next >= '2019-01-14T08:00:00.000Z').toBe(true);
    expect({ weekday: new Date(next).getUTCDay(), time: next.slice(11) }).toEqual({
      weekday: 1,
      time: '08:00:00.000Z',
    });
  });
});

describe('reports stored before scheduling landed', () => {
  /** A report item as the first reports release wrote it: schema version 1, no nextRunAt, no due-index keys. */
  async function putLegacy(r: Report) {
    const { nextRunAt: _n, ...fields } = r;
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.report(r.organizationId, r.id),
          ...keys.reportsIndex(r.organizationId, `${r.updatedAt}#${r.id}`),
          entity: 'report',
          schemaVersion: 1,
          ...fields,
        },
      }),
    );
  }
  const dueIds = async (at: string) => (await listDueReports(at)).map((d) => d.reportId);

  it('are never swept until the migration gives them a next run; it runs once', async () => {
    const weekly = report({ scheduledPeriod: 'WEEKLY', scheduledWeekday: 3 });
    const inactive = report({ scheduledPeriod: 'DAILY', status: 'INACTIVE' });
    const onDemand = report({ scheduledPeriod: null });
    for (const r of [weekly, inactive, onDemand]) await putLegacy(r);
    const farFuture = '2100-01-01T00:00:00.000Z';
    expect(await dueIds(farFuture)).not.toContain(weekly.id);
    expect((await getReport(orgId, weekly.id))?.nextRunAt).toBeNull();

    const now = new Date();
    const first = await backfillNextRuns(now);
    expect(first.scheduled).toBeGreaterThanOrEqual(1);
    // The next Wednesday 08:00 UTC strictly after now, computed here from the calendar.
    const expected = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), 8));
    while (expected.getUTCDay() !== 3 || expected.getTime() <= now.getTime())
      expected.setUTCDate(expected.getUTCDate() + 1);
    const after = await getReport(orgId, weekly.id, { consistent: true });
    expect(after?.nextRunAt).toBe(expected.toISOString());
    expect(after?.version).toBe(weekly.version);
    expect(await dueIds(farFuture)).toContain(weekly.id);
    expect(await dueIds(new Date(expected.getTime() - 1).toISOString())).not.toContain(weekly.id);
    for (const r of [inactive, onDemand]) {
      expect((await getReport(orgId, r.id, { consistent: true }))?.nextRunAt).toBeNull();
      expect(await dueIds(farFuture)).not.toContain(r.id);
    }

    // Again: nothing of ours is found or changed.
    const later = new Date(now.getTime() + 86_400_000 * 3);
    await backfillNextRuns(later);
    expect((await getReport(orgId, weekly.id, { consistent: true }))?.nextRunAt).toBe(expected.toISOString());
  });

  it('leaves a report edited since it was read to the edit', async () => {
    const r = report({ scheduledPeriod: 'DAILY' });
    await putLegacy({ ...r, version: 2 });
    // The scan read version 2; an edit (version 3) lands before the write.
    await putLegacy({ ...r, version: 3 });
    expect(await setFirstNextRun({ ...r, version: 2 }, '2030-01-01T08:00:00.000Z')).toBe(false);
    expect(await setFirstNextRun({ ...r, version: 3 }, '2030-01-01T08:00:00.000Z')).toBe(true);
    expect(await setFirstNextRun({ ...r, version: 3 }, '2030-01-02T08:00:00.000Z')).toBe(false);
    expect((await getReport(orgId, r.id, { consistent: true }))?.nextRunAt).toBe('2030-01-01T08:00:00.000Z');
  });
});
