/** The explorer page: its form (metric, grouping, period, step, chart, filters) and its run. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { ChartType } from '../../shared/charts/spec';
import { COST_METRIC_IDS, DATE_PRESETS } from '../../shared/enums';
import { explorerQueryString, parseExplorerQueryString } from '../../shared/links';
import { api, type DimensionEntry } from './api';
import { ExplorerResultView } from './explorer-result';
import { DimensionSelect, FilterRow } from './filters';
import { describe, type State, useAsync } from './hooks';
import {
  DEFAULT_EXPLORER_FORM,
  type ExplorerFilter,
  type ExplorerForm,
  type ExplorerResult,
  explorerRequest,
  formFromUrlState,
  urlStateOfForm,
} from './shape';
import { ErrorText, WordSelect } from './ui';
import { aggWords, chartWords, metricWords, presetWords } from './words';

const AGG = ['Day', 'Week', 'Month', 'Period'];
const CHARTS: ChartType[] = ['BAR', 'LINE', 'AREA', 'WATERFALL', 'TABLE'];

/**
 * The explorer. Its state round-trips through the address (`#/explorer?…`, shared/links.ts): a
 * link with a state opens that view and runs it; every run writes the view back, so the address
 * can be copied to share it.
 */
export function Explorer() {
  const dims = useAsync(() => api.dimensions(), []);
  const fromUrl = useMemo(() => {
    const q = location.hash.indexOf('?');
    return q < 0 ? null : parseExplorerQueryString(location.hash.slice(q + 1));
  }, []);
  const [form, setForm] = useState<ExplorerForm>(() =>
    fromUrl ? formFromUrlState(fromUrl) : DEFAULT_EXPLORER_FORM,
  );
  const [result, setResult] = useState<State<ExplorerResult> | null>(null);
  const set = (patch: Partial<ExplorerForm>) => setForm({ ...form, ...patch });
  // The latest run's answer wins (a Run while the opening view still loads).
  const latest = useRef(0);
  const run = async (e?: Event) => {
    e?.preventDefault();
    const mine = ++latest.current;
    history.replaceState(null, '', `#/explorer?${explorerQueryString(urlStateOfForm(form))}`);
    setResult({ status: 'loading' });
    let next: State<ExplorerResult>;
    try {
      next = { status: 'ok', value: await api.explore(explorerRequest(form)) };
    } catch (err) {
      next = { status: 'error', message: describe(err) };
    }
    if (mine === latest.current) setResult(next);
  };
  // The view shows its figures straight away: a link's, or the default (last 3 months by
  // service), whose state the address then shows.
  useEffect(() => {
    void run();
  }, []);
  const dimList = dims.status === 'ok' ? dims.value : [];
  const saved = Boolean(form.queries?.length);
  return (
    <section>
      <h1>{form.title ? `Explorer: ${form.title}` : 'Explorer'}</h1>
      {dims.status === 'error' && <p class="error">Dimensions: {dims.message}</p>}
      {form.queries?.length ? (
        <p class="note">
          Showing {form.title ? `the queries of ${form.title}` : 'saved queries'}:{' '}
          {form.queries.map((q) => (typeof q.alias === 'string' && q.alias) || q.name).join(', ')}.{' '}
          <button
            type="button"
            class="link"
            onClick={() => set({ queries: undefined, scopeId: undefined, title: undefined })}
          >
            Build your own query instead
          </button>
        </p>
      ) : null}
      <form class="explorer" onSubmit={run}>
        {/* Saved queries carry their own metric, grouping and filters: only period, step and chart apply. */}
        {!saved && <QueryFields form={form} set={set} dims={dimList} />}
        <PeriodFields form={form} set={set} />
        <AnalysisFields form={form} set={set} />
        {!saved && <FilterFields form={form} set={set} dims={dimList} />}
        <button type="submit">Run</button>
      </form>
      {result?.status === 'loading' && <p class="loading">Running…</p>}
      {result?.status === 'error' && <ErrorText message={result.message} />}
      {result?.status === 'ok' && <ExplorerResultView form={form} result={result.value} />}
    </section>
  );
}

