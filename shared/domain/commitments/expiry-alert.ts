import { createHash } from 'node:crypto';
import { consoleLink } from '../../links';
import type { AlertEvaluation, StoredAlert } from '../../model/alerts';
import { alertAddress, type Notification, type RenderedMessage } from '../alerts/notification';
import { adaptiveCard, cardFooter, cardText, escapeHtml, escapeSlack } from '../alerts/render';
import { oneLine } from '../common/text';
import type { ExpiringCommitment, ExpiringCommitmentSource, ExpiryClaimStore } from './ports';

/**
 * Expiring-commitment alerts (docs/commitments.md, "Expiring-commitment alerts"): an alert of the
 * `COMMITMENT_EXPIRY` kind with `expiryWithinDays` 30, 60 or 90 announces each commitment whose term
 * ends within that many days ONCE per window: a 90-day alert announces a commitment when it enters
 * the 90-, the 60- and the 30-day window (the smallest window holding its days left, so a
 * commitment first seen 20 days before its end is announced once, in the 30-day window). The alert
 * runs on the cost alerts' sweep and evaluator (SQS, partial batch failures, DLQ); what it announced
 * is a claim per commitment and window (a conditional write), so later sweeps and redeliveries
 * send nothing again.
 */
export const EXPIRY_WINDOWS = [30, 60, 90] as const;
export type ExpiryWindow = (typeof EXPIRY_WINDOWS)[number];

export interface ExpiryDeps {
  source: ExpiringCommitmentSource;
  claims: ExpiryClaimStore;
  enqueue: (n: Notification) => Promise<void>;
  appUrl: string;
}

/** The smallest window of the alert's windows (those ≤ `withinDays`) holding `daysLeft`, or null. */
export function expiryWindowOf(daysLeft: number, withinDays: number): ExpiryWindow | null {
  if (daysLeft < 0) return null;
  return EXPIRY_WINDOWS.find((w) => w <= withinDays && daysLeft <= w) ?? null;
}

const claimKey = (window: number, commitmentId: string) => `${window}#${commitmentId}`;

/** The notification of one announcement: the same commitments on the same day give the same id. */
export function expiryNotificationId(alertId: string, today: string, keys: readonly string[]): string {
  const digest = createHash('sha256')
    .update([...keys].sort().join('\n'))
    .digest('hex')
    .slice(0, 16);
  return `${alertId}:expiry:${today}:${digest}`;
}

/**
 * Evaluates one expiring-commitment alert: the commitments ending within its days, those of them
 * not yet announced in their window, and — unless the alert is snoozed — one notification naming
 * them, enqueued BEFORE the claims are written. A failure in between leaves the claims unwritten, so
 * the redelivered message announces the same commitments again under the same notification id,
 * which the notify worker's delivery record sends once; once the claims are written, later sweeps
 * find nothing new.
 */
export async function evaluateCommitmentExpiry(
  alert: StoredAlert,
  deps: ExpiryDeps,
  now: Date,
): Promise<AlertEvaluation> {
  const withinDays = alert.expiryWithinDays ?? 30;
  const [{ today, items }, claimed] = await Promise.all([
    deps.source.expiring(alert.organizationId, withinDays, now),
    deps.claims.claimed(alert.organizationId, alert.id),
  ]);
  const fresh = items.flatMap((c) => {
    const window = expiryWindowOf(c.daysLeft, withinDays);
    return window !== null && !claimed.has(claimKey(window, c.id)) ? [{ commitment: c, window }] : [];
  });
  const evaluation: AlertEvaluation = {
    alertId: alert.id,
    evaluatedAt: now.toISOString(),
    evaluatedDay: today,
    values: { expiring: items.length, announced: fresh.length },
    triggered: fresh.length > 0,
    suppressedBy: null,
    notificationId: null,
  };
  if (!fresh.length) return evaluation;
  if (alert.snoozedUntil && Date.parse(alert.snoozedUntil) > now.getTime())
    return { ...evaluation, suppressedBy: 'SNOOZE' };

  const notificationId = expiryNotificationId(
    alert.id,
    today,
    fresh.map((f) => claimKey(f.window, f.commitment.id)),
  );
  await deps.enqueue({
    id: notificationId,
    ...alertAddress(alert),
    message: renderExpiryMessage(
      alert,
      fresh.map((f) => f.commitment),
      today,
      deps.appUrl,
    ),
    createdAt: now.toISOString(),
  });
  for (const f of fresh)
    await deps.claims.claim(
      alert.organizationId,
      alert.id,
      { window: f.window, commitmentId: f.commitment.id, notificationId },
      now,
    );
  return { ...evaluation, notificationId };
}

