/** The dashboards list and a dashboard's page (its period, versions and widgets). */
import { useEffect, useState } from 'preact/hooks';
import { DATE_PRESETS, VISIBILITY_TYPES } from '../../shared/enums';
import { api } from './api';
import { describe, useAsync } from './hooks';
import { type Dashboard, matchingName, readingOrder } from './shape';
import { ErrorText, Loaded, WordSelect } from './ui';
import { useUsers } from './users';
import { WidgetCard } from './widget';
import { presetWords, visibilityWords } from './words';

/**
 * The dashboards list, a page of 50 at a time ("Show more" follows `nextCursor`), filtered by type
 * and team (the API's filters) and searched by name in the pages loaded.
 */
export function DashboardList() {
  const [type, setType] = useState('');
  const [teamId, setTeamId] = useState('');
  const [search, setSearch] = useState('');
  const first = useAsync(() => api.dashboards({ type, teamId: teamId.trim() }), [type, teamId]);
  const [more, setMore] = useState<{ items: Dashboard[]; nextCursor: string | null; busy?: boolean }>();
  // A new first page (another filter) forgets the pages loaded after the old one.
  useEffect(() => setMore(undefined), [first]);
  const loaded = first.status === 'ok' ? [...first.value.items, ...(more?.items ?? [])] : [];
  const cursor = more ? more.nextCursor : first.status === 'ok' ? first.value.nextCursor : null;
  const [error, setError] = useState<string | null>(null);
  const showMore = async () => {
    if (!cursor) return;
    const items = more?.items ?? [];
    setError(null);
    setMore({ items, nextCursor: cursor, busy: true });
    try {
      const next = await api.dashboards({ type, teamId: teamId.trim(), cursor });
      setMore({ items: [...items, ...next.items], nextCursor: next.nextCursor });
    } catch (err) {
      setMore({ items, nextCursor: cursor });
      setError(describe(err));
    }
  };
  const state = first.status === 'ok' ? { status: 'ok' as const, value: { items: loaded } } : first;
  return (
    <section>
      <h1>Dashboards</h1>
      <ListFilters type={type} setType={setType} teamId={teamId} setTeamId={setTeamId} />
      <label class="search">
        Search by name{' '}
        <input
          type="search"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
      </label>
      <Loaded
        state={state}
        loading="Loading dashboards…"
        empty={
          <>
            No dashboards yet. Build a query in the <a href="#/explorer">explorer</a> and save it to a new
            dashboard.
          </>
        }
      >
        {(items) => <DashboardItems items={matchingName(items, search)} search={search} />}
      </Loaded>
      {error && <ErrorText message={error} />}
      {cursor && (
        <button type="button" class="more" disabled={more?.busy} onClick={showMore}>
          {more?.busy ? 'Loading…' : 'Show more dashboards'}
        </button>
      )}
    </section>
  );
}

function ListFilters(p: {
  type: string;
  setType: (v: string) => void;
  teamId: string;
  setTeamId: (v: string) => void;
}) {
  return (
    <div class="filters">
      <WordSelect
        label="Type"
        value={p.type}
        codes={VISIBILITY_TYPES}
        words={visibilityWords}
        onChange={p.setType}
        first={['', 'All']}
      />
      <label>
        Team id{' '}
        <input
          value={p.teamId}
          onChange={(e) => p.setTeamId((e.target as HTMLInputElement).value)}
          placeholder="team_…"
        />
      </label>
    </div>
  );
}

function DashboardItems({ items, search }: { items: Dashboard[]; search: string }) {
  if (!items.length) return <p class="empty">No dashboard loaded has “{search.trim()}” in its name.</p>;
  return (
    <ul class="dash-list">
      {items.map((d) => (
        <li key={d.id}>
          <a href={`#/dashboards/${encodeURIComponent(d.id)}`}>{d.name}</a>
          <span class="meta">
            {visibilityWords(d.type)} · {d.widgetCount ?? 0} widgets{d.teamId ? ` · ${d.teamId}` : ''} ·
            updated {d.updatedAt?.slice(0, 10)}
          </span>
        </li>
      ))}
    </ul>
  );
}

export function DashboardPage({ id }: { id: string }) {
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
        <WordSelect
          label="Period"
          value={preset}
          codes={DATE_PRESETS}
          words={presetWords}
          onChange={setPreset}
          first={['', 'As saved']}
        />
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
  const users = useUsers();
  if (v.status === 'loading') return <p class="loading">Loading versions…</p>;
  if (v.status === 'error') return <p class="error">{v.message}</p>;
  return (
    <ol class="versions">
      {v.value.items.map((x) => (
        <li key={x.version}>
          v{x.version} · {x.createdAt.slice(0, 16).replace('T', ' ')} · {users.nameOf(x.createdById)} ·{' '}
          {x.widgetCount} widgets
        </li>
      ))}
    </ol>
  );
}
