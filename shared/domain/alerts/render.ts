import { alertPageLink, explorerLink, parseExplorerQueryString } from '../../links';
import { ExpressionError } from '../common/expr/errors';
import { type ExprNode, parseExpression } from '../common/expr/parse';
import { windowNodes } from '../common/expr/walk';
import { oneLine } from '../common/text';
import type { AlertThreshold, CostAlert } from './model';
import type { RenderedMessage } from './notification';

/**
 * The message renderer: a pure function from an alert firing to the subject, HTML and text of an
 * e-mail, Slack blocks and a Teams Adaptive Card. Every message explains itself: the alert's name,
 * its condition in words, the values that made it true ("EC2 cost on 2026-11-20 was $1,240, 2.3×
 * its 28-day median of $540"), the evaluated period and the last complete day of data, and a link
 * to the explorer with the alert's queries over the evaluated period, and one to the alert's page
 * (both under the console's base URL, shared/links.ts).
 */
export interface AlertFiring {
  alert: Pick<
    CostAlert,
    | 'id'
    | 'name'
    | 'description'
    | 'currency'
    | 'queries'
    | 'queryName'
    | 'condition'
    | 'thresholdType'
    | 'evaluationPeriod'
    | 'urlState'
  > & { scopeId?: string | null };
  thresholds: Pick<AlertThreshold, 'value' | 'severityLevel' | 'metricMode' | 'changeBasis'>[];
  /** The evaluated day (`YYYY-MM-DD`): the last complete day of billing data. */
  evaluatedDay: string;
  /** The evaluated period, inclusive (`YYYY-MM-DD`): one day for DAILY, a week or a month otherwise. */
  period: { start: string; end: string };
  /** Each query's value over the evaluated period (by query name). */
  values: Record<string, number | null>;
  /**
   * Values of the condition's window functions over a query on the evaluated day, keyed
   * `fn(query,n,UNIT)` as `baselineKey` spells it, e.g. `rollingMedian(ec2,28,DAY)`.
   */
  baselines: Record<string, number | null>;
  /** Threshold variants: the previous period's value (PERIOD_CHANGE compares with it). */
  previousValue?: number | null;
  /** The console's base URL (config `consoleBaseUrl`): the links' base. */
  appUrl: string;
  /** A test send: the values are a sample (the alert does not exist: its link is the alerts list). */
  test?: boolean;
}

export function baselineKey(fn: string, query: string, n: number, unit: string): string {
  return `${fn}(${query},${n},${unit.toUpperCase()})`;
}

// ---------------------------------------------------------------------------------------------
// Numbers

export function money(value: number | null | undefined, currency: string): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return 'n/a';
  const abs = Math.abs(value);
  return new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: abs >= 100 ? 0 : 2,
    maximumFractionDigits: abs >= 100 ? 0 : 2,
  }).format(value);
}

function plain(value: number): string {
  return new Intl.NumberFormat('en-US', { maximumFractionDigits: 4 }).format(value);
}

function ratio(a: number, b: number): string {
  return `${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(a / b)}×`;
}

function percent(value: number): string {
  return `${value >= 0 ? '+' : ''}${new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(value)}%`;
}

// ---------------------------------------------------------------------------------------------
// The condition in words

const FN_WORDS: Record<string, string> = {
  rollingSum: 'total',
  rollingAvg: 'average',
  rollingMedian: 'median',
  rollingStd: 'standard deviation',
};
const OP_WORDS: Record<string, string> = {
  '>': 'is above',
  '>=': 'is at least',
  '<': 'is below',
  '<=': 'is at most',
  '==': 'equals',
  '!=': 'differs from',
};

function span(n: number, unit: string): string {
  const u = unit.toUpperCase() === 'DAY' ? 'day' : unit.toUpperCase() === 'WEEK' ? 'week' : 'month';
  return `${n}-${u}`;
}

function labelOf(firing: AlertFiring, name: string): string {
  const q = firing.alert.queries.find((x) => x.name === name);
  return q?.alias || name;
}

