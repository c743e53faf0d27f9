import type { RootCause, RootCauses } from '../../model/alerts';
import { oneLine } from '../common/text';
import {
  type AlertFiring,
  alertLink,
  alertPageUrl,
  type Explanation,
  explain,
  money,
  percent,
} from './explain';
import { CARD_FOOTER_ID, type RenderedMessage } from './notification';

/**
 * The message renderer: a pure function from an alert firing to the subject, HTML and text of an
 * e-mail, Slack blocks and a Teams Adaptive Card. Every message explains itself (`explain.ts`): the
 * alert's name, its condition in words, the values that made it true, the top contributors to the
 * change (root causes, when computed), the evaluated period and the last complete day of data, and
 * links to the explorer over the evaluated period and to the alert's page.
 */
export type { AlertFiring } from './explain';

/** The file name (and e-mail Content-ID) of the message's chart (chart.ts draws it). */
export const ALERT_CHART_FILE = 'alert-chart.png';

/** What the chart shows, in words: the e-mail's `alt` and the Teams image's `altText`. */
export function alertChartAlt(firing: AlertFiring): string {
  const { alert } = firing;
  const bucket = alert.condition
    ? 'day'
    : alert.evaluationPeriod === 'DAILY'
      ? 'day'
      : alert.evaluationPeriod === 'WEEKLY'
        ? 'week'
        : 'month';
  return `Chart: ${alert.name} per ${bucket} through ${firing.period.end}, the evaluated one in red`;
}

// ---------------------------------------------------------------------------------------------
// Root causes

function signedMoney(value: number, currency: string): string {
  return `${value >= 0 ? '+' : '−'}${money(Math.abs(value), currency)}`;
}

interface CauseLines {
  heading: string;
  /** One sentence per contributor (text, Slack, Teams). */
  lines: string[];
  /** The same figures as table cells (e-mail HTML): label, before, after, change, share. */
  cells: [string, string, string, string, string][];
}

/** The root causes in words and cells (null without root causes). */
export function rootCauseLines(firing: AlertFiring): CauseLines | null {
  return causeLinesOf(firing.rootCauses, firing.alert.currency);
}

/** Root causes in words and cells in `cur` (null without contributors); cost and budget alerts. */
export function causeLinesOf(rc: RootCauses | null | undefined, cur: string): CauseLines | null {
  if (!rc?.top.length) return null;
  const unsigned = (x: number | null) => (x === null ? '' : percent(x).replace(/^\+/, ''));
  const heading = `Top contributors by ${rc.dimension} (${rc.query}: ${money(rc.after, cur)} against ${money(rc.before, cur)} for ${rc.baseline.label}, ${signedMoney(rc.change, cur)}${rc.explained === null ? '' : `; these explain ${unsigned(rc.explained)} of the change`})`;
  const changeOf = (c: RootCause) =>
    `${signedMoney(c.change, cur)}${c.changePercent === null ? ', new' : `, ${percent(c.changePercent)}`}`;
  return {
    heading,
    lines: rc.top.map(
      (c) =>
        `${c.label}: ${money(c.before, cur)} → ${money(c.after, cur)} (${changeOf(c)}${c.share === null ? '' : `; ${unsigned(c.share)} of the change`})`,
    ),
    cells: rc.top.map((c) => [
      c.label,
      money(c.before, cur),
      money(c.after, cur),
      changeOf(c),
      unsigned(c.share),
    ]),
  };
}

/** The root causes as an e-mail table. */
export function causesHtml(causes: CauseLines): string {
  const td = 'padding:6px 8px;border-bottom:1px solid #e5e7eb;text-align:left';
  const num = `${td};text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap`;
  const head = ['Contributor', 'Before', 'After', 'Change', 'Share']
    .map((h, i) => `<th style="${i ? num : td};color:#6b7280;font-weight:600">${h}</th>`)
    .join('');
  const rows = causes.cells
    .map(
      (cells) =>
        `<tr>${cells.map((c, i) => `<td style="${i ? num : td}">${escapeHtml(c)}</td>`).join('')}</tr>`,
    )
    .join('');
  return `<tr><td style="padding:12px 24px 0 24px;line-height:1.5"><strong>${escapeHtml(causes.heading)}</strong></td></tr>
<tr><td style="padding:6px 24px 0 24px"><table role="presentation" width="100%" style="border-collapse:collapse;font-size:13px"><tr>${head}</tr>${rows}</table></td></tr>
`;
}

// ---------------------------------------------------------------------------------------------
// Output formats

export function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export function escapeSlack(s: string): string {
  return s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);
}

/**
 * Text for an Adaptive Card, shown literally: a RichTextBlock of one TextRun (no markdown). `{{`
 * is broken with a word joiner so a DATE()/TIME() template in user text is not expanded.
 */
export function cardText(text: string, style: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'RichTextBlock',
    inlines: [{ type: 'TextRun', text: text.replaceAll('{{', '{\u2060{'), ...style }],
  };
}

