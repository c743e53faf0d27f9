/** Draws one chart spec: an ECharts canvas (BAR, LINE, AREA, WATERFALL) or an HTML table (TABLE). */
import { BarChart, LineChart } from 'echarts/charts';
import {
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'preact/hooks';
import type { ChartSpec, TableSpec } from '../../shared/charts/spec';
import { type FigureFormat, pageOption, titleLines } from './chart-option';
import { type Overlay, withOverlay } from './overlays';
import { monthLabel } from './words';

echarts.use([
  BarChart,
  LineChart,
  GridComponent,
  LegendComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
  CanvasRenderer,
]);

/**
 * A chart of the builder with its title as a heading and its total and stamp as text (`format`:
 * how the tooltip says a figure; `aggBy`: `Month` labels the buckets "May 2026").
 */
export function Chart(p: {
  spec: ChartSpec;
  height?: number;
  format: FigureFormat;
  aggBy?: string;
  /** The explorer's previous period and forecast, drawn over the chart. */
  overlay?: Overlay | null;
}) {
  const { spec } = p;
  if (spec.kind === 'table') return <Table spec={spec} aggBy={p.aggBy} />;
  const { title, lines } = titleLines(spec);
  return (
    <figure class="chart-card">
      <figcaption>
        <h2 class="chart-title">{title}</h2>
        {lines.map((l) => (
          <p key={l} class="stamp">
            {l}
          </p>
        ))}
      </figcaption>
      <Canvas
        option={spec.option}
        height={p.height}
        label={title}
        fit={(width) =>
          pageOption(
            p.overlay ? { ...spec, option: withOverlay(spec.option, p.overlay) } : spec,
            p.format,
            width,
            p.aggBy,
          )
        }
      />
    </figure>
  );
}

// biome-ignore lint/suspicious/noExplicitAny: an ECharts option is open-ended JSON
export type EChartsOption = Record<string, any>;

/**
 * An ECharts canvas `height` px high (none: as high as the style sheet makes it); `fit` gives the
 * option for the box's width (drawn again when it changes).
 */
export function Canvas(p: {
  option: EChartsOption;
  height?: number | undefined;
  label: string;
  fit?: (width: number) => EChartsOption;
}) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const box = el.current;
    if (!box) return;
    const chart = echarts.init(box, undefined, { renderer: 'canvas' });
    const draw = () =>
      chart.setOption(
        p.fit?.(box.clientWidth) ?? {
          ...p.option,
          ...(p.option.legend ? { legend: { ...p.option.legend, width: '90%' } } : {}),
          tooltip: { trigger: p.option.xAxis ? 'axis' : 'item', ...p.option.tooltip },
        },
        true,
      );
    draw();
    chart.on('finished', () => markLayout(chart, box));
    let width = box.clientWidth;
    const observer = new ResizeObserver(() => {
      if (p.fit && box.clientWidth !== width) {
        width = box.clientWidth;
        draw();
      }
      chart.resize();
    });
    observer.observe(box);
    return () => {
      observer.disconnect();
      chart.dispose();
    };
  }, [p.option]);
  return (
    <div
      class="chart"
      role="img"
      aria-label={p.label}
      ref={el}
      style={p.height ? { height: `${p.height}px` } : undefined}
    />
  );
}

/**
 * Writes where the plot and the legend were drawn (px from the canvas' top left, `x,y,w,h`) on the
 * chart's element as `data-plot` and `data-legend`: the browser tests check that the legend never
 * covers the plot at any width. Reads ECharts' laid-out models (not part of its typed API: a
 * version without them leaves the attributes out, and the test says so).
 */
function markLayout(chart: echarts.ECharts, box: HTMLElement): void {
  type Rect = { x: number; y: number; width: number; height: number };
  type View = { group?: { x: number; y: number; getBoundingRect(): Rect } };
  const c = chart as unknown as {
    getModel(): { getComponent(kind: string): { coordinateSystem?: { getRect(): Rect } } | undefined };
    getViewOfComponentModel(model: unknown): View | undefined;
  };
  const text = (r: Rect) => [r.x, r.y, r.width, r.height].map((n) => Math.round(n)).join(',');
  try {
    const plot = c.getModel().getComponent('grid')?.coordinateSystem?.getRect();
    if (plot) box.dataset.plot = text(plot);
    const legendModel = c.getModel().getComponent('legend');
    const group = legendModel ? c.getViewOfComponentModel(legendModel)?.group : undefined;
    const r = group?.getBoundingRect();
    if (group && r && r.width > 0) box.dataset.legend = text({ ...r, x: r.x + group.x, y: r.y + group.y });
    else delete box.dataset.legend;
  } catch {
    // Another ECharts: no layout marks.
  }
}

/** A table spec as an HTML table (`aggBy` `Month`: bucket columns as "May 2026"). */
export function Table({ spec, aggBy }: { spec: TableSpec; aggBy?: string | undefined }) {
  return (
    <div class="table-wrap">
      <p class="stamp">{spec.stamp.join(' · ')}</p>
      <table class="figures">
        <thead>
          <tr>
            {spec.columns.map((c, i) => (
              <th key={c} class={spec.numeric[i] ? 'num' : ''} scope="col">
                {aggBy === 'Month' ? monthLabel(c) : c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {spec.rows.map((r) => (
            <tr key={r[0]}>
              {r.map((cell, i) => (
                <td key={i} class={spec.numeric[i] ? 'num' : ''}>
                  {cell}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
        {spec.totalRow && (
          <tfoot>
            <tr>
              {spec.totalRow.map((cell, i) => (
                <td key={i} class={spec.numeric[i] ? 'num' : ''}>
                  {cell}
                </td>
              ))}
            </tr>
          </tfoot>
        )}
      </table>
    </div>
  );
}