/** Words for an expression node; numbers compared with a cost are shown as money. */
export function inWords(node: ExprNode, firing: AlertFiring, asMoney = false): string {
  const w = (n: ExprNode, m = asMoney) => inWords(n, firing, m);
  switch (node.type) {
    case 'number':
      return asMoney ? money(node.value, firing.alert.currency) : plain(node.value);
    case 'ref':
      return labelOf(firing, node.name);
    case 'unary':
      return node.op === 'not' ? `not (${w(node.arg)})` : `minus ${w(node.arg)}`;
    case 'call':
      if (node.fn === 'abs') return `the absolute value of ${w(node.args[0]!)}`;
      return `the ${node.fn === 'min' ? 'smallest' : 'largest'} of ${node.args.map((a) => w(a)).join(', ')}`;
    case 'forecast':
      return `the ${node.unit === 'WEEK' ? 'week' : 'month'}'s forecast total of ${w(node.arg)}`;
    case 'window':
      if (node.fn === 'timeShift')
        return `${w(node.arg)} ${node.n} ${node.unit.toLowerCase()}${node.n === 1 ? '' : 's'} earlier`;
      return `the ${span(node.n, node.unit)} ${FN_WORDS[node.fn]} of ${w(node.arg)}`;
    case 'binary': {
      if (node.op === 'and' || node.op === 'or') return `${w(node.left)}, ${node.op} ${w(node.right)}`;
      if (OP_WORDS[node.op]) return `${w(node.left, true)} ${OP_WORDS[node.op]} ${w(node.right, true)}`;
      const sym = node.op === '*' ? '×' : node.op === '/' ? '÷' : node.op;
      // A number multiplying or dividing a cost is a plain factor, on either side:
      // "the 28-day median of EC2 × 1.5", "3 × the 14-day standard deviation of EC2".
      const factor = node.op === '*' || node.op === '/';
      const plainLeft = factor && node.left.type === 'number' && node.right.type !== 'number';
      const plainRight = factor && node.right.type === 'number';
      return `${plainLeft ? w(node.left, false) : w(node.left)} ${sym} ${plainRight ? w(node.right, false) : w(node.right)}`;
    }
  }
}

function refsOf(node: ExprNode, out: string[] = []): string[] {
  if (node.type === 'ref' && !out.includes(node.name)) out.push(node.name);
  if (node.type === 'window' || node.type === 'unary' || node.type === 'forecast') refsOf(node.arg, out);
  if (node.type === 'binary') {
    refsOf(node.left, out);
    refsOf(node.right, out);
  }
  if (node.type === 'call') for (const a of node.args) refsOf(a, out);
  return out;
}

// ---------------------------------------------------------------------------------------------
// What happened

interface Explanation {
  /** The condition or rule in words. */
  rule: string;
  /** Sentences with the values that made it true. */
  facts: string[];
  /** Label/value pairs for tables, fact sets and Slack fields. */
  figures: [string, string][];
}

function periodWords(firing: AlertFiring): string {
  const { start, end } = firing.period;
  if (start === end) return `on ${start}`;
  return `from ${start} to ${end}`;
}

function explainCondition(firing: AlertFiring): Explanation {
  const source = firing.alert.condition ?? '';
  let ast: ExprNode | undefined;
  try {
    ast = parseExpression(source, { maxLength: 10_000 }).ast;
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error;
  }
  if (!ast) return { rule: source, facts: [], figures: [] };
  const cur = firing.alert.currency;
  const facts: string[] = [];
  const figures: [string, string][] = [];
  const windows = windowNodes(ast);
  for (const name of refsOf(ast)) {
    const value = firing.values[name];
    const parts = [`${labelOf(firing, name)} ${periodWords(firing)} was ${money(value, cur)}`];
    figures.push([labelOf(firing, name), money(value, cur)]);
    for (const win of windows) {
      if (win.arg.type !== 'ref' || win.arg.name !== name) continue;
      const base = firing.baselines[baselineKey(win.fn, name, win.n, win.unit)];
      if (base === undefined) continue;
      const what =
        win.fn === 'timeShift'
          ? `its value ${win.n} ${win.unit.toLowerCase()}${win.n === 1 ? '' : 's'} earlier`
          : `its ${span(win.n, win.unit)} ${FN_WORDS[win.fn]}`;
      figures.push([`${labelOf(firing, name)}, ${what.replace(/^its /, '')}`, money(base, cur)]);
      if (win.fn === 'rollingStd') {
        // With a median or average of the same window: how many deviations the value is from it.
        const centre = (['rollingMedian', 'rollingAvg'] as const)
          .map((fn) => [fn, firing.baselines[baselineKey(fn, name, win.n, win.unit)]] as const)
          .find(([, v]) => v !== null && v !== undefined);
        if (centre && base !== null && base > 0 && value !== null && value !== undefined) {
          const devs = Math.abs(value - centre[1]!) / base;
          const n = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, minimumFractionDigits: 1 });
          parts.push(
            `${n.format(devs)} standard deviations ${value >= centre[1]! ? 'above' : 'below'} its ${span(win.n, win.unit)} ${FN_WORDS[centre[0]]} (${span(win.n, win.unit)} standard deviation: ${money(base, cur)})`,
          );
        } else parts.push(`${what} is ${money(base, cur)}`);
      } else if (base !== null && base > 0 && value !== null && value !== undefined)
        parts.push(`${ratio(value, base)} ${what} of ${money(base, cur)}`);
      else parts.push(`${what} was ${money(base, cur)}`);
    }
    facts.push(parts.join(', '));
  }
  return { rule: `${inWords(ast, firing)}`, facts, figures };
}

