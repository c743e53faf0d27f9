import type { TableSpec } from './spec';

/**
 * A TABLE spec drawn as SVG (title, stamp lines, header, rows, bold total row), so a table
 * snapshot rasterises exactly like a chart. Column widths come from the longest cell at an
 * average DejaVu Sans advance of 0.62 em, which over-estimates digits and Latin text slightly.
 */
const FONT = 'DejaVu Sans';
const EM = 0.62;

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function tableToSvg(t: TableSpec, minWidth = 800): { svg: string; width: number; height: number } {
  const size = 12;
  const pad = 8;
  const rowH = 22;
  const all = [t.columns, ...t.rows, ...(t.totalRow ? [t.totalRow] : [])];
  const widths = t.columns.map((_, c) =>
    Math.ceil(Math.max(...all.map((r) => (r[c] ?? '').length)) * size * EM + 2 * pad),
  );
  const tableW = widths.reduce((a, w) => a + w, 0);
  const stampW = Math.max(t.title.length * 16 * EM, ...t.stamp.map((s) => s.length * 11 * EM));
  const width = Math.ceil(Math.max(minWidth, tableW + 32, stampW + 32));
  const top = 36 + 15 * t.stamp.length + 12;
  const height = top + rowH * all.length + 16;
  const parts: string[] = [
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="16" y="26" font-family="${FONT}" font-size="16" font-weight="bold" fill="#222">${esc(t.title)}</text>`,
    ...t.stamp.map(
      (s, i) =>
        `<text x="16" y="${46 + 15 * i}" font-family="${FONT}" font-size="11" fill="#555">${esc(s)}</text>`,
    ),
  ];
  all.forEach((row, r) => {
    const y = top + r * rowH;
    const header = r === 0;
    const total = t.totalRow !== null && r === all.length - 1;
    if (!header && !total && r % 2 === 0)
      parts.push(`<rect x="16" y="${y}" width="${tableW}" height="${rowH}" fill="#f6f8fa"/>`);
    let x = 16;
    row.forEach((cell, c) => {
      const w = widths[c] ?? 0;
      const right = t.numeric[c] === true;
      const tx = right ? x + w - pad : x + pad;
      parts.push(
        `<text x="${tx}" y="${y + 15}" font-family="${FONT}" font-size="${size}"${
          header || total ? ' font-weight="bold"' : ''
        } fill="#222"${right ? ' text-anchor="end"' : ''}>${esc(cell)}</text>`,
      );
      x += w;
    });
    if (header || total)
      parts.push(
        `<line x1="16" x2="${16 + tableW}" y1="${header ? y + rowH : y}" y2="${header ? y + rowH : y}" stroke="#999" stroke-width="1"/>`,
      );
  });
  return {
    svg: `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${parts.join('')}</svg>`,
    width,
    height,
  };
}
