import type { Report, ReportAttachment } from '../../../model/reports';
import { budgetsSentence } from '../../budgets/digest';
import { oneLine } from '../../common/text';
import { attachmentName } from './attachments';
import { commitmentsLine, expiringLines } from './commitments-widget';
import { forecastSentence, money, pct } from './figures';
import { escapeHtml, escapeMrkdwn } from './markdown';
import type { Change, WidgetData } from './widget-data';

/**
 * A rendered report: one email body (HTML + text), one Slack message, and the files: each
 * GRAPH_SNAPSHOT's PNG (inline, `<img src="cid:<filename>">` in the HTML) and each DASHBOARD_PDF's
 * PDF (attached).
 */
export interface RenderedReport {
  subject: string;
  attachments: ReportAttachment[];
  html: string;
  text: string;
  slackText: string;
  // biome-ignore lint/suspicious/noExplicitAny: Slack Block Kit objects are open-ended JSON
  slackBlocks: any[];
}

type Node = Omit<Change, 'children'> & { children?: Change[] };

const label = (v: string | null) => v ?? '(none)';
/** A node's name: its group values from the root down to its own level. */
const pathName = (n: Node, dims: string[], sep: string) =>
  dims
    .filter((d) => d in n.group)
    .map((d) => label(n.group[d] ?? null))
    .join(sep);
const GREEN = '#1a7f37';
const RED = '#b42318';
const colour = (d: number) => (d > 0 ? RED : d < 0 ? GREEN : '#555');

function periodLine(d: Extract<WidgetData, { period: unknown }>): string {
  const cmp = d.comparisonPeriod
    ? ` vs ${d.comparisonPeriod.startDate} to ${d.comparisonPeriod.endDate}`
    : '';
  const through = d.dataThrough ? `; data through ${d.dataThrough}` : '';
  const c = d.conversion;
  const conv = c?.rates
    ? `; figures in ${c.to}, converted from ${c.from.join(', ')} at ${c.source ?? 'reference'} rates of ${c.rates.from} to ${c.rates.to}`
    : d.requestedCurrency && d.currency && d.requestedCurrency !== d.currency
      ? `; figures in ${d.currency} (billing currency, not converted to ${d.requestedCurrency})`
      : '';
  return `${d.period.startDate} to ${d.period.endDate}${cmp}${through}${conv}`;
}

const td = 'style="padding:4px 8px;border-bottom:1px solid #eee"';
const tdr = 'style="padding:4px 8px;border-bottom:1px solid #eee;text-align:right"';

function rowHtml(n: Node, currency: string | null, cells: string[]): string {
  const style = n.highlighted ? ' style="background:#fff7e6"' : '';
  return `<tr${style}>${cells.map((c) => `<td ${td}>${escapeHtml(c)}</td>`).join('')}<td ${tdr}>${escapeHtml(
    money(n.current, currency),
  )}</td><td ${tdr}>${escapeHtml(money(n.previous, currency))}</td><td ${tdr}><span style="color:${colour(
    n.diff,
  )}">${escapeHtml(`${n.diff > 0 ? '+' : ''}${money(n.diff, currency)}`)}</span></td><td ${tdr}>${escapeHtml(
    pct(n.relativeDiff),
  )}</td></tr>`;
}

function tableHtml(heads: string[], rows: string): string {
  const th = (h: string, right = false) =>
    `<th style="padding:4px 8px;border-bottom:2px solid #ccc;text-align:${right ? 'right' : 'left'}">${escapeHtml(h)}</th>`;
  return `<table style="border-collapse:collapse;font-size:14px;margin:8px 0"><thead><tr>${heads.map((h) => th(h)).join('')}${['Current', 'Previous', 'Change', '%'].map((h) => th(h, true)).join('')}</tr></thead><tbody>${rows}</tbody></table>`;
}