/** A card's footer: small, subtle, and named so that images go before it (`CARD_FOOTER_ID`). */
export function cardFooter(text: string): Record<string, unknown> {
  return { ...cardText(text, { isSubtle: true, size: 'Small' }), id: CARD_FOOTER_ID };
}

/** A figure of a card: its title in bold, its value at the right. */
export function cardFigure([title, value]: readonly [string, string]): Record<string, unknown> {
  return {
    type: 'ColumnSet',
    spacing: 'Small',
    columns: [
      { type: 'Column', width: 'stretch', items: [cardText(title, { weight: 'Bolder' })] },
      { type: 'Column', width: 'auto', items: [cardText(value)] },
    ],
  };
}

/** A Teams message: an Adaptive Card (1.5, full width) of `body`, with its links as actions. */
export function adaptiveCard(
  body: Record<string, unknown>[],
  links: { title: string; url: string }[],
): Record<string, unknown> {
  return {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.5',
    msteams: { width: 'Full' },
    body,
    actions: links.map(({ title, url }) => ({ type: 'Action.OpenUrl', title, url })),
  };
}

/** Everything the formats show, computed once per firing. */
interface Parts {
  firing: AlertFiring;
  ex: Explanation;
  link: string;
  pageLink: string;
  pageLabel: string;
  prefix: string;
  subject: string;
  headline: string;
  periodLine: string;
  testLine: string;
  causes: CauseLines | null;
}

function partsOf(firing: AlertFiring): Parts {
  const { alert } = firing;
  const ex = explain(firing);
  const prefix = firing.test ? '[Test] ' : '';
  const { start, end } = firing.period;
  return {
    firing,
    ex,
    link: alertLink(firing),
    pageLink: alertPageUrl(firing),
    pageLabel: firing.test ? 'Open the alerts' : 'Open the alert',
    prefix,
    subject: oneLine(`${prefix}Cost alert: ${alert.name} — ${firing.evaluatedDay}`).slice(0, 250),
    headline: ex.facts[0] ?? `${alert.name} fired on ${firing.evaluatedDay}`,
    periodLine: `Period: ${start === end ? start : `${start} to ${end}`} (the last complete day of billing data is ${firing.evaluatedDay}).`,
    testLine: firing.test ? 'This is a test notification: the figures below are a sample.' : '',
    causes: rootCauseLines(firing),
  };
}

function textOf({
  firing: { alert },
  ex,
  link,
  pageLink,
  pageLabel,
  periodLine,
  testLine,
  causes,
}: Parts): string {
  return [
    testLine,
    `Alert: ${alert.name}`,
    alert.description ? alert.description : '',
    '',
    `Why it fired: ${ex.rule}.`,
    ...ex.facts.map((f) => `- ${f}.`),
    '',
    periodLine,
    '',
    ...ex.figures.map(([k, val]) => `${k}: ${val}`),
    '',
    ...(causes ? [`${causes.heading}:`, ...causes.lines.map((l) => `- ${l}`), ''] : []),
    `Open in the explorer: ${link}`,
    `${pageLabel}: ${pageLink}`,
  ]
    .filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n');
}

