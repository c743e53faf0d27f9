import { buildChartSpec } from '../../../charts/spec';
import type { ReportAttachment } from '../../../model/reports';
import type { WidgetData } from './widget-data';

/** ASCII, lower case, dashes: safe in a MIME filename and a content id. */
function slug(s: string): string {
  const out = s
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return out || 'untitled';
}

/**
 * The attachment file name of the widget at `index` (also its content id in the email), or null
 * for a widget that attaches nothing. Numbered by widget position, so names are unique.
 */
export function attachmentName(w: WidgetData, index: number): string | null {
  if (w.type === 'GRAPH_SNAPSHOT' && w.rendered) return `chart-${index + 1}-${slug(w.chart.title)}.png`;
  if (w.type === 'COMMITMENTS') return `commitments-${index + 1}-${slug(w.chart.title)}.png`;
  if (w.type === 'DASHBOARD_PDF' && w.rendered)
    return `dashboard-${index + 1}-${slug(w.title ?? w.dashboardName)}.pdf`;
  return null;
}

/** Renders the PNG of every GRAPH_SNAPSHOT and COMMITMENTS chart (inline) and the PDF of every DASHBOARD_PDF (attached). */
export async function renderAttachments(
  widgets: readonly WidgetData[],
  report: { name: string },
  runAt: string,
): Promise<ReportAttachment[]> {
  const out: ReportAttachment[] = [];
  // ECharts, resvg and pdfkit load on the first chart: a report without one never pays for them.
  const needs = widgets.some((w, i) => attachmentName(w, i) !== null);
  if (!needs) return out;
  const [{ chartPng }, { dashboardPdf }] = await Promise.all([import('./png'), import('./pdf')]);
  for (const [i, w] of widgets.entries()) {
    const filename = attachmentName(w, i);
    if (!filename) continue;
    if ((w.type === 'GRAPH_SNAPSHOT' && w.rendered) || w.type === 'COMMITMENTS')
      out.push({
        filename,
        contentType: 'image/png',
        content: await chartPng(buildChartSpec(w.chart)),
        inline: true,
      });
    else if (w.type === 'DASHBOARD_PDF' && w.rendered)
      out.push({
        filename,
        contentType: 'application/pdf',
        content: await dashboardPdf({
          dashboardName: w.title ?? w.dashboardName,
          reportName: report.name,
          runAt,
          charts: w.charts,
        }),
        inline: false,
      });
  }
  return out;
}