function treeRows(nodes: Change[], currency: string | null, depth = 0): string {
  return nodes
    .filter((n) => n.highlighted || hasMover(n))
    .map(
      (n) =>
        rowHtml(n, currency, [`${'\u00a0\u00a0\u00a0\u00a0'.repeat(depth)}${label(n.value)}`]) +
        treeRows(n.children, currency, depth + 1),
    )
    .join('');
}

function hasMover(n: Change): boolean {
  return n.children.some((c) => c.highlighted || hasMover(c));
}

function widgetHtml(w: WidgetData, index: number): string {
  const h = (t: string | null, fallback: string) =>
    `<h3 style="margin:16px 0 4px">${escapeHtml(t ?? fallback)}</h3>`;
  const sub = (s: string) => `<p style="color:#666;font-size:12px;margin:0 0 8px">${escapeHtml(s)}</p>`;
  switch (w.type) {
    case 'TEXT':
      return `${w.title ? h(w.title, '') : ''}<div>${w.html}</div>`;
    case 'DIGEST': {
      const head = `${h(w.title, `Cost changes by ${w.groupBy.join(' › ')}`)}${sub(periodLine(w))}<p><strong>${escapeHtml(
        money(w.totals.current, w.currency),
      )}</strong> total, <span style="color:${colour(w.totals.diff)}">${escapeHtml(
        `${w.totals.diff > 0 ? '+' : ''}${money(w.totals.diff, w.currency)} (${pct(w.totals.relativeDiff)})`,
      )}</span> vs the previous period.</p>${w.forecast ? `<p>${escapeHtml(forecastSentence(w.forecast, w.currency))}</p>` : ''}${w.budgets ? `<p>${escapeHtml(budgetsSentence(w.budgets))}</p>` : ''}`;
      if (w.display === 'summary') return `${head}<p>${escapeHtml(w.summary)}</p>`;
      if (w.display === 'table') {
        const rows = w.movers
          .map((n) =>
            rowHtml(
              n,
              w.currency,
              w.groupBy.map((d) => (d in n.group ? label(n.group[d] ?? null) : 'all')),
            ),
          )
          .join('');
        return `${head}${w.movers.length ? tableHtml(w.groupBy, rows) : '<p>No change past the thresholds.</p>'}`;
      }
      const rows = treeRows(w.tree, w.currency);
      return `${head}${rows ? tableHtml([w.groupBy.join(' › ')], rows) : '<p>No change past the thresholds.</p>'}`;
    }
    case 'TOP_FLOP': {
      const part = (title: string, ns: Node[]) =>
        `<h4 style="margin:8px 0 0">${escapeHtml(title)}</h4>${
          ns.length
            ? tableHtml([w.groupBy], ns.map((n) => rowHtml(n, w.currency, [label(n.value)])).join(''))
            : '<p>None.</p>'
        }`;
      return `${h(w.title, `Top movers by ${w.groupBy}`)}${sub(periodLine(w))}${part('Largest increases', w.increases)}${part('Largest decreases', w.decreases)}`;
    }
    case 'GRAPH_SNAPSHOT':
      if (!w.rendered) return `${h(w.title, 'Chart')}${sub(w.reason)}`;
      return `${h(w.chart.title, 'Chart')}${sub(w.chart.stamp.join(' · '))}<img src="cid:${escapeHtml(
        attachmentName(w, index) ?? '',
      )}" alt="${escapeHtml(w.chart.title)}" width="760" style="max-width:100%;height:auto;border:1px solid #eee">`;
    case 'COMMITMENTS':
      return `${h(w.chart.title, 'Commitments')}${sub(w.chart.stamp.join(' · '))}<p>${escapeHtml(
        commitmentsLine(w, money),
      )}</p><img src="cid:${escapeHtml(attachmentName(w, index) ?? '')}" alt="${escapeHtml(
        w.chart.title,
      )}" width="760" style="max-width:100%;height:auto;border:1px solid #eee"><h4 style="margin:8px 0 0">${escapeHtml(
        `Ending within ${w.withinDays} days`,
      )}</h4><ul>${expiringLines(w)
        .map((l) => `<li>${escapeHtml(l)}</li>`)
        .join('')}</ul>`;
    case 'DASHBOARD_PDF':
      if (!w.rendered) return `${h(w.title, 'Dashboard PDF')}${sub(w.reason)}`;
      return `${h(w.title, `Dashboard ${w.dashboardName}`)}<p>The dashboard <strong>${escapeHtml(
        w.dashboardName,
      )}</strong> (${w.charts.length} widget${w.charts.length === 1 ? '' : 's'}) is attached as ${escapeHtml(
        attachmentName(w, index) ?? '',
      )}.</p>`;
  }
}

