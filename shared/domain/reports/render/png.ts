import type { ChartSpec } from '../../../charts/spec';

/**
 * The chart-to-PNG seam: ECharts, zrender, resvg (WebAssembly) and the fonts (`./rasterise`, about
 * 600 KB minified) load on the first chart drawn, not when a function imports this module, so the
 * alert worker and the sweep that reach it through the alert and budget renderers start light
 * (docs/architecture.md, bundling).
 */
export async function chartPng(spec: ChartSpec, scale?: number): Promise<Uint8Array> {
  const { chartPng: draw } = await import('./rasterise');
  return draw(spec, scale);
}
