import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { AlertEvaluation } from '../../shared/model/alerts';
import { api, session } from './session';

/**
 * What the local stack delivered: e-mails from the SES emulator's store, Slack and Teams posts
 * from the capture server, and the local routes that run the alert schedule and drain the queues.
 */
export interface StoredEmail {
  subject: string;
  destination: { to: string[] };
  body: { text?: string; html?: string };
  /** Attachments as the SES emulator stored them (inline images carry their Content-ID). */
  attachments?: {
    filename: string;
    contentType: string;
    contentDisposition: string;
    cid?: string;
    content: string;
  }[];
}

/** `GET /alerts-v2/costAlerts/{id}/history` with `token`: the alert's evaluations. */
export function costAlertHistory(alertId: string, token?: string) {
  return api<{ items: AlertEvaluation[]; nextCursor: string | null }>(
    'GET',
    `/alerts-v2/costAlerts/${alertId}/history`,
    { token },
  );
}

export interface Captured {
  kind: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
  /** Slack: what the method answered (`ts` of a posted message). */
  answer?: Record<string, unknown>;
}

export async function emailsTo(address: string): Promise<StoredEmail[]> {
  const { emails } = (await (await fetch(session().mailUrl)).json()) as { emails: StoredEmail[] };
  return emails.filter((e) => e.destination.to.some((t) => t.includes(address)));
}

/** Every captured Slack or Teams post. */
export async function captured(kind: 'slack' | 'teams'): Promise<Captured[]> {
  return (await (await fetch(`${session().chatUrl}?kind=${kind}`)).json()) as Captured[];
}

/** Files shared in a Slack channel through the upload flow (the capture server's record). */
export async function slackFiles(channel: string): Promise<{ filename: string; content: string | null }[]> {
  const base = new URL(session().chatUrl).origin;
  return (await (await fetch(`${base}/slack/files?channel=${encodeURIComponent(channel)}`)).json()) as {
    filename: string;
    content: string | null;
  }[];
}

/** A PNG's size from its IHDR (after checking its signature): it decodes as a PNG of that size. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    throw new Error('not a PNG');
  if (png.subarray(12, 16).toString('latin1') !== 'IHDR') throw new Error('PNG without IHDR first');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

export async function slackTo(channel: string): Promise<Captured[]> {
  return (await captured('slack')).filter((m) => m.body.channel === channel);
}

export async function teamsTo(hook: string): Promise<Captured[]> {
  return (await captured('teams')).filter((m) => m.path === new URL(hook).pathname);
}

/** Reads until `count` items are there (or 30 s pass): a delivery may land just after the drain. */
export async function atLeast<T>(read: () => Promise<T[]>, count: number): Promise<T[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const items = await read();
    if (items.length >= count || Date.now() > deadline) return items;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Runs the queues empty (`/_local/drain`); answers whether they drained. */
export async function drainQueues(timeoutMs = 120_000): Promise<boolean> {
  const res = await api<{ drained: boolean }>('POST', '/_local/drain', { body: { timeoutMs } });
  return res.body.drained;
}

/** One `alert-sweep` tick at `now` over these organisations only, then the queues drained. */
export async function sweepAlertsOf(orgIds: string[], now: Date): Promise<boolean> {
  const res = await api('POST', '/_local/tick', {
    body: { schedule: 'alert-sweep', now: now.toISOString(), detail: { orgIds } },
  });
  if (res.status !== 200) throw new Error(`alert-sweep tick answered ${res.status}`);
  return drainQueues();
}

/** Puts one message on the local `alert-evaluation` queue (a redelivery, or one alert's evaluation). */
export async function sendEvaluationMessage(body: {
  kind?: 'budget';
  orgId: string;
  alertId?: string;
  alertIds?: string[];
  budgetAlertIds?: (string | undefined)[];
  scheduledFor: string;
}): Promise<void> {
  const sqs = new SQSClient({
    endpoint: session().endpoints.sqs,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: session().queues['alert-evaluation']!.url,
        MessageBody: JSON.stringify(body),
      }),
    );
  } finally {
    sqs.destroy();
  }
}

/**
 * Over HTTP, snoozes one alert of a kind for `days` days and archives another (each answering 200):
 * the suites' alerts that must send nothing.
 */
export async function snoozeOneArchiveOther(
  kind: 'costAlerts' | 'budgetAlerts',
  token: string,
  ids: { snoozed: string; archived: string },
  days: number,
): Promise<void> {
  const until = new Date(Date.now() + days * 86_400_000).toISOString();
  const snooze = await api('POST', `/alerts-v2/${kind}/${ids.snoozed}/snooze`, { token, body: { until } });
  expect(snooze.status).toBe(200);
  expect((await api('DELETE', `/alerts-v2/${kind}/${ids.archived}`, { token })).status).toBe(200);
}

/**
 * Over HTTP, an alert's snooze round trip: a snooze three days ahead answers 200 with that
 * `snoozedUntil`, one in the past 400, and the unsnooze clears it.
 */
export async function expectSnoozeRoundTrip(
  kind: 'costAlerts' | 'budgetAlerts',
  token: string,
  id: string,
): Promise<void> {
  const path = `/alerts-v2/${kind}/${id}/snooze`;
  const until = new Date(Date.now() + 3 * 86_400_000).toISOString();
  const snoozed = await api<{ snoozedUntil: string | null }>('POST', path, { token, body: { until } });
  expect(snoozed.status).toBe(200);
  expect(snoozed.body.snoozedUntil).toBe(until);
  const past = await api('POST', path, { token, body: { until: '2001-01-01T00:00:00Z' } });
  expect(past.status).toBe(400);
  const unsnoozed = await api<{ snoozedUntil: string | null }>('DELETE', path, { token });
  expect(unsnoozed.body.snoozedUntil).toBeNull();
}

/** Money as alert messages write it (USD): whole units from 100 up, cents below. */
export const usd = (x: number) =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: Math.abs(x) >= 100 ? 0 : 2,
    maximumFractionDigits: Math.abs(x) >= 100 ? 0 : 2,
  }).format(x);