function explainThresholds(firing: AlertFiring): Explanation {
  const { alert } = firing;
  const cur = alert.currency;
  const label = labelOf(firing, alert.queryName);
  const value = firing.values[alert.queryName] ?? null;
  const unit =
    alert.evaluationPeriod === 'DAILY' ? 'day' : alert.evaluationPeriod === 'WEEKLY' ? 'week' : 'month';
  const above = alert.thresholdType === 'ABOVE';
  const change = firing.thresholds[0]?.metricMode === 'PERIOD_CHANGE';
  const facts: string[] = [];
  const figures: [string, string][] = [
    [`${label} (${periodWords(firing).replace(/^on |^from /, '')})`, money(value, cur)],
  ];
  if (!change) {
    const crossed = [...firing.thresholds]
      .filter((t) => value !== null && (above ? value > t.value : value < t.value))
      .sort((a, b) => (above ? b.value - a.value : a.value - b.value))[0];
    const rule = firing.thresholds.map((t) => `${money(t.value, cur)} (${t.severityLevel})`).join(', ');
    facts.push(
      `${label} ${periodWords(firing)} was ${money(value, cur)}${crossed ? `, ${above ? 'above' : 'below'} the ${crossed.severityLevel} threshold of ${money(crossed.value, cur)}` : ''}`,
    );
    for (const t of firing.thresholds) figures.push([`Threshold (${t.severityLevel})`, money(t.value, cur)]);
    return { rule: `${label} per ${unit} ${above ? 'is above' : 'is below'} ${rule}`, facts, figures };
  }
  const prev = firing.previousValue ?? null;
  const delta = value !== null && prev !== null ? value - prev : null;
  const pct = delta !== null && prev ? (delta / prev) * 100 : null;
  const pctBasis = firing.thresholds[0]?.changeBasis === 'PERCENTAGE';
  const rule = firing.thresholds
    .map((t) => `${pctBasis ? percent(t.value) : money(t.value, cur)} (${t.severityLevel})`)
    .join(', ');
  facts.push(
    `${label} ${periodWords(firing)} was ${money(value, cur)}, ${delta !== null && delta >= 0 ? 'up' : 'down'} ${pct !== null ? percent(pct).replace(/^[+-]/, '') : 'n/a'} (${delta !== null ? `${delta >= 0 ? '+' : '−'}${money(Math.abs(delta), cur)}` : 'n/a'}) on the previous ${unit}'s ${money(prev, cur)}`,
  );
  figures.push([`Previous ${unit}`, money(prev, cur)], ['Change', `${pct !== null ? percent(pct) : 'n/a'}`]);
  return {
    rule: `the change of ${label} against the previous ${unit} ${above ? 'is above' : 'is below'} ${rule}`,
    facts,
    figures,
  };
}

export function explain(firing: AlertFiring): Explanation {
  return firing.alert.condition ? explainCondition(firing) : explainThresholds(firing);
}

/**
 * The link to the explorer showing the alert's queries over the evaluated period, by day: the
 * alert's saved view (`urlState`: grouping, filters, chart) with its queries and period set.
 */
export function alertLink(firing: AlertFiring): string {
  const saved = parseExplorerQueryString(firing.alert.urlState);
  const { datePreset: _preset, ...view } = saved;
  return explorerLink(firing.appUrl, {
    ...view,
    title: firing.alert.name,
    queries: firing.alert.queries as unknown as Record<string, unknown>[],
    startDate: firing.period.start,
    endDate: firing.period.end,
    aggBy: 'Day',
    ...(firing.alert.scopeId ? { scopeId: firing.alert.scopeId } : {}),
  });
}

