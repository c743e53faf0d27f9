import { SESClient, SendRawEmailCommand } from '@aws-sdk/client-ses';
import MailComposer from 'nodemailer/lib/mail-composer';
import { config } from '../config';

/**
 * Report delivery's e-mail and Slack senders. The alerts branch has the same two in
 * `shared/notify/email.ts` and `slack.ts`, typed to its alert notifications; these take plain
 * arguments so that the lead can fold both into one pair.
 */
export interface OutgoingMessage {
  subject: string;
  html: string;
  text: string;
  slackText: string;
  slackBlocks: unknown[];
}

let ses: SESClient | undefined;
function sesClient(): SESClient {
  if (!ses) {
    const c = config();
    ses = new SESClient({
      region: c.region,
      ...(c.sesEndpoint
        ? { endpoint: c.sesEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
      maxAttempts: 3,
    });
  }
  return ses;
}

export class HeaderInjectionError extends Error {
  override name = 'HeaderInjectionError';
}

/** Header values come from users (report name, addresses): CR or LF in any of them is refused. */
function header(name: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new HeaderInjectionError(`${name} must not contain CR or LF`);
  return value;
}

/**
 * The MIME message (multipart/alternative, text + HTML) built by nodemailer's MailComposer, with
 * file and URL access off so no content can make it read a file or fetch a URL.
 */
export async function buildReportEmail(
  to: string,
  m: OutgoingMessage,
  from: string,
  headers: Record<string, string> = {},
): Promise<Buffer> {
  const composer = new MailComposer({
    from: header('From', from),
    to: header('To', to),
    subject: header('Subject', m.subject),
    text: m.text,
    html: m.html,
    headers: Object.fromEntries(
      Object.entries(headers).map(([k, v]) => [header('Header name', k), header(k, v)]),
    ),
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return composer.compile().build();
}

export async function sendReportEmail(
  to: string,
  m: OutgoingMessage,
  headers: Record<string, string>,
): Promise<void> {
  const raw = await buildReportEmail(to, m, config().mailFrom, headers);
  await sesClient().send(new SendRawEmailCommand({ RawMessage: { Data: raw } }));
}

/**
 * The bot token: `SLACK_BOT_TOKEN`, or a placeholder on the local stack (the capture server accepts
 * any). In AWS the alerts branch reads it from Secrets Manager; the merged sender will too.
 */
function slackToken(): string {
  const token = process.env.SLACK_BOT_TOKEN;
  if (token) return token;
  if (config().stage === 'local') return 'xoxb-local';
  throw new Error('No Slack token configured (SLACK_BOT_TOKEN)');
}

/** `chat.postMessage` with blocks. Slack answers 200 `{ok:false, error}` on API errors. */
export async function postSlackReport(channel: string, m: OutgoingMessage): Promise<void> {
  const res = await fetch(`${config().slackApiBaseUrl.replace(/\/$/, '')}/chat.postMessage`, {
    method: 'POST',
    headers: { 'content-type': 'application/json; charset=utf-8', authorization: `Bearer ${slackToken()}` },
    body: JSON.stringify({ channel, text: m.slackText, blocks: m.slackBlocks, unfurl_links: false }),
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json().catch(() => ({}))) as { ok?: boolean; error?: string };
  if (!res.ok || body.ok !== true)
    throw new Error(`Slack chat.postMessage failed: ${res.status} ${body.error ?? ''}`.trim());
}