function lineText(n: Node, currency: string | null, name: string): string {
  return `${name}: ${money(n.current, currency)} (${n.diff > 0 ? '+' : ''}${money(n.diff, currency)}, ${pct(n.relativeDiff)})`;
}

function widgetText(w: WidgetData, index: number): string {
  switch (w.type) {
    case 'TEXT':
      return w.title ? `${w.title}\n${w.text}` : w.text;
    case 'DIGEST':
      return [
        w.title ?? `Cost changes by ${w.groupBy.join(' > ')}`,
        periodLine(w),
        w.summary,
        ...(w.forecast ? [forecastSentence(w.forecast, w.currency)] : []),
        ...(w.budgets ? [budgetsSentence(w.budgets)] : []),
        ...w.movers.map((n) => `- ${lineText(n, w.currency, pathName(n, w.groupBy, ' / '))}`),
      ].join('\n');
    case 'TOP_FLOP':
      return [
        w.title ?? `Top movers by ${w.groupBy}`,
        periodLine(w),
        'Largest increases:',
        ...(w.increases.length
          ? w.increases.map((n) => `- ${lineText(n, w.currency, label(n.value))}`)
          : ['None.']),
        'Largest decreases:',
        ...(w.decreases.length
          ? w.decreases.map((n) => `- ${lineText(n, w.currency, label(n.value))}`)
          : ['None.']),
      ].join('\n');
    case 'GRAPH_SNAPSHOT':
      if (!w.rendered) return `${w.title ?? 'Chart'}: ${w.reason}`;
      return [w.chart.title, ...w.chart.stamp, `Chart attached: ${attachmentName(w, index)}`].join('\n');
    case 'COMMITMENTS':
      return [
        w.chart.title,
        ...w.chart.stamp,
        commitmentsLine(w, money),
        `Chart attached: ${attachmentName(w, index)}`,
        `Ending within ${w.withinDays} days:`,
        ...expiringLines(w).map((l) => `- ${l}`),
      ].join('\n');
    case 'DASHBOARD_PDF':
      if (!w.rendered) return `${w.title ?? 'Dashboard PDF'}: ${w.reason}`;
      return `${w.title ?? `Dashboard ${w.dashboardName}`}: attached as ${attachmentName(w, index)}`;
  }
}

/** Slack section text is capped at 3,000 characters. */
const cap = (s: string) => (s.length > 2900 ? `${s.slice(0, 2899)}…` : s);