function htmlOf(p: Parts): string {
  const { firing, ex, link, pageLink, pageLabel, prefix, subject, headline, periodLine, testLine, causes } =
    p;
  const { alert } = firing;
  const rows = ex.figures
    .map(
      ([k, val]) =>
        `<tr><td style="padding:6px 12px;border-bottom:1px solid #e5e7eb;color:#374151">${escapeHtml(k)}</td><td style="padding:6px 12px;border-bottom:1px solid #e5e7eb;text-align:right;font-variant-numeric:tabular-nums;color:#111827"><strong>${escapeHtml(val)}</strong></td></tr>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#111827">
<table role="presentation" width="100%" style="max-width:640px;margin:0 auto;background:#ffffff;border-radius:8px;border-collapse:separate;border-spacing:0;overflow:hidden">
<tr><td style="background:#b91c1c;color:#ffffff;padding:16px 24px;font-size:18px;font-weight:600">${escapeHtml(prefix)}Cost alert: ${escapeHtml(alert.name)}</td></tr>
${firing.test ? `<tr><td style="padding:12px 24px;background:#fef3c7;color:#92400e">${escapeHtml(testLine)}</td></tr>` : ''}
<tr><td style="padding:20px 24px 4px 24px;font-size:16px;line-height:1.5"><strong>${escapeHtml(headline)}.</strong></td></tr>
${alert.description ? `<tr><td style="padding:4px 24px;color:#4b5563">${escapeHtml(alert.description)}</td></tr>` : ''}
<tr><td style="padding:12px 24px;line-height:1.5"><span style="color:#6b7280">Why it fired:</span> ${escapeHtml(ex.rule)}.</td></tr>
${ex.facts.length > 1 ? `<tr><td style="padding:0 24px"><ul style="margin:0;padding-left:20px;line-height:1.6">${ex.facts.map((f) => `<li>${escapeHtml(f)}.</li>`).join('')}</ul></td></tr>` : ''}
<tr><td style="padding:12px 24px"><table role="presentation" width="100%" style="border-collapse:collapse;font-size:14px">${rows}</table></td></tr>
${
  firing.chart?.buckets.length
    ? `<tr><td style="padding:12px 24px"><img src="cid:${ALERT_CHART_FILE}" alt="${escapeHtml(alertChartAlt(firing))}" width="600" style="display:block;width:100%;max-width:600px;height:auto;border:0"></td></tr>
`
    : ''
}${causes ? causesHtml(causes) : ''}<tr><td style="padding:4px 24px;color:#6b7280;font-size:13px">${escapeHtml(periodLine)}</td></tr>
<tr><td style="padding:20px 24px 24px 24px"><a href="${escapeHtml(link)}" style="display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;padding:10px 18px;border-radius:6px;font-weight:600">Open in the explorer</a> <a href="${escapeHtml(pageLink)}" style="display:inline-block;color:#1d4ed8;padding:10px 12px;font-weight:600">${pageLabel}</a></td></tr>
</table>
<p style="max-width:640px;margin:12px auto 0 auto;color:#9ca3af;font-size:12px;text-align:center">Alert ${escapeHtml(alert.id)} · sent because you are a recipient of this alert.</p>
</body></html>
`;
}

function slackOf(p: Parts): Pick<RenderedMessage, 'slackText' | 'slackBlocks'> {
  const { firing, ex, link, pageLink, pageLabel, prefix, headline, periodLine, causes } = p;
  const { alert } = firing;
  // Slack reads the fallback `text` as mrkdwn too (`<!channel>`, `<url|label>`): escaped like the blocks.
  const slackText = escapeSlack(oneLine(`${prefix}Cost alert: ${alert.name} — ${headline}`));
  const slackBlocks: Record<string, unknown>[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: oneLine(`${prefix}Cost alert: ${alert.name}`).slice(0, 150),
        emoji: false,
      },
    },
    // Texts carrying user words (the alert name, query aliases) are plain_text: Slack has no escape
    // for `*`, `_`, `~` in mrkdwn, so an alias like "EC2 *spot*" would turn bold there.
    { type: 'section', text: { type: 'plain_text', text: `${headline}.`, emoji: false } },
    { type: 'section', text: { type: 'plain_text', text: `Why it fired: ${ex.rule}.`, emoji: false } },
    ...(ex.figures.length
      ? [
          {
            type: 'section',
            fields: ex.figures
              .slice(0, 10)
              .map(([k, val]) => ({ type: 'plain_text', text: `${k}\n${val}`, emoji: false })),
          },
        ]
      : []),
    ...(causes
      ? [
          {
            type: 'section',
            text: {
              type: 'plain_text',
              text: [`${causes.heading}:`, ...causes.lines.map((l) => `• ${l}`)].join('\n').slice(0, 3000),
              emoji: false,
            },
          },
        ]
      : []),
    { type: 'context', elements: [{ type: 'mrkdwn', text: escapeSlack(periodLine) }] },
    {
      type: 'actions',
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Open in the explorer' }, url: link },
        { type: 'button', text: { type: 'plain_text', text: pageLabel }, url: pageLink },
      ],
    },
  ];

  return { slackText, slackBlocks };
}

function teamsOf(p: Parts): Record<string, unknown> {
  const { firing, ex, link, pageLink, pageLabel, prefix, headline, periodLine, testLine, causes } = p;
  const { alert } = firing;
  // Every text of the card is a RichTextBlock of one TextRun: Teams reads markdown in TextBlock and
  // in FactSet titles and values, and backslash escapes are not honoured alike on every client,
  // whereas a TextRun is always shown literally (alert names and query aliases are user text).
  return adaptiveCard(
    [
      cardText(`${prefix}Cost alert: ${alert.name}`, { weight: 'Bolder', size: 'Large', color: 'Attention' }),
      ...(firing.test ? [cardText(testLine, { isSubtle: true })] : []),
      cardText(`${headline}.`, { weight: 'Bolder' }),
      cardText(`Why it fired: ${ex.rule}.`),
      ...ex.figures.map(cardFigure),
      ...(causes
        ? [
            cardText(`${causes.heading}:`, { weight: 'Bolder' }),
            ...causes.lines.map((l) => cardText(`• ${l}`)),
          ]
        : []),
      cardFooter(periodLine),
    ],
    [
      { title: 'Open in the explorer', url: link },
      { title: pageLabel, url: pageLink },
    ],
  );
}

export function renderAlertMessage(firing: AlertFiring): RenderedMessage {
  const p = partsOf(firing);
  return { subject: p.subject, html: htmlOf(p), text: textOf(p), ...slackOf(p), teamsCard: teamsOf(p) };
}
