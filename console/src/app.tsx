/** The console's pages: sign in, dashboards (list and page), explorer. Hash routes, no server routing. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { buildChartSpec, type ChartType } from '../../shared/charts/spec';
import { COST_METRIC_IDS, DATE_PRESETS } from '../../shared/enums';
import { explorerQueryString, parseExplorerQueryString } from '../../shared/links';
import { AlertList, AlertPage } from './alerts';
import { ApiError, api, credential, type DimensionEntry, loadConfig, onCredentialRefused } from './api';
import { Chart } from './chart';
import { describe, type State, useAsync } from './hooks';
import { begin, type Callback, complete, providerName } from './oidc';
import { RequestQueue, WIDGET_CONCURRENCY } from './queue';
import { ReportList, ReportPage } from './reports';
import {
  candidateRows,
  chartInput,
  type Dashboard,
  DEFAULT_EXPLORER_FORM,
  dashboardConditions,
  type ExplorerFilter,
  type ExplorerForm,
  type ExplorerResult,
  explorerRequest,
  formFromUrlState,
  gridArea,
  isEmptyResult,
  LIST_OPERATORS,
  labelPublishBody,
  NO_VALUE_OPERATORS,
  newWidget,
  publishBody,
  readingOrder,
  urlStateOfForm,
  type Widget,
  widgetSpec,
  withPreset,
} from './shape';
import { ErrorText, Loaded } from './ui';

const ROW_PX = 90;

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/dashboards');
  useEffect(() => {
    const f = () => setHash(location.hash || '#/dashboards');
    addEventListener('hashchange', f);
    return () => removeEventListener('hashchange', f);
  }, []);
  return hash;
}

/**
 * After a route change (not the first page), focus moves to the new page's heading once it is drawn
 * (pages load first), so a keyboard or screen-reader user starts at the page, not the old link.
 */
function useFocusOnRouteChange(hash: string, signedIn: boolean): void {
  const first = useRef(true);
  useEffect(() => {
    if (!signedIn) return;
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById('main');
    if (!main) return;
    const focusHeading = () => {
      const h1 = main.querySelector('h1');
      if (!h1) return false;
      h1.tabIndex = -1;
      h1.focus();
      return true;
    };
    if (focusHeading()) return;
    const mo = new MutationObserver(() => focusHeading() && stop());
    const t = setTimeout(() => stop(), 15_000);
    const stop = () => {
      mo.disconnect();
      clearTimeout(t);
    };
    mo.observe(main, { childList: true, subtree: true });
    return stop;
  }, [hash, signedIn]);
}

