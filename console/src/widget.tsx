/** One widget of a dashboard: its data loaded in turn (the request queue), drawn when in view. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api } from './api';
import { Chart } from './chart';
import { useAsync } from './hooks';
import { RequestQueue, WIDGET_CONCURRENCY } from './request-queue';
import {
  type Dashboard,
  dashboardConditions,
  type ExplorerResult,
  gridArea,
  isEmptyResult,
  type Widget,
  widgetChart,
  withPreset,
} from './shape';
import { ErrorText } from './ui';

/** Widget-data requests of the dashboard page (see `WIDGET_CONCURRENCY`). */
const widgetQueue = new RequestQueue(WIDGET_CONCURRENCY);

/** True once the element has come within 200 px of the viewport (and stays true). */
function useSeen(el: { current: Element | null }): boolean {
  const [seen, setSeen] = useState(false);
  useEffect(() => {
    if (seen || !el.current) return;
    if (typeof IntersectionObserver === 'undefined') return setSeen(true);
    const io = new IntersectionObserver((es) => es.some((e) => e.isIntersecting) && setSeen(true), {
      rootMargin: '200px',
    });
    io.observe(el.current);
    return () => io.disconnect();
  }, [seen]);
  return seen;
}

export function WidgetCard(p: { dashboard: Dashboard; widget: Widget; preset: string; rank: number }) {
  const { dashboard, widget, preset } = p;
  const el = useRef<HTMLElement>(null);
  const seen = useSeen(el);
  const task = `${dashboard.id}/${widget.key}/${preset}`;
  const data = useAsync(() => {
    const load = () =>
      preset
        ? api.explore(
            withPreset(widget.source.request, preset),
            dashboardConditions(dashboard.conditions),
            dashboard.currency,
          )
        : api.widgetData(dashboard.id, widget.key);
    return widgetQueue.run(task, p.rank, load, seen);
  }, [dashboard.id, widget.key, preset]);
  useEffect(() => {
    if (seen) widgetQueue.promote(task);
  }, [seen, task]);
  useEffect(() => () => widgetQueue.cancel(task), [task]);
  const title = widget.title || widget.key;
  return (
    <article
      ref={el}
      class="widget"
      style={gridArea(widget)}
      aria-label={title}
      aria-busy={data.status === 'loading' || !seen}
      data-state={data.status}
    >
      {data.status === 'loading' && <p class="loading">Loading {title}…</p>}
      {data.status === 'error' && <ErrorText message={`${title}: ${data.message}`} />}
      {/* Charts are drawn when they come into view (ECharts' work stays off the first paint). */}
      {data.status === 'ok' && !seen && <p class="loading">{title}</p>}
      {data.status === 'ok' && seen && (
        <WidgetBody widget={widget} result={data.value} currency={dashboard.currency} />
      )}
    </article>
  );
}

/** The widget's chart or table under its title; the plot fills the card (style.css, `.widget`). */
function WidgetBody(p: { widget: Widget; result: ExplorerResult; currency: string | null }) {
  const chart = useMemo(() => widgetChart(p.widget, p.result, p.currency), [p.widget, p.result, p.currency]);
  if (isEmptyResult(p.result))
    return (
      <div class="empty">
        <h2>{p.widget.title || p.widget.key}</h2>
        <p>
          No cost in {p.result.period.startDate} to {p.result.period.endDate}.
        </p>
      </div>
    );
  return (
    <>
      {chart.spec.kind === 'table' && <h2>{chart.spec.title}</h2>}
      <Chart spec={chart.spec} format={chart.format} aggBy={p.result.period.aggBy} />
    </>
  );
}
