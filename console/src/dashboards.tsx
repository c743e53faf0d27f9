/** The dashboards list and a dashboard's page (its period, versions and widgets). */
import { useState } from 'preact/hooks';
import { DATE_PRESETS } from '../../shared/enums';
import { api } from './api';
import { useAsync } from './hooks';
import { readingOrder } from './shape';
import { ErrorText, Loaded } from './ui';
import { WidgetCard } from './widget';

export function DashboardList() {
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
