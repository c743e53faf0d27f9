/**
 * Reports delivered per minute by one report-delivery worker: the worker's handler in-process,
 * against the local stack's DynamoDB Local, SES emulator and Slack capture server, in batches of the
 * queue's size. Each report has one TEXT widget and two destinations (one e-mail address, one
 * Slack channel); the "withFiles" run adds a chart PNG and a dashboard PDF to both channels (until
 * the renderer produces them, the senders are given them as the renderer will). The warehouse is
 * not involved (TEXT renders without it): this measures delivery, not rendering.
 */
import type { SQSEvent } from 'aws-lambda';
import { resetConfig } from '../shared/config';
import { resetDb } from '../shared/db/client';
import type { Report } from '../shared/model/reports';
import type { Attachment } from '../shared/notify/email';
import { workers } from '../shared/queues';
import { emailReport } from '../test/support/reliability';
import { tinyPdf, tinyPng } from '../test/support/report-delivery-files';
import { percentile, startStack } from './support';

const REPORTS = 60;

export default async function reportDeliveryBench(): Promise<Record<string, unknown>> {
  const stack = await startStack();
  try {
    const { session } = stack;
    Object.assign(process.env, {
      DYNAMODB_ENDPOINT: session.endpoints.dynamodb,
      SES_ENDPOINT: session.endpoints.ses,
      SLACK_API_BASE_URL: `${session.endpoints.capture}/slack/api`,
      TABLE_NAME: session.tableName,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      LOG_LEVEL: 'silent',
    });
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    resetConfig();
    resetDb();
    const { insertReport } = await import('../shared/db/reports-repo');
    const { handler } = await import('../functions/workers/report-delivery');
    const { deliverRun } = await import('../shared/domain/reports/delivery');
    const { postSlackReport, sendReportEmail } = await import('../shared/notify/report-senders');
    const batchSize = workers.find((w) => w.name === 'report-delivery')?.batchSize ?? 5;

    const tag = Date.now().toString(36);
    const makeReports = async (label: string) => {
      const out: Report[] = [];
      for (let i = 0; i < REPORTS; i++) {
        const r = emailReport(
          session.orgId,
          `rep_bench${label}${tag}${i}`,
          `bench+${label}${i}@example.com`,
          {
            name: `Bench ${label} ${i}`,
            widgets: [{ type: 'TEXT', contentMarkdown: `## Week ${i}\n\nSpend is **up** 4 %.` }],
            destinations: [
              { destinationType: 'EMAIL', destinationValues: [`bench+${label}${i}@example.com`] },
              { destinationType: 'SLACK', destinationValues: [`CBENCH${label.toUpperCase()}${i}`] },
            ],
            createdById: 'usr_bench',
          },
        );
        await insertReport(r);
        out.push(r);
      }
      return out;
    };
    const message = (r: Report) => ({
      type: 'report-delivery' as const,
      orgId: r.organizationId,
      reportId: r.id,
      runAt: new Date().toISOString(),
      trigger: 'MANUAL' as const,
    });

    // Text only: the handler exactly as deployed, batches of the queue's batch size.
    const plain = await makeReports('t');
    const batchMs: number[] = [];
    const startPlain = performance.now();
    for (let i = 0; i < plain.length; i += batchSize) {
      const event = {
        Records: plain.slice(i, i + batchSize).map((r, j) => ({
          messageId: `bench-${i + j}`,
          body: JSON.stringify(message(r)),
        })),
      } as unknown as SQSEvent;
      const t = performance.now();
      const res = await handler(event);
      batchMs.push(performance.now() - t);
      if (res.batchItemFailures.length) throw new Error(`failures: ${JSON.stringify(res.batchItemFailures)}`);
    }
    const plainSeconds = (performance.now() - startPlain) / 1000;

    // With a chart PNG (~60 KB, noisy so it does not compress away) and a small PDF on both channels.
    const attachments: Attachment[] = [
      {
        filename: 'chart.png',
        contentType: 'image/png',
        content: tinyPng(140, 140, [0, 0, 0], true),
        inline: true,
      },
      { filename: 'dashboard.pdf', contentType: 'application/pdf', content: tinyPdf('Bench'), inline: false },
    ];
    const senders = {
      email: (to: string, m: Parameters<typeof sendReportEmail>[1], h: Record<string, string>) =>
        sendReportEmail(to, { ...m, attachments }, h),
      slack: (
        c: string,
        m: Parameters<typeof postSlackReport>[1],
        s: Parameters<typeof postSlackReport>[2],
      ) => postSlackReport(c, { ...m, attachments }, s),
    };
    const withFiles = await makeReports('f');
    const perReport: number[] = [];
    const startFiles = performance.now();
    for (const r of withFiles) {
      const t = performance.now();
      await deliverRun(message(r), senders);
      perReport.push(performance.now() - t);
    }
    const filesSeconds = (performance.now() - startFiles) / 1000;

    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      setup: `${REPORTS} reports per run, 1 TEXT widget, 1 e-mail + 1 Slack destination each; handler in-process, local emulators`,
      textOnly: {
        batchSize,
        reportsPerMinute: Math.round((REPORTS / plainSeconds) * 60),
        batchMsP50: round(percentile(batchMs, 50)),
        batchMsP95: round(percentile(batchMs, 95)),
      },
      withFiles: {
        attachments: attachments.map((a) => ({ filename: a.filename, bytes: a.content.byteLength })),
        reportsPerMinute: Math.round((REPORTS / filesSeconds) * 60),
        msPerReportP50: round(percentile(perReport, 50)),
        msPerReportP95: round(percentile(perReport, 95)),
        slackCallsPerReport: 1 + 2 * attachments.length + 1,
      },
    };
  } finally {
    await stack.stop();
  }
}
