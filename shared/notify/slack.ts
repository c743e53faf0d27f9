import { readSecretString } from '../cloud/secrets';
import { config } from '../config';
import type { Notification } from '../domain/alerts/notification';

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

/** `chat.postMessage` with blocks. Slack answers 200 `{ok:false, error}` on API errors. */
export async function postSlackMessage(
  channel: string,
  m: { text: string; blocks: unknown[] },
): Promise<void> {
  const res = await fetch(`${config().slackApiBaseUrl.replace(/\/$/, '')}/chat.postMessage`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json; charset=utf-8',
      authorization: `Bearer ${await slackToken()}`,
    },
    body: JSON.stringify({ channel, text: m.text, blocks: m.blocks, unfurl_links: false }),
    redirect: 'error',
    signal: AbortSignal.timeout(15_000),
  });
  const body = (await res.json().catch(() => ({}))) as { ok?: boolean; error?: string };
  if (!res.ok || body.ok !== true)
    throw new Error(`Slack chat.postMessage failed: ${res.status} ${body.error ?? ''}`.trim());
}

/** `chat.postMessage` to the alert's channel. */
export async function sendSlack(n: Notification): Promise<void> {
  if (!n.slackChannelId) throw new Error('SLACK notification without a channel');
  await postSlackMessage(n.slackChannelId, { text: n.message.slackText, blocks: n.message.slackBlocks });
}