function widgetBlocks(w: WidgetData, index: number): unknown[] {
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text: cap(text) } });
  const context = (text: string) => ({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: cap(escapeMrkdwn(text)) }],
  });
  const line = (n: Node, name: string, currency: string | null) =>
    `• ${escapeMrkdwn(name)}: ${escapeMrkdwn(money(n.current, currency))} (${n.diff > 0 ? '+' : ''}${escapeMrkdwn(money(n.diff, currency))}, ${pct(n.relativeDiff)})`;
  switch (w.type) {
    case 'TEXT': {
      const body = [...(w.title ? [`*${escapeMrkdwn(w.title)}*`] : []), ...(w.mrkdwn ? [w.mrkdwn] : [])];
      return body.length ? [section(body.join('\n'))] : [];
    }
    case 'DIGEST':
      return [
        section(
          `*${escapeMrkdwn(w.title ?? `Cost changes by ${w.groupBy.join(' › ')}`)}*\n${escapeMrkdwn(w.summary)}${w.forecast ? `\n${escapeMrkdwn(forecastSentence(w.forecast, w.currency))}` : ''}${w.budgets ? `\n${escapeMrkdwn(budgetsSentence(w.budgets))}` : ''}`,
        ),
        ...(w.display === 'summary' || !w.movers.length
          ? []
          : [
              section(
                w.movers
                  .slice(0, 20)
                  .map((n) => line(n, pathName(n, w.groupBy, ' / '), w.currency))
                  .join('\n'),
              ),
            ]),
        context(periodLine(w)),
      ];
    case 'TOP_FLOP':
      return [
        section(
          [
            `*${escapeMrkdwn(w.title ?? `Top movers by ${w.groupBy}`)}*`,
            '*Largest increases*',
            ...(w.increases.length ? w.increases.map((n) => line(n, label(n.value), w.currency)) : ['None.']),
            '*Largest decreases*',
            ...(w.decreases.length ? w.decreases.map((n) => line(n, label(n.value), w.currency)) : ['None.']),
          ].join('\n'),
        ),
        context(periodLine(w)),
      ];
    case 'GRAPH_SNAPSHOT':
      if (!w.rendered) return [context(`${w.title ?? 'Chart'}: ${w.reason}`)];
      return [
        section(
          `*${escapeMrkdwn(w.chart.title)}* (chart uploaded as ${escapeMrkdwn(attachmentName(w, index) ?? '')})`,
        ),
        context(w.chart.stamp.join(' · ')),
      ];
    case 'COMMITMENTS':
      return [
        section(
          [
            `*${escapeMrkdwn(w.chart.title)}* (chart uploaded as ${escapeMrkdwn(attachmentName(w, index) ?? '')})`,
            escapeMrkdwn(commitmentsLine(w, money)),
            `*Ending within ${w.withinDays} days*`,
            ...expiringLines(w).map((l) => `• ${escapeMrkdwn(l)}`),
          ].join('\n'),
        ),
        context(w.chart.stamp.join(' · ')),
      ];
    case 'DASHBOARD_PDF':
      if (!w.rendered) return [context(`${w.title ?? 'Dashboard PDF'}: ${w.reason}`)];
      return [
        section(
          `*${escapeMrkdwn(w.title ?? `Dashboard ${w.dashboardName}`)}* (PDF uploaded as ${escapeMrkdwn(attachmentName(w, index) ?? '')})`,
        ),
      ];
  }
}

export function formatReport(
  report: Pick<Report, 'name' | 'description'>,
  runAt: string,
  widgets: WidgetData[],
  attachments: ReportAttachment[] = [],
): RenderedReport {
  const subject = oneLine(`${report.name} (${runAt.slice(0, 10)})`);
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#222;max-width:760px;margin:0 auto;padding:16px"><h1 style="font-size:22px;margin:0 0 4px">${escapeHtml(
    report.name,
  )}</h1>${report.description ? `<p style="color:#555;margin:0 0 12px">${escapeHtml(report.description)}</p>` : ''}${widgets
    .map((w, i) => widgetHtml(w, i))
    .join('<hr style="border:none;border-top:1px solid #ddd;margin:16px 0">')}</body></html>`;
  const text = [report.name, report.description, ...widgets.map((w, i) => widgetText(w, i))]
    .filter(Boolean)
    .join('\n\n');
  const slackBlocks = [
    { type: 'header', text: { type: 'plain_text', text: report.name.slice(0, 150) } },
    ...widgets.flatMap((w, i) => [...(i ? [{ type: 'divider' }] : []), ...widgetBlocks(w, i)]),
  ].slice(0, 50);
  return { subject, html, text, slackText: subject, slackBlocks, attachments };
}