// ---------------------------------------------------------------------------------------------
// The message

const pct = (u: number) => `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(u * 100)}%`;
/** An hourly commitment as the export's currency amount, to 4 decimals (`0.1`, `2.4`, `1.2345`). */
const hourly = (h: number) => new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }).format(h);

/** One commitment's facts, in the order every format shows them. */
function factsOf(c: ExpiringCommitment): string[] {
  return [
    `${c.provider ?? 'unknown provider'}`,
    `${c.type ?? 'commitment'}`,
    `ends ${c.endDay} (${c.daysLeft} day${c.daysLeft === 1 ? '' : 's'} left)`,
    c.hourlyCommitment === null
      ? 'hourly commitment unknown'
      : `hourly commitment ${hourly(c.hourlyCommitment)}/h`,
    c.utilization === null ? 'utilisation unknown' : `utilisation ${pct(c.utilization)} (last 30 days)`,
  ];
}

const labelOf = (c: ExpiringCommitment) => (c.name ? `${c.name} (${c.id})` : c.id);

/** The message of one announcement: each commitment with its facts, and links to the console and the API. */
export function renderExpiryMessage(
  alert: Pick<StoredAlert, 'id' | 'name' | 'expiryWithinDays'>,
  items: readonly ExpiringCommitment[],
  today: string,
  appUrl: string,
): RenderedMessage {
  const within = alert.expiryWithinDays ?? 30;
  const link = consoleLink(appUrl, 'commitments');
  const api = `GET /commitments/expiring?withinDays=${within}`;
  const n = items.length;
  const headline = `${n} commitment${n === 1 ? '' : 's'} ending within ${within} days (as of ${today})`;
  const subject = oneLine(`Commitment alert: ${alert.name} — ${headline}`).slice(0, 998);
  const lines = items.map((c) => `${labelOf(c)}: ${factsOf(c).join(', ')}`);
  const text = [
    `Commitment alert: ${alert.name}`,
    `${headline}.`,
    '',
    ...lines.map((l) => `• ${l}`),
    '',
    `Open the commitments: ${link}`,
    `API: ${api}`,
  ].join('\n');
  const html = [
    `<h2>Commitment alert: ${escapeHtml(alert.name)}</h2>`,
    `<p><strong>${escapeHtml(headline)}.</strong></p>`,
    `<ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`,
    `<p><a href="${escapeHtml(link)}">Open the commitments</a> · API: <code>${escapeHtml(api)}</code></p>`,
  ].join('\n');
  const slackText = escapeSlack(oneLine(`Commitment alert: ${alert.name} — ${headline}`));
  const slackBlocks: Record<string, unknown>[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: oneLine(`Commitment alert: ${alert.name}`).slice(0, 150) },
    },
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(headline)}.*` } },
    ...lines.map((l) => ({ type: 'section', text: { type: 'plain_text', text: `• ${l}` } })),
    {
      type: 'section',
      text: { type: 'mrkdwn', text: `<${link}|Open the commitments> · API: \`${escapeSlack(api)}\`` },
    },
  ];
  const teamsCard = adaptiveCard(
    [
      cardText(`Commitment alert: ${alert.name}`, { weight: 'Bolder', size: 'Large', color: 'Attention' }),
      cardText(`${headline}.`, { weight: 'Bolder' }),
      ...lines.map((l) => cardText(`• ${l}`)),
      cardFooter(`API: ${api}`),
    ],
    [{ title: 'Open the commitments', url: link }],
  );
  return { subject, html, text, slackBlocks, slackText, teamsCard };
}
