import { sendRawEmail } from '../cloud/email';
import { config } from '../config';
import { composeEmail } from './email';
import { postSlackMessage } from './slack';

/** Report delivery's message, rendered once and sent to each destination. */
export interface OutgoingMessage {
  subject: string;
  html: string;
  text: string;
  slackText: string;
  slackBlocks: unknown[];
}

/** The report's MIME message to one address (CR/LF in any header value is refused). */
export function buildReportEmail(
  to: string,
  m: OutgoingMessage,
  from: string,
  headers: Record<string, string> = {},
): Promise<Buffer> {
  return composeEmail({ from, to: [to], subject: m.subject, text: m.text, html: m.html, headers });
}

export async function sendReportEmail(
  to: string,
  m: OutgoingMessage,
  headers: Record<string, string>,
): Promise<void> {
  await sendRawEmail(await buildReportEmail(to, m, config().mailFrom, headers));
}

/** `chat.postMessage` of the report to one channel. */
export function postSlackReport(channel: string, m: OutgoingMessage): Promise<void> {
  return postSlackMessage(channel, { text: m.slackText, blocks: m.slackBlocks });
}
