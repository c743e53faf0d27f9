import { readFileSync } from 'node:fs';
import { initWasm, Resvg } from '@resvg/resvg-wasm';
import { BarChart, LineChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TitleComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { SVGRenderer } from 'echarts/renderers';
import type { ChartSpec } from '../../../charts/spec';
import { tableToSvg } from '../../../charts/table-svg';
import { FONT_FAMILY, fontBuffers, resvgWasmPath } from './assets';

echarts.use([BarChart, LineChart, GridComponent, LegendComponent, TitleComponent, SVGRenderer]);

/** Chart size in CSS pixels; the PNG is drawn at `SCALE`× for sharp text on high-DPI screens. */
export const CHART_WIDTH = 800;
export const CHART_HEIGHT = 420;
export const SCALE = 2;

let wasmReady: Promise<void> | undefined;
function ensureWasm(): Promise<void> {
  wasmReady ??= initWasm(readFileSync(resvgWasmPath())).catch((error: unknown) => {
    // A second initWasm in the same process (another copy of this module) is harmless.
    if (error instanceof Error && /already initialized/i.test(error.message)) return;
    wasmReady = undefined;
    throw error;
  });
  return wasmReady;
}

/** The chart as SVG: ECharts' server-side SVG renderer, or the table drawn by `tableToSvg`. */
export function chartSvg(spec: ChartSpec): { svg: string; width: number; height: number } {
  if (spec.kind === 'table') return tableToSvg(spec, CHART_WIDTH);
  const chart = echarts.init(null, null, {
    renderer: 'svg',
    ssr: true,
    width: CHART_WIDTH,
    height: CHART_HEIGHT,
  });
  try {
    chart.setOption(spec.option);
    return { svg: chart.renderToSVGString(), width: CHART_WIDTH, height: CHART_HEIGHT };
  } finally {
    chart.dispose();
  }
}

/** Rasterises an SVG with resvg (WebAssembly) and the shipped fonts only. */
export async function svgToPng(svg: string, scale = SCALE): Promise<Uint8Array> {
  await ensureWasm();
  const resvg = new Resvg(svg, {
    font: { fontBuffers: fontBuffers(), defaultFontFamily: FONT_FAMILY, loadSystemFonts: false },
    fitTo: { mode: 'zoom', value: scale },
    background: '#ffffff',
  });
  try {
    const image = resvg.render();
    try {
      return image.asPng();
    } finally {
      image.free();
    }
  } finally {
    resvg.free();
  }
}

export async function chartPng(spec: ChartSpec, scale = SCALE): Promise<Uint8Array> {
  return svgToPng(chartSvg(spec).svg, scale);
}
