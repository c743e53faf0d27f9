import type { BurnLines } from '../../../charts/burn';
import { budgetPageLink } from '../../../links';
import type { RootCauses } from '../../../model/alerts';
import type { BudgetAlertThreshold } from '../../../model/budget-alerts';
import type { Budget } from '../../../model/budgets';
import type { ConversionOut } from '../../../model/conversion';
import { money } from '../../alerts/explain';
import type { RenderedMessage } from '../../alerts/notification';
import {
  adaptiveCard,
  cardFigure,
  cardText,
  causeLinesOf,
  causesHtml,
  escapeHtml,
  escapeSlack,
} from '../../alerts/render';
import { daysBetween } from '../../alerts/schedule';
import { oneLine } from '../../common/text';
import { monthDays, type StatusFigures } from '../status';

/**
 * The message of a budget alert's threshold (docs/budgets.md "Budget alerts"): a pure function
 * from a firing to the e-mail's subject, HTML and text, Slack blocks and a Teams card. It explains
 * itself: the budget and line, owner, budget amount, actual to date, forecast with its interval,
 * days left, the threshold crossed, the top three dimension values behind the spend, what was
 * converted, and a link to the budget in the console.
 */
export interface BudgetFiring {
  alert: { id: string; name: string };
  budget: Pick<Budget, 'id' | 'name' | 'currency' | 'groupBy'>;
  /** The budget in the console (`budgetLink`). */
  link: string;
  /** The line's value; null: the budget's total. */
  line: string | null;
  owner: string | null;
  month: string;
  dataThrough: string;
  figures: StatusFigures;
  threshold: Pick<BudgetAlertThreshold, 'value' | 'severityLevel' | 'metricMode' | 'basis'> & {
    amount: number;
  };
  /** The actual (ACTUAL) or the month-end forecast (FORECASTED) that crossed. */
  measured: number;
  top: { dimension: string; values: { value: string; amount: number }[] };
  /** The month-to-date change against the same days of the previous month, by contributor (`budgetRootCauses`). */
  rootCauses?: RootCauses | null;
  conversion: ConversionOut | null;
  burn: BurnLines;
  appUrl: string;
  /** A test send: the figures are a sample. */
  test?: boolean;
}

/** The file name (and e-mail Content-ID) of the burn chart (./burn-chart.ts draws it). */
export const BURN_CHART_FILE = 'burn-chart.png';
/** What the burn chart shows, in words: the e-mail's `alt` and the Teams image's `altText`. */
export const BURN_CHART_ALT = 'Burn chart: cumulative actual against cumulative budget, forecast shaded';

const pct = (x: number) => `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 }).format(x)}%`;

export function lineLabel(f: Pick<BudgetFiring, 'line' | 'budget'>): string {
  return f.line === null ? 'the budget total' : `${f.budget.groupBy ?? 'line'} ${f.line}`;
}

/** The link to the budget's page in the console (shared/links.ts): the month fired, the line marked. */
export function budgetLink(
  appUrl: string,
  budget: Pick<Budget, 'id'>,
  line: string | null,
  month: string,
): string {
  return budgetPageLink(appUrl, budget.id, { month, line });
}

/** The message's facts, in order: what crossed, then the figures as label/value pairs. */
export function explainBudgetFiring(f: BudgetFiring): { headline: string; figures: [string, string][] } {
  const c = f.budget.currency;
  const t = f.threshold;
  const { last } = monthDays(f.month);
  const daysLeft = Math.max(0, daysBetween(f.dataThrough, last));
  const what =
    t.basis === 'FORECASTED'
      ? `The month-end forecast of ${lineLabel(f)} for ${f.month} is ${money(f.measured, c)}`
      : `The actual spend of ${lineLabel(f)} in ${f.month} is ${money(f.measured, c)} through ${f.dataThrough}`;
  const share =
    f.figures.budget > 0
      ? `, ${pct((f.measured / f.figures.budget) * 100)} of its budget of ${money(f.figures.budget, c)}`
      : '';
  const limit =
    t.metricMode === 'PERCENTAGE_OF_BUDGET'
      ? `${pct(t.value)} of budget (${money(t.amount, c)})`
      : money(t.amount, c);
  const headline = `${what}${share}: it crossed the ${t.severityLevel} threshold of ${limit}`;
  const fc = f.figures.forecast;
  const figures: [string, string][] = [
    ['Budget', f.budget.name],
    ['Line', f.line === null ? 'Total' : `${f.budget.groupBy ?? ''} = ${f.line}`],
    ['Owner', f.owner ?? 'none'],
    [`Budget for ${f.month}`, money(f.figures.budget, c)],
    [`Actual to date (through ${f.dataThrough})`, money(f.figures.actual, c)],
    [
      'Month-end forecast',
      fc ? `${money(fc.value, c)} (80% interval ${money(fc.lower80, c)} – ${money(fc.upper80, c)})` : 'n/a',
    ],
    ['Forecast − budget', f.figures.delta === null ? 'n/a' : money(f.figures.delta, c)],
    ['Days left in the month', String(daysLeft)],
    [
      'Threshold crossed',
      `${t.severityLevel}: ${t.basis === 'FORECASTED' ? 'forecast' : 'actual'} ≥ ${limit}`,
    ],
  ];
  if (f.top.values.length)
    figures.push([
      `Top ${f.top.dimension} values this month`,
      f.top.values.map((v) => `${v.value} ${money(v.amount, c)}`).join(', '),
    ]);
  if (f.conversion)
    figures.push([
      'Currency',
      `converted from ${f.conversion.from.join(', ')} to ${f.conversion.to} at each day's rate${f.conversion.source ? ` (${f.conversion.source}${f.conversion.rates ? `, rates of ${f.conversion.rates.from} to ${f.conversion.rates.to}` : ''})` : ''}`,
    ]);
  return { headline, figures };
}

