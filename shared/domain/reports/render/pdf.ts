import PDFDocument from 'pdfkit';
import { buildChartSpec, shapeSeries, type TableSpec, totalLine } from '../../../charts/spec';
import { fontPath } from './assets';
import { chartPng } from './png';
import type { ChartData } from './widget-data';

/**
 * A dashboard as a PDF (pdfkit): a cover block (dashboard, report, run time), then each widget in
 * reading order, its title and stamp (period, data cut-off, rates), and either its chart as the
 * same PNG a GRAPH_SNAPSHOT sends or, for a TABLE widget, a PDF table (selectable text). Text is
 * set in the shipped DejaVu Sans (embedded, subset by pdfkit), so every currency sign prints.
 */
export interface DashboardPdfInput {
  dashboardName: string;
  reportName: string;
  /** The run's scheduled time (ISO instant). */
  runAt: string;
  charts: ChartData[];
}

const PAGE = { size: 'A4', layout: 'landscape' as const, margin: 36 };

function collect(doc: PDFKit.PDFDocument): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
  });
}

function drawTable(doc: PDFKit.PDFDocument, t: TableSpec) {
  const rows = [t.columns, ...t.rows, ...(t.totalRow ? [t.totalRow] : [])];
  const last = rows.length - 1;
  const size = 9;
  doc.fontSize(size);
  // Figure columns as wide as their longest cell (DejaVu Sans averages 0.62 em), the label column the rest.
  const widths = t.columns.map((_, c) =>
    Math.ceil(Math.max(...rows.map((r) => (r[c] ?? '').length)) * size * 0.62 + 10),
  );
  doc.table({
    columnStyles: t.columns.map((_, i) => (i === 0 ? '*' : widths[i]!)),
    rowStyles: (i: number) =>
      i === 0 || (t.totalRow && i === last)
        ? { font: { src: fontPath('bold') }, backgroundColor: i === 0 ? '#eeeeee' : undefined }
        : {},
    defaultStyle: { padding: 3, border: 0.5, borderColor: '#bbbbbb' },
    data: rows.map((r) =>
      r.map((cell, c) => ({ text: cell, align: { x: t.numeric[c] ? 'right' : 'left', y: 'center' } })),
    ),
  } as PDFKit.Mixins.TableOptionsWithData);
}

export async function dashboardPdf(input: DashboardPdfInput): Promise<Uint8Array> {
  const regular = fontPath('regular');
  const bold = fontPath('bold');
  const doc = new PDFDocument({
    ...PAGE,
    font: regular,
    bufferPages: true,
    info: {
      Title: `${input.dashboardName} (${input.runAt.slice(0, 10)})`,
      Author: input.reportName,
      Subject: `Dashboard ${input.dashboardName} for report ${input.reportName}, run ${input.runAt}`,
      CreationDate: new Date(input.runAt),
    },
  });
  const done = collect(doc);
  const width = doc.page.width - 2 * PAGE.margin;

  doc.font(bold).fontSize(18).text(input.dashboardName);
  doc.font(regular).fontSize(10).fillColor('#555').text(`Report "${input.reportName}", run ${input.runAt}`);
  doc.fillColor('#000').moveDown(0.5);
  if (!input.charts.length) doc.fontSize(11).text('This dashboard has no widgets.');

  for (const [i, c] of input.charts.entries()) {
    const spec = buildChartSpec(c.chart);
    // Each chart starts a page (the first after the cover lines): a chart is 420 px high.
    if (i > 0) doc.addPage();
    doc.font(bold).fontSize(13).fillColor('#000').text(c.chart.title);
    doc.font(regular).fontSize(9).fillColor('#555');
    if (spec.kind === 'echarts' && c.chart.displayOptions?.showTotal !== false)
      doc.text(
        totalLine(
          shapeSeries(c.chart.series, c.chart.displayOptions),
          c.chart.currency,
          c.chart.displayOptions?.precision ?? 2,
          c.chart.unit,
        ),
      );
    for (const line of c.chart.stamp) doc.text(line);
    doc.fillColor('#000').moveDown(0.4);
    if (spec.kind === 'table') drawTable(doc, spec);
    else {
      // The page states title, total and stamp as text: the image carries the plot only.
      const png = await chartPng(
        buildChartSpec({
          ...c.chart,
          title: '',
          stamp: [],
          displayOptions: { ...c.chart.displayOptions, showTotal: false },
        }),
      );
      const bottom = doc.page.height - PAGE.margin - 16;
      const h = Math.min((width * 420) / 800, bottom - doc.y);
      doc.image(Buffer.from(png), PAGE.margin, doc.y, { fit: [width, h], align: 'center' });
    }
  }

  // Footer on every page: the run and the page number.
  const range = doc.bufferedPageRange();
  for (let p = range.start; p < range.start + range.count; p++) {
    doc.switchToPage(p);
    const y = doc.page.height - PAGE.margin + 8;
    const savedBottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font(regular)
      .fontSize(8)
      .fillColor('#777')
      .text(`${input.dashboardName} · run ${input.runAt} · page ${p + 1} of ${range.count}`, PAGE.margin, y, {
        width,
        align: 'right',
        lineBreak: false,
      });
    doc.page.margins.bottom = savedBottom;
  }
  doc.end();
  return done;
}
