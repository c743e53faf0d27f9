/** The explorer's answer (its chart and table) and the form that saves it as a dashboard widget. */
import { useMemo, useState } from 'preact/hooks';
import { api } from './api';
import { Chart } from './chart';
import { describe, useAsync } from './hooks';
import { accuracyNotes, overlayOf, previousSeries, withChange } from './overlays';
import {
  chartInput,
  type Dashboard,
  type ExplorerForm,
  type ExplorerResult,
  explorerRequest,
  isEmptyResult,
  labelQueries,
  newWidget,
  pageChart,
  publishBody,
} from './shape';
import { ErrorText } from './ui';

export function ExplorerResultView({ form, result }: { form: ExplorerForm; result: ExplorerResult }) {
  const request = useMemo(() => explorerRequest(form), [form]);
  const title = form.title ?? 'Explorer';
  const chart = useMemo(
    () => pageChart(result, request, { title, chartType: form.chartType }),
    [result, form.chartType, title],
  );
  const overlay = useMemo(() => overlayOf(result, request.queries), [result]);
  const notes = useMemo(() => accuracyNotes(result, request.queries, result.currency), [result]);
  const table = useMemo(() => {
    const t = pageChart(result, request, { title, chartType: 'TABLE' });
    const previous = previousSeries(result, request.queries);
    if (t.spec.kind !== 'table' || !previous) return t;
    const current = chartInput(labelQueries(result, request.queries), { title, chartType: 'TABLE' }).series;
    return { ...t, spec: withChange(t.spec, current, previous, t.format) };
  }, [result, title]);
  if (isEmptyResult(result))
    return (
      <p class="empty">
        No cost in {result.period.startDate} to {result.period.endDate}.
      </p>
    );
  return (
    <div class="result">
      {form.chartType !== 'TABLE' && (
        <Chart
          spec={chart.spec}
          format={chart.format}
          height={420}
          aggBy={result.period.aggBy}
          overlay={overlay}
        />
      )}
      {notes.length > 0 && (
        <section class="forecast-notes" aria-label="Forecast accuracy">
          <h2>How far to trust the forecast</h2>
          <ul>
            {notes.map((n) => (
              <li key={n}>{n}</li>
            ))}
          </ul>
        </section>
      )}
      <Chart spec={table.spec} format={table.format} aggBy={result.period.aggBy} />
      <SaveWidget form={form} />
    </div>
  );
}

function SaveWidget({ form }: { form: ExplorerForm }) {
  const list = useAsync(() => api.dashboards({}), []);
  const [target, setTarget] = useState('');
  const [newName, setNewName] = useState('');
  const [title, setTitle] = useState('');
  const [state, setState] = useState<{
    kind: 'idle' | 'busy' | 'done' | 'error';
    text?: string;
    id?: string;
  }>({
    kind: 'idle',
  });
  const save = async (e: Event) => {
    e.preventDefault();
    const widgetTitle = title.trim() || `Cost by ${form.groupBy.filter(Boolean).join(', ') || 'period'}`;
    setState({ kind: 'busy' });
    try {
      let saved: Dashboard;
      if (!target) {
        if (!newName.trim()) return setState({ kind: 'error', text: 'Name the new dashboard.' });
        saved = await api.create({
          name: newName.trim(),
          widgets: [newWidget([], widgetTitle, explorerRequest(form))],
        });
      } else {
        const d = await api.dashboard(target);
        saved = await api.publish(
          d.id,
          publishBody(d, newWidget(d.widgets, widgetTitle, explorerRequest(form))),
        );
      }
      setState({
        kind: 'done',
        text: `Saved to ${saved.name} (version ${saved.publishedVersion ?? saved.version}).`,
        id: saved.id,
      });
    } catch (err) {
      setState({ kind: 'error', text: describe(err) });
    }
  };
  return (
    <form class="save" onSubmit={save}>
      <h2>Save as a widget</h2>
      <label>
        Title <input value={title} onInput={(e) => setTitle((e.target as HTMLInputElement).value)} />
      </label>
      <label>
        Dashboard{' '}
        <select value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
          <option value="">New dashboard…</option>
          {list.status === 'ok' &&
            list.value.items.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
        </select>
      </label>
      {!target && (
        <label>
          Name <input value={newName} onInput={(e) => setNewName((e.target as HTMLInputElement).value)} />
        </label>
      )}
      <button type="submit" disabled={state.kind === 'busy'}>
        Save
      </button>
      {state.kind === 'done' && (
        <p class="ok" role="status">
          {state.text} <a href={`#/dashboards/${encodeURIComponent(state.id ?? '')}`}>Open it</a>
        </p>
      )}
      {state.kind === 'error' && <ErrorText message={state.text} />}
    </form>
  );
}
