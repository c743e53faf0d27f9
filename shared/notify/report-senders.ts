import { sendRawEmail } from '../cloud/ses';
import { config } from '../config';
import type { DeliverySteps } from '../domain/reports/delivery';
import { type Attachment, composeEmail } from './email';
import { postSlackMessage, uploadSlackFiles } from './slack';

/**
 * Report delivery's message, rendered once and sent to each destination. `attachments` are the
 * rendered charts (PNG) and dashboards (PDF); a report without them sends text only.
 */
export interface OutgoingMessage {
  subject: string;
  html: string;
  text: string;
  slackText: string;
  slackBlocks: unknown[];
  attachments?: readonly Attachment[] | undefined;
}

/** The report's MIME message to one address, with every attachment (CR/LF in any header value is refused). */
export function buildReportEmail(
  to: string,
  m: OutgoingMessage,
  from: string,
  headers: Record<string, string> = {},
): Promise<Buffer> {
  return composeEmail({
    from,
    to: [to],
    subject: m.subject,
    text: m.text,
    html: m.html,
    headers,
    attachments: m.attachments ?? [],
  });
}

export async function sendReportEmail(
  to: string,
  m: OutgoingMessage,
  headers: Record<string, string>,
): Promise<void> {
  await sendRawEmail(await buildReportEmail(to, m, config().mailFrom, headers));
}

const NO_STEPS: DeliverySteps = { done: new Set(), mark: async () => {} };

/**
 * The report in one channel: `chat.postMessage` with its blocks, then every attachment shared as a
 * reply in that message's thread (`thread_ts`: the message's `ts`) with a comment naming the files,
 * through Slack's external upload flow. Each of the two is recorded as a step when done, the
 * message with its `ts`, so a retry after a failed upload does not post the message again and
 * still puts the files in its thread. (A message recorded without its `ts`, before it was kept, has
 * its files shared in the channel.)
 */
export async function postSlackReport(
  channel: string,
  m: OutgoingMessage,
  steps: DeliverySteps = NO_STEPS,
): Promise<void> {
  let ts = steps.refs?.get('message');
  if (!steps.done.has('message')) {
    ts = (await postSlackMessage(channel, { text: m.slackText, blocks: m.slackBlocks })).ts;
    await steps.mark('message', ts);
  }
  const files = m.attachments ?? [];
  if (files.length > 0 && !steps.done.has('files')) {
    await uploadSlackFiles(channel, files, {
      initialComment: filesComment(m.subject, files),
      ...(ts ? { threadTs: ts } : {}),
    });
    await steps.mark('files');
  }
}

/** The comment the files are shared with: "Files of <subject>: a.png, b.pdf". */
export function filesComment(subject: string, files: readonly Pick<Attachment, 'filename'>[]): string {
  return `Files of ${subject}: ${files.map((f) => f.filename).join(', ')}`;
}
