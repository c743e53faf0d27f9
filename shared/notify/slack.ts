import { readSecretString } from '../cloud/secrets';
import { config } from '../config';
import type { Notification } from '../domain/alerts/notification';
import type { WebhookPolicy } from '../net/address-policy';
import { guardedPost } from '../net/guarded-fetch';
import { type Attachment, imagesOf } from './email';

let cachedToken: Promise<string> | undefined;

/** The bot token: `SLACK_BOT_TOKEN` locally, the Secrets Manager secret in AWS (read once per container). */
export function slackToken(): Promise<string> {
  cachedToken ??= (async () => {
    const c = config();
    if (c.slackBotToken) return c.slackBotToken;
    if (!c.slackTokenSecretArn) {
      if (c.stage === 'local') return 'xoxb-local';
      throw new Error('No Slack token configured (SLACK_TOKEN_SECRET_ARN)');
    }
    return readSecretString(c.slackTokenSecretArn);
  })();
  cachedToken.catch(() => {
    cachedToken = undefined;
  });
  return cachedToken;
}

export class SlackApiError extends Error {
  override name = 'SlackApiError';
}

const apiBase = () => config().slackApiBaseUrl.replace(/\/$/, '');

/**
 * One Web API call to the configured API base (the capture server locally), authenticated with the
 * bot token, JSON or form-encoded. Slack answers 200 `{ok:false, error}` on API errors: both that
 * and a non-2xx status throw, naming the method and Slack's error code.
 */
async function slackApi<T extends object>(
  method: string,
  body: { json: unknown } | { form: Record<string, string> },
): Promise<T> {
  const json = 'json' in body;
  const res = await fetch(`${apiBase()}/${method}`, {
    method: 'POST',
    headers: {
      'content-type': json ? 'application/json; charset=utf-8' : 'application/x-www-form-urlencoded',
      authorization: `Bearer ${await slackToken()}`,
    },
    body: json ? JSON.stringify(body.json) : new URLSearchParams(body.form).toString(),
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  });
  const answer = (await res.json().catch(() => ({}))) as { ok?: boolean; error?: string } & T;
  if (!res.ok || answer.ok !== true)
    throw new SlackApiError(`Slack ${method} failed: ${res.status} ${answer.error ?? ''}`.trim());
  return answer;
}

/** `chat.postMessage` with blocks. */
export async function postSlackMessage(
  channel: string,
  m: { text: string; blocks: unknown[] },
): Promise<{ ts?: string }> {
  return slackApi<{ ts?: string }>('chat.postMessage', {
    json: { channel, text: m.text, blocks: m.blocks, unfurl_links: false },
  });
}

/** A file to upload: the bytes and the name Slack shows (structurally an e-mail `Attachment`). */
export type SlackFile = Pick<Attachment, 'filename' | 'content'> & { title?: string };

/**
 * Where Slack's upload URLs may point: the configured API base's own origin (the capture server
 * locally, slack.com in AWS), or https on a *.slack.com host that resolves only to public
 * addresses. The bytes never go anywhere else, whatever the API answers.
 */
function uploadPolicy(): WebhookPolicy {
  return {
    allowedHosts: ['.slack.com'],
    localCaptureOrigin: new URL(apiBase()).origin,
    service: 'Slack file upload',
  };
}

/**
 * Shares files in a channel with Slack's external upload flow: for each file
 * `files.getUploadURLExternal` (form: filename, length) then a POST of its bytes to the returned
 * `upload_url` (through the guarded fetch), then one `files.completeUploadExternal` (files
 * `[{id, title}]`, `channel_id`, optional `initial_comment` and `thread_ts`: shared as replies in
 * that message's thread) that shares them all. Answers the file ids.
 */
export async function uploadSlackFiles(
  channel: string,
  files: readonly SlackFile[],
  opts: { initialComment?: string; threadTs?: string } = {},
): Promise<string[]> {
  if (files.length === 0) return [];
  const uploaded: { id: string; title: string }[] = [];
  for (const f of files) {
    const { upload_url, file_id } = await slackApi<{ upload_url?: string; file_id?: string }>(
      'files.getUploadURLExternal',
      { form: { filename: f.filename, length: String(f.content.byteLength) } },
    );
    if (!upload_url || !file_id)
      throw new SlackApiError('Slack files.getUploadURLExternal answered no upload_url or file_id');
    const res = await guardedPost(
      upload_url,
      { contentType: 'application/octet-stream', body: f.content },
      uploadPolicy(),
    );
    if (res.status !== 200)
      throw new SlackApiError(
        `Slack file upload of ${f.filename} failed: ${res.status} ${res.text.slice(0, 200)}`,
      );
    uploaded.push({ id: file_id, title: f.title ?? f.filename });
  }
  await slackApi('files.completeUploadExternal', {
    form: {
      files: JSON.stringify(uploaded),
      channel_id: channel,
      ...(opts.initialComment ? { initial_comment: opts.initialComment } : {}),
      ...(opts.threadTs ? { thread_ts: opts.threadTs } : {}),
    },
  });
  return uploaded.map((u) => u.id);
}

/** `chat.postMessage` to the alert's channel. */
export async function sendSlack(n: Notification): Promise<void> {
  if (!n.slackChannelId) throw new Error('SLACK notification without a channel');
  const { ts } = await postSlackMessage(n.slackChannelId, {
    text: n.message.slackText,
    blocks: n.message.slackBlocks,
  });
  // Images (a cost alert's chart, a budget alert's burn chart) go into the message's thread.
  await uploadSlackFiles(n.slackChannelId, imagesOf(n), ts ? { threadTs: ts } : {});
}