export function renderBudgetAlertMessage(f: BudgetFiring): RenderedMessage {
  const { headline, figures } = explainBudgetFiring(f);
  const causes = causeLinesOf(f.rootCauses, f.budget.currency);
  const causeText = causes ? ['', causes.heading, ...causes.lines.map((l) => `- ${l}`)] : [];
  const link = f.link;
  const linkLabel = 'Open the budget';
  const prefix = f.test ? '[Test] ' : '';
  const testLine = f.test ? 'This is a test notification: the figures below are a sample.' : '';
  const title = oneLine(`${prefix}Budget alert: ${f.alert.name}`);
  const subject = oneLine(
    `${prefix}Budget alert: ${f.alert.name} — ${f.budget.name}${f.line === null ? '' : ` / ${f.line}`} ${f.threshold.severityLevel} (${f.month})`,
  ).slice(0, 250);

  const text = [
    testLine,
    title,
    '',
    `${headline}.`,
    '',
    ...figures.map(([k, v]) => `${k}: ${v}`),
    ...causeText,
    '',
    `${linkLabel}: ${link}`,
  ]
    .filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n')
    .trim();

  const rows = figures
    .map(
      ([k, v]) =>
        `<tr><td style="padding:6px 12px;border-bottom:1px solid #e5e7eb;color:#374151">${escapeHtml(k)}</td><td style="padding:6px 12px;border-bottom:1px solid #e5e7eb;text-align:right;font-variant-numeric:tabular-nums;color:#111827"><strong>${escapeHtml(v)}</strong></td></tr>`,
    )
    .join('');
  const color =
    f.threshold.severityLevel === 'CRITICAL'
      ? '#b91c1c'
      : f.threshold.severityLevel === 'WARNING'
        ? '#b45309'
        : '#1d4ed8';
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f3f4f6;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#111827">
<table role="presentation" width="100%" style="max-width:640px;margin:0 auto;background:#ffffff;border-radius:8px;border-collapse:separate;border-spacing:0;overflow:hidden">
<tr><td style="background:${color};color:#ffffff;padding:16px 24px;font-size:18px;font-weight:600">${escapeHtml(title)}</td></tr>
${f.test ? `<tr><td style="padding:12px 24px;background:#fef3c7;color:#92400e">${escapeHtml(testLine)}</td></tr>` : ''}
<tr><td style="padding:20px 24px 4px 24px;font-size:16px;line-height:1.5"><strong>${escapeHtml(headline)}.</strong></td></tr>
<tr><td style="padding:12px 24px"><img src="cid:${BURN_CHART_FILE}" alt="${BURN_CHART_ALT}" width="600" style="display:block;width:100%;max-width:600px;height:auto;border:0"></td></tr>
<tr><td style="padding:12px 24px"><table role="presentation" width="100%" style="border-collapse:collapse;font-size:14px">${rows}</table></td></tr>
${causes ? causesHtml(causes) : ''}<tr><td style="padding:20px 24px 24px 24px"><a href="${escapeHtml(link)}" style="display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;padding:10px 18px;border-radius:6px;font-weight:600">${linkLabel}</a></td></tr>
</table>
<p style="max-width:640px;margin:12px auto 0 auto;color:#9ca3af;font-size:12px;text-align:center">Budget alert ${escapeHtml(f.alert.id)} · sent because you are a recipient of this alert.</p>
</body></html>
`;

  const slackText = escapeSlack(oneLine(`${prefix}Budget alert: ${f.alert.name} — ${headline}`));
  const slackBlocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: title.slice(0, 150), emoji: false } },
    ...(f.test ? [{ type: 'section', text: { type: 'plain_text', text: testLine, emoji: false } }] : []),
    { type: 'section', text: { type: 'plain_text', text: `${headline}.`, emoji: false } },
    {
      type: 'section',
      fields: figures
        .slice(0, 10)
        .map(([k, v]) => ({ type: 'plain_text', text: `${k}\n${v}`, emoji: false })),
    },
    ...(figures.length > 10
      ? [
          {
            type: 'section',
            text: {
              type: 'plain_text',
              text: figures
                .slice(10)
                .map(([k, v]) => `${k}: ${v}`)
                .join('\n'),
              emoji: false,
            },
          },
        ]
      : []),
    ...(causes
      ? [
          {
            type: 'section',
            text: {
              type: 'plain_text',
              text: [causes.heading, ...causes.lines].join('\n').slice(0, 3000),
              emoji: false,
            },
          },
        ]
      : []),
    {
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: linkLabel }, url: link }],
    },
  ];

  const teamsCard = adaptiveCard(
    [
      cardText(title, { weight: 'Bolder', size: 'Large', color: 'Attention' }),
      ...(f.test ? [cardText(testLine, { isSubtle: true })] : []),
      cardText(`${headline}.`, { weight: 'Bolder' }),
      ...figures.map(cardFigure),
      ...(causes
        ? [cardText(causes.heading, { weight: 'Bolder' }), ...causes.lines.map((l) => cardText(l))]
        : []),
    ],
    [{ title: linkLabel, url: link }],
  );

  return { subject, html, text, slackBlocks, slackText, teamsCard };
}