/** `callback`: the identity provider's answer, already taken out of the address bar (main.tsx). */
export function App({ callback = { kind: 'none' } }: { callback?: Callback }) {
  const [signedIn, setSignedIn] = useState(() => credential.get() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(
    () =>
      onCredentialRefused(() => {
        setSignedIn(false);
        setNotice('Your credential was refused (expired or revoked): sign in again.');
      }),
    [],
  );
  const hash = useHash();
  useFocusOnRouteChange(hash, signedIn);
  if (!signedIn)
    return (
      <SignIn
        notice={notice}
        callback={callback}
        onSignedIn={() => {
          setNotice(null);
          setSignedIn(true);
        }}
      />
    );
  const dash = /^#\/dashboards\/([^/]+)$/.exec(hash);
  const alert = /^#\/alerts\/([^/]+)$/.exec(hash);
  const report = /^#\/reports\/([^/]+)$/.exec(hash);
  return (
    <div class="app">
      {/* A button, not `href="#main"`: the hash is the route. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <strong class="brand">FinOps console</strong>
        <nav aria-label="Main">
          <a href="#/dashboards" aria-current={hash.startsWith('#/dashboards') ? 'page' : undefined}>
            Dashboards
          </a>
          <a href="#/explorer" aria-current={isExplorer(hash) ? 'page' : undefined}>
            Explorer
          </a>
          <a href="#/dimensions" aria-current={hash === '#/dimensions' ? 'page' : undefined}>
            Dimensions
          </a>
          <a href="#/alerts" aria-current={hash.startsWith('#/alerts') ? 'page' : undefined}>
            Alerts
          </a>
          <a href="#/reports" aria-current={hash.startsWith('#/reports') ? 'page' : undefined}>
            Reports
          </a>
        </nav>
        <button
          type="button"
          class="link"
          onClick={() => {
            credential.clear();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {dash ? (
          <DashboardPage id={decodeURIComponent(dash[1]!)} />
        ) : isExplorer(hash) ? (
          // Keyed by the link followed: a new link opens its own view (the page's own runs only
          // replace the address, which fires no hashchange).
          <Explorer key={hash} />
        ) : hash === '#/dimensions' ? (
          <Dimensions />
        ) : alert ? (
          <AlertPage key={alert[1]} id={decodeURIComponent(alert[1]!)} />
        ) : hash === '#/alerts' ? (
          <AlertList />
        ) : report ? (
          <ReportPage key={report[1]} id={decodeURIComponent(report[1]!)} />
        ) : hash === '#/reports' ? (
          <ReportList />
        ) : (
          <DashboardList />
        )}
      </main>
    </div>
  );
}

function SignIn({
  notice,
  callback,
  onSignedIn,
}: {
  notice: string | null;
  callback: Callback;
  onSignedIn: () => void;
}) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const config = useAsync(() => loadConfig(), []);
  const oidc = config.status === 'ok' ? config.value.oidc : undefined;
  /** Checks a credential with the API, then keeps it in this tab's session storage only. */
  const keep = async (obtain: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    try {
      const token = await obtain();
      await api.verify(token);
      credential.set(token);
      onSignedIn();
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'This credential was refused.'
          : err instanceof ApiError
            ? describe(err)
            : `Sign-in failed: ${(err as Error)?.message ?? err}`,
      );
    } finally {
      setBusy(false);
    }
  };
  // Back from the identity provider: the code is exchanged once (it is good once).
  const completing = useRef(false);
  useEffect(() => {
    if (callback.kind === 'none' || completing.current || config.status === 'loading') return;
    completing.current = true;
    if (!oidc) return setError('An identity provider answered, but none is configured.');
    void keep(() => complete(oidc, callback));
  }, [config.status]);
  const leave = async () => {
    if (!oidc) return;
    setBusy(true);
    setError(null);
    try {
      await begin(oidc);
    } catch (err) {
      setBusy(false);
      setError(`Could not reach the identity provider: ${(err as Error)?.message ?? err}`);
    }
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const token = value.trim().replace(/^Bearer\s+/i, '');
    if (!token) return setError('Paste an API key or a JWT.');
    await keep(async () => token);
  };
  return (
    <main class="signin">
      <div class="signin-box">
        <h1>Sign in</h1>
        {notice && <p class="notice">{notice}</p>}
        {oidc && (
          <section class="sign-in-idp" aria-label="Identity provider">
            <button type="button" class="idp" disabled={busy} onClick={leave}>
              Sign in with {providerName(oidc)}
            </button>
            <p class="hint">Your organisation's sign-in page; the session stays in this tab only.</p>
          </section>
        )}
        {config.status === 'error' && <p class="error">{config.message}</p>}
        <form onSubmit={submit}>
          <label for="credential">API key or JWT</label>
          <input
            id="credential"
            type="password"
            autocomplete="off"
            value={value}
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
            placeholder="ak_… or eyJ…"
          />
          <p class="hint">
            Locally, <code>npm start</code> prints API keys; <code>npm run token -- --user …</code> prints a
            JWT. The credential stays in this tab's session storage.
          </p>
          {error && <ErrorText message={error} />}
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Sign in'}
          </button>
        </form>
      </div>
    </main>
  );
}

function DashboardList() {
  const [type, setType] = useState('');
  const [teamId, setTeamId] = useState('');
  const list = useAsync(() => api.dashboards({ type, teamId: teamId.trim() }), [type, teamId]);
  return (
    <section>
      <h1>Dashboards</h1>
      <div class="filters">
        <label>
          Type{' '}
          <select value={type} onChange={(e) => setType((e.target as HTMLSelectElement).value)}>
            <option value="">All</option>
            <option value="PUBLIC">Public</option>
            <option value="PRIVATE">Private</option>
            <option value="TEMPLATE">Template</option>
          </select>
        </label>
        <label>
          Team id{' '}
          <input
            value={teamId}
            onChange={(e) => setTeamId((e.target as HTMLInputElement).value)}
            placeholder="team_…"
          />
        </label>
      </div>
      <Loaded
        state={list}
        loading="Loading dashboards…"
        empty={
          <>
            No dashboards yet. Build a query in the <a href="#/explorer">explorer</a> and save it to a new
            dashboard.
          </>
        }
      >
        {(items) => (
          <ul class="dash-list">
            {items.map((d) => (
              <li key={d.id}>
                <a href={`#/dashboards/${encodeURIComponent(d.id)}`}>{d.name}</a>
                <span class="meta">
                  {d.type} · {d.widgetCount ?? 0} widgets{d.teamId ? ` · ${d.teamId}` : ''} · updated{' '}
                  {d.updatedAt?.slice(0, 10)}
                </span>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}

function DashboardPage({ id }: { id: string }) {
  const dash = useAsync(() => api.dashboard(id), [id]);
  const [preset, setPreset] = useState('');
  const [showVersions, setShowVersions] = useState(false);
  if (dash.status === 'loading') return <p class="loading">Loading dashboard…</p>;
  if (dash.status === 'error') return <ErrorText message={dash.message} />;
  const d = dash.value;
  return (
    <section>
      <h1>{d.name}</h1>
      {d.description && <p>{d.description}</p>}
      <div class="filters">
        <label>
          Period{' '}
          <select value={preset} onChange={(e) => setPreset((e.target as HTMLSelectElement).value)}>
            <option value="">As saved</option>
            {DATE_PRESETS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="link" onClick={() => setShowVersions(!showVersions)}>
          {showVersions ? 'Hide versions' : `Versions (v${d.publishedVersion ?? d.version})`}
        </button>
      </div>
      {showVersions && <Versions id={d.id} />}
      {d.widgets.length === 0 && <p class="empty">This dashboard has no widgets.</p>}
      <div class="grid">
        {readingOrder(d.widgets).map((w, i) => (
          <WidgetCard key={w.key} dashboard={d} widget={w} preset={preset} rank={i} />
        ))}
      </div>
    </section>
  );
}

function Versions({ id }: { id: string }) {
  const v = useAsync(() => api.versions(id), [id]);
  if (v.status === 'loading') return <p class="loading">Loading versions…</p>;
  if (v.status === 'error') return <p class="error">{v.message}</p>;
  return (
    <ol class="versions">
      {v.value.items.map((x) => (
        <li key={x.version}>
          v{x.version} · {x.createdAt.slice(0, 16).replace('T', ' ')} · {x.createdById} · {x.widgetCount}{' '}
          widgets
        </li>
      ))}
    </ol>
  );
}

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

function WidgetCard(p: { dashboard: Dashboard; widget: Widget; preset: string; rank: number }) {
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
  const height = Math.max(2, widget.h) * ROW_PX - 16;
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
        <WidgetBody widget={widget} result={data.value} height={height} currency={dashboard.currency} />
      )}
    </article>
  );
}

function WidgetBody(p: { widget: Widget; result: ExplorerResult; height: number; currency: string | null }) {
  const spec = useMemo(() => widgetSpec(p.widget, p.result, p.currency), [p.widget, p.result, p.currency]);
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
      {spec.kind === 'table' && <h2>{spec.title}</h2>}
      <Chart spec={spec} height={p.height} />
    </>
  );
}

const AGG = ['Day', 'Week', 'Month', 'Period'];
const CHARTS: ChartType[] = ['BAR', 'LINE', 'AREA', 'WATERFALL', 'TABLE'];

const isExplorer = (hash: string) => hash === '#/explorer' || hash.startsWith('#/explorer?');

/**
 * The explorer. Its state round-trips through the address (`#/explorer?…`, shared/links.ts): a
 * link with a state opens that view and runs it; every run writes the view back, so the address
 * can be copied to share it.
 */
function Explorer() {
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
  const run = async (e?: Event) => {
    e?.preventDefault();
    history.replaceState(null, '', `#/explorer?${explorerQueryString(urlStateOfForm(form))}`);
    setResult({ status: 'loading' });
    try {
      setResult({ status: 'ok', value: await api.explore(explorerRequest(form)) });
    } catch (err) {
      setResult({ status: 'error', message: describe(err) });
    }
  };
  // A link with a state shows its figures straight away.
  useEffect(() => {
    if (fromUrl) void run();
  }, []);
  const dimList = dims.status === 'ok' ? dims.value : [];
  const saved = Boolean(form.queries?.length);
  const setFilter = (i: number, f: ExplorerFilter) =>
    set({ filters: form.filters.map((x, j) => (j === i ? f : x)) });
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
        {!saved && (
          <>
            <label>
              Metric{' '}
              <select
                value={form.metricId}
                onChange={(e) => set({ metricId: (e.target as HTMLSelectElement).value })}
              >
                {COST_METRIC_IDS.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </label>
            {[0, 1].map((i) => (
              <div class="field" key={i}>
                <label for={`group-by-${i}`}>Group by {i + 1}</label>
                <DimensionSelect
                  id={`group-by-${i}`}
                  dims={dimList}
                  value={form.groupBy[i] ?? ''}
                  onChange={(v) => set({ groupBy: form.groupBy.map((g, j) => (j === i ? v : g)) })}
                />
              </div>
            ))}
          </>
        )}
        <label>
          Period{' '}
          <select
            value={form.datePreset}
            onChange={(e) => set({ datePreset: (e.target as HTMLSelectElement).value })}
          >
            {DATE_PRESETS.map((p) => (
              <option key={p}>{p}</option>
            ))}
            {form.startDate && form.endDate && <option value="">Custom dates</option>}
          </select>
        </label>
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
        <label>
          By{' '}
          <select value={form.aggBy} onChange={(e) => set({ aggBy: (e.target as HTMLSelectElement).value })}>
            {AGG.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </label>
        <label>
          Chart{' '}
          <select
            value={form.chartType}
            onChange={(e) => set({ chartType: (e.target as HTMLSelectElement).value as ChartType })}
          >
            {CHARTS.map((c) => (
              <option key={c}>{c}</option>
            ))}
          </select>
        </label>
        {!saved && (
          <fieldset class="filter-list">
            <legend>Filters</legend>
            {form.filters.map((f, i) => (
              <FilterRow
                key={i}
                dims={dimList}
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
        )}
        <button type="submit">Run</button>
      </form>
      {result?.status === 'loading' && <p class="loading">Running…</p>}
      {result?.status === 'error' && <ErrorText message={result.message} />}
      {result?.status === 'ok' && <ExplorerResultView form={form} result={result.value} />}
    </section>
  );
}

function DimensionSelect(p: {
  id?: string;
  label?: string;
  dims: DimensionEntry[];
  value: string;
  onChange: (v: string) => void;
}) {
  return (
    <select
      id={p.id}
      aria-label={p.label}
      value={p.value}
      onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}
    >
      <option value="">(none)</option>
      {p.dims.map((d) => (
        <option key={d.name} value={d.name}>
          {d.label}
        </option>
      ))}
    </select>
  );
}

function FilterRow(p: {
  dims: DimensionEntry[];
  filter: ExplorerFilter;
  onChange: (f: ExplorerFilter) => void;
  onRemove: () => void;
}) {
  const dim = p.dims.find((d) => d.name === p.filter.field);
  const f = p.filter;
  return (
    <div class="filter">
      <DimensionSelect
        dims={p.dims}
        value={f.field}
        onChange={(field) => p.onChange({ ...f, field, values: [] })}
      />
      <select
        aria-label="Operator"
        value={f.operator}
        onChange={(e) => p.onChange({ ...f, operator: (e.target as HTMLSelectElement).value, values: [] })}
      >
        {(dim?.operators ?? [{ name: 'in', value: 'in', label: 'is any of' }]).map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {LIST_OPERATORS.has(f.operator) ? (
        <select
          aria-label="Values"
          multiple
          size={Math.min(4, Math.max(2, dim?.values.length ?? 2))}
          onChange={(e) =>
            p.onChange({
              ...f,
              values: [...(e.target as HTMLSelectElement).selectedOptions].map((o) => o.value),
            })
          }
        >
          {(dim?.values ?? []).map((v) => (
            <option key={v.name} value={v.name} selected={f.values.includes(v.name)}>
              {v.label} ({(v.proportionCostAllocated * 100).toFixed(1)}%)
            </option>
          ))}
        </select>
      ) : NO_VALUE_OPERATORS.has(f.operator) ? null : (
        <input
          aria-label="Value"
          value={f.values[0] ?? ''}
          onChange={(e) => p.onChange({ ...f, values: [(e.target as HTMLInputElement).value] })}
        />
      )}
      <button type="button" class="link" onClick={p.onRemove}>
        Remove
      </button>
    </div>
  );
}

function ExplorerResultView({ form, result }: { form: ExplorerForm; result: ExplorerResult }) {
  const chart = useMemo(
    () => buildChartSpec(chartInput(result, { title: form.title ?? 'Explorer', chartType: form.chartType })),
    [result, form.chartType, form.title],
  );
  const table = useMemo(
    () => buildChartSpec(chartInput(result, { title: form.title ?? 'Explorer', chartType: 'TABLE' })),
    [result, form.title],
  );
  if (isEmptyResult(result))
    return (
      <p class="empty">
        No cost in {result.period.startDate} to {result.period.endDate}.
      </p>
    );
  return (
    <div class="result">
      {form.chartType !== 'TABLE' && <Chart spec={chart} height={420} />}
      <Chart spec={table} height={0} />
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

const pct = (x: number) => `${x.toFixed(1)}%`;

function Dimensions() {
  const [reload, setReload] = useState(0);
  const status = useAsync(() => api.refreshStatus(), [reload]);
  const candidates = useAsync(() => api.candidates(), [reload]);
  const dims = useAsync(() => api.dimensions(), [reload]);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const publish = async (name: string, keys: readonly string[]) => {
    setMessage(null);
    try {
      const r = await api.publishDimensions(labelPublishBody(name, keys));
      const errors = r.unpublished.flatMap((u) => u.errors.map((e) => `${u.name}: ${e.message}`));
      const from = keys.length > 1 ? ` from the keys ${keys.map((k) => JSON.stringify(k)).join(', ')}` : '';
      setMessage(
        r.ok
          ? {
              ok: true,
              text: `Published the label ${name}${from}; the refresh it started adds it to the dimensions.`,
            }
          : { ok: false, text: errors.join('; ') || `Label ${name} was not published.` },
      );
      setReload(reload + 1);
    } catch (err) {
      setMessage({ ok: false, text: describe(err) });
    }
  };
  // Published labels are listed under the group title `Labels` (docs/warehouse.md).
  const labels = dims.status === 'ok' ? dims.value.filter((d) => d.groupTitle === 'Labels') : [];
  return (
    <section>
      <h1>Dimensions</h1>
      <p>
        Refresh:{' '}
        {status.status === 'ok'
          ? `${status.value.state}${status.value.lastSucceededAt ? `, last succeeded ${status.value.lastSucceededAt.slice(0, 16).replace('T', ' ')}` : ''}${status.value.lastError ? ` (last error: ${status.value.lastError})` : ''}`
          : status.status === 'error'
            ? status.message
            : '…'}
      </p>
      {message && (
        <p class={message.ok ? 'ok' : 'error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      )}
      <h2>Label candidates</h2>
      {candidates.status === 'loading' && <p class="loading">Loading candidates…</p>}
      {candidates.status === 'error' && <p class="error">{candidates.message}</p>}
      {candidates.status === 'ok' && candidates.value.length === 0 && (
        <p class="empty">No tag keys in the billing data yet (or the first refresh has not run).</p>
      )}
      {candidates.status === 'ok' && candidates.value.length > 0 && (
        <div class="table-wrap">
          <table class="candidates stack">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Cost with the key / without</th>
                <th scope="col" class="num">
                  Values
                </th>
                <th scope="col">Largest values</th>
                <th scope="col">Providers</th>
                <th scope="col">
                  <span class="sr-only">Publish</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {candidateRows(candidates.value).map((c) => (
                <tr key={c.key}>
                  <td data-label="Key">
                    <code class="tagkey" title={JSON.stringify(c.key)}>
                      {c.key}
                    </code>
                  </td>
                  <td data-label="With / without">
                    <div
                      class="share"
                      role="img"
                      aria-label={`${pct(c.presentPct)} of the cost has the key, ${pct(c.absentPct)} has not`}
                    >
                      <span class="present" style={{ width: `${c.presentPct}%` }} />
                    </div>
                    {pct(c.presentPct)} / {pct(c.absentPct)}
                  </td>
                  <td class="num" data-label="Values">
                    {c.values}
                  </td>
                  <td data-label="Largest">{c.topValues.join(', ')}</td>
                  <td data-label="Providers">{c.providers.join(', ')}</td>
                  <td class="publish" data-label="Publish">
                    {c.ingested ? (
                      'published'
                    ) : c.similar.length ? (
                      <div class="merge-offer">
                        <span class="meta">
                          Also written{' '}
                          {c.similar.map((k) => (
                            <code class="tagkey" key={k} title={JSON.stringify(k)}>
                              {k}
                            </code>
                          ))}
                        </span>
                        <button
                          type="button"
                          class="merge"
                          onClick={() => publish(c.label.name, c.label.keys)}
                        >
                          Merge {c.label.keys.length} spellings as label {c.label.name}
                        </button>
                      </div>
                    ) : (
                      <button type="button" onClick={() => publish(c.label.name, c.label.keys)}>
                        Publish as label
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Dimensions to group and filter by</h2>
      {dims.status === 'ok' && (
        <ul class="dims">
          {dims.value.map((d) => (
            <li key={d.name}>
              {d.label} <span class="meta">({d.groupTitle})</span>
            </li>
          ))}
        </ul>
      )}
      {labels.length === 0 && dims.status === 'ok' && <p class="empty">No published labels yet.</p>}
    </section>
  );
}
