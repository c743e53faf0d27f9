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

export function Chart({ spec, height }: { spec: ChartSpec; height: number }) {
  if (spec.kind === 'table') return <Table spec={spec} />;
  return <Canvas option={spec.option} height={height} label={spec.title} />;
}

// biome-ignore lint/suspicious/noExplicitAny: an ECharts option is open-ended JSON
export type EChartsOption = Record<string, any>;

export function Canvas({ option, height, label }: { option: EChartsOption; height: number; label: string }) {
  const el = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!el.current) return;
    const chart = echarts.init(el.current, undefined, { renderer: 'canvas' });
    chart.setOption({
      ...option,
      // The builder sizes the legend for the 800 px PNG; in a page it wraps in the card's width.
      ...(option.legend ? { legend: { ...option.legend, width: '90%' } } : {}),
      tooltip: { trigger: option.xAxis ? 'axis' : 'item' },
    });
    const resize = () => chart.resize();
    const observer = new ResizeObserver(resize);
    observer.observe(el.current);
    return () => {
      observer.disconnect();
      chart.dispose();
    };
  }, [option]);
  return <div class="chart" role="img" aria-label={label} ref={el} style={{ height: `${height}px` }} />;
}

export function Table({ spec }: { spec: TableSpec }) {
  return (
    <div class="table-wrap">
      <p class="stamp">{spec.stamp.join(' · ')}</p>
      <table>
        <thead>
          <tr>
            {spec.columns.map((c, i) => (
              <th key={c} class={spec.numeric[i] ? 'num' : ''} scope="col">
                {c}
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