interface FieldsProps {
  form: ExplorerForm;
  set: (patch: Partial<ExplorerForm>) => void;
}

/** The metric and the two group-by dimensions of the query the form builds. */
function QueryFields({ form, set, dims }: FieldsProps & { dims: DimensionEntry[] }) {
  return (
    <>
      <WordSelect
        label="Metric"
        value={form.metricId}
        codes={COST_METRIC_IDS}
        words={metricWords}
        onChange={(metricId) => set({ metricId })}
      />
      {[0, 1].map((i) => (
        <div class="field" key={i}>
          <label for={`group-by-${i}`}>Group by {i + 1}</label>
          <DimensionSelect
            id={`group-by-${i}`}
            dims={dims}
            value={form.groupBy[i] ?? ''}
            onChange={(v) => set({ groupBy: form.groupBy.map((g, j) => (j === i ? v : g)) })}
          />
        </div>
      ))}
    </>
  );
}

/** The period (a preset, or custom dates when a link gave them), the step and the chart type. */
function PeriodFields({ form, set }: FieldsProps) {
  return (
    <>
      <WordSelect
        label="Period"
        value={form.datePreset}
        codes={DATE_PRESETS}
        words={presetWords}
        onChange={(datePreset) => set({ datePreset })}
        last={form.startDate && form.endDate && <option value="">Custom dates</option>}
      />
      {!form.datePreset && form.startDate && form.endDate && (
        <>
          <label>
            From{' '}
            <input
              type="date"
              value={form.startDate}
              onChange={(e) => set({ startDate: (e.target as HTMLInputElement).value })}
            />
          </label>
          <label>
            To{' '}
            <input
              type="date"
              value={form.endDate}
              onChange={(e) => set({ endDate: (e.target as HTMLInputElement).value })}
            />
          </label>
        </>
      )}
      <WordSelect
        label="By"
        value={form.aggBy}
        codes={AGG}
        words={aggWords}
        onChange={(aggBy) => set({ aggBy })}
      />
      <WordSelect
        label="Chart"
        value={form.chartType}
        codes={CHARTS}
        words={chartWords}
        onChange={(c) => set({ chartType: c as ChartType })}
      />
    </>
  );
}

/** Forecast horizons offered (days after the data's last complete day). */
const FORECAST_DAYS = ['0', '7', '30', '90'];
const forecastWords = (days: string) => (days === '0' ? 'None' : `Next ${days} days`);

/** The comparison with the previous period and the forecast. */
function AnalysisFields({ form, set }: FieldsProps) {
  const days = String(form.forecastDays);
  return (
    <>
      <label class="check">
        <input
          type="checkbox"
          checked={form.compare}
          onChange={(e) => set({ compare: (e.target as HTMLInputElement).checked })}
        />{' '}
        Compare to previous period
      </label>
      <WordSelect
        label="Forecast"
        value={days}
        codes={FORECAST_DAYS.includes(days) ? FORECAST_DAYS : [...FORECAST_DAYS, days]}
        words={forecastWords}
        onChange={(d) => set({ forecastDays: Number(d) })}
      />
    </>
  );
}

/** The filters of the query the form builds: one row each, and "Add a filter". */
function FilterFields({ form, set, dims }: FieldsProps & { dims: DimensionEntry[] }) {
  const setFilter = (i: number, f: ExplorerFilter) =>
    set({ filters: form.filters.map((x, j) => (j === i ? f : x)) });
  return (
    <fieldset class="filter-list">
      <legend>Filters</legend>
      {form.filters.map((f, i) => (
        <FilterRow
          key={i}
          dims={dims}
          filter={f}
          onChange={(nf) => setFilter(i, nf)}
          onRemove={() => set({ filters: form.filters.filter((_, j) => j !== i) })}
        />
      ))}
      <button
        type="button"
        class="link"
        onClick={() => set({ filters: [...form.filters, { field: '', operator: 'in', values: [] }] })}
      >
        Add a filter
      </button>
    </fieldset>
  );
}
