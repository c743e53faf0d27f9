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
 * The report in one channel: `chat.postMessage` with its blocks, then every attachment shared in
 * the channel through Slack's external upload flow. Each of the two is recorded as a step when
 * done, so a retry after a failed upload does not post the message again.
 */
export async function postSlackReport(
  channel: string,
  m: OutgoingMessage,
  steps: DeliverySteps = NO_STEPS,
): Promise<void> {
  if (!steps.done.has('message')) {
    await postSlackMessage(channel, { text: m.slackText, blocks: m.slackBlocks });
    await steps.mark('message');
  }
  const files = m.attachments ?? [];
  if (files.length > 0 && !steps.done.has('files')) {
    await uploadSlackFiles(channel, files);
    await steps.mark('files');
  }
}