/** The link to the alert's page (its condition and history); a test send's: the alerts list. */
export function alertPageUrl(firing: AlertFiring): string {
  return alertPageLink(firing.appUrl, firing.test ? null : firing.alert.id);
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

export function renderAlertMessage(firing: AlertFiring): RenderedMessage {
  const { alert } = firing;
  const ex = explain(firing);
  const link = alertLink(firing);
  const pageLink = alertPageUrl(firing);
  const pageLabel = firing.test ? 'Open the alerts' : 'Open the alert';
  const prefix = firing.test ? '[Test] ' : '';
  const subject = oneLine(`${prefix}Cost alert: ${alert.name} — ${firing.evaluatedDay}`).slice(0, 250);
  const headline = ex.facts[0] ?? `${alert.name} fired on ${firing.evaluatedDay}`;
  const periodLine = `Period: ${firing.period.start === firing.period.end ? firing.period.start : `${firing.period.start} to ${firing.period.end}`} (the last complete day of billing data is ${firing.evaluatedDay}).`;
  const testLine = firing.test ? 'This is a test notification: the figures below are a sample.' : '';

  const text = [
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
    `Open in the explorer: ${link}`,
    `${pageLabel}: ${pageLink}`,
  ]
    .filter((line, i, all) => line !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n');

  const rows = ex.figures
    .map(
      ([k, val]) =>
        `<tr><td style="padding:6px 12px;border-bottom:1px solid #e5e7eb;color:#374151">${escapeHtml(k)}</td><td style="padding:6px 12px;border-bottom:1px solid #e5e7eb;text-align:right;font-variant-numeric:tabular-nums;color:#111827"><strong>${escapeHtml(val)}</strong></td></tr>`,
    )
    .join('');
  const html = `<!doctype html>
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
<tr><td style="padding:4px 24px;color:#6b7280;font-size:13px">${escapeHtml(periodLine)}</td></tr>
<tr><td style="padding:20px 24px 24px 24px"><a href="${escapeHtml(link)}" style="display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;padding:10px 18px;border-radius:6px;font-weight:600">Open in the explorer</a> <a href="${escapeHtml(pageLink)}" style="display:inline-block;color:#1d4ed8;padding:10px 12px;font-weight:600">${pageLabel}</a></td></tr>
</table>
<p style="max-width:640px;margin:12px auto 0 auto;color:#9ca3af;font-size:12px;text-align:center">Alert ${escapeHtml(alert.id)} · sent because you are a recipient of this alert.</p>
</body></html>
`;

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
    { type: 'context', elements: [{ type: 'mrkdwn', text: escapeSlack(periodLine) }] },
    {
      type: 'actions',
      elements: [
        { type: 'button', text: { type: 'plain_text', text: 'Open in the explorer' }, url: link },
        { type: 'button', text: { type: 'plain_text', text: pageLabel }, url: pageLink },
      ],
    },
  ];

  // Every text of the card is a RichTextBlock of one TextRun: Teams reads markdown in TextBlock and
  // in FactSet titles and values, and backslash escapes are not honoured alike on every client,
  // whereas a TextRun is always shown literally (alert names and query aliases are user text).
  const teamsCard: Record<string, unknown> = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.5',
    msteams: { width: 'Full' },
    body: [
      cardText(`${prefix}Cost alert: ${alert.name}`, { weight: 'Bolder', size: 'Large', color: 'Attention' }),
      ...(firing.test ? [cardText(testLine, { isSubtle: true })] : []),
      cardText(`${headline}.`, { weight: 'Bolder' }),
      cardText(`Why it fired: ${ex.rule}.`),
      ...ex.figures.map(([title, value]) => ({
        type: 'ColumnSet',
        spacing: 'Small',
        columns: [
          { type: 'Column', width: 'stretch', items: [cardText(title, { weight: 'Bolder' })] },
          { type: 'Column', width: 'auto', items: [cardText(value)] },
        ],
      })),
      cardText(periodLine, { isSubtle: true, size: 'Small' }),
    ],
    actions: [
      { type: 'Action.OpenUrl', title: 'Open in the explorer', url: link },
      { type: 'Action.OpenUrl', title: pageLabel, url: pageLink },
    ],
  };

  return { subject, html, text, slackBlocks, slackText, teamsCard };
}
