/** The dimensions page: the refresh's state, label candidates (publish, merge spellings), dimensions. */
import { useState } from 'preact/hooks';
import { api } from './api';
import { describe, useAsync } from './hooks';
import { type CandidateRow, candidateRows, labelPublishBody } from './shape';
import { Heads, numeric } from './ui';

const pct = (x: number) => `${x.toFixed(1)}%`;

export function Dimensions() {
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
        <CandidateTable rows={candidateRows(candidates.value)} publish={publish} />
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

type Publish = (name: string, keys: readonly string[]) => Promise<void>;

/** The label candidates, costliest first (stacked cards on a phone: `table.stack`). */
function CandidateTable({ rows, publish }: { rows: CandidateRow[]; publish: Publish }) {
  return (
    <div class="table-wrap">
      <table class="candidates stack">
        <Heads
          cols={[
            'Key',
            'Cost with the key / without',
            numeric('Values'),
            'Largest values',
            'Providers',
            { label: 'Publish', hidden: true },
          ]}
        />
        <tbody>
          {rows.map((c) => (
            <CandidateLine key={c.key} c={c} publish={publish} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One candidate: its key, share of the cost, values, providers and the publish (or merge) offer. */
function CandidateLine({ c, publish }: { c: CandidateRow; publish: Publish }) {
  return (
    <tr>
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
            <button type="button" class="merge" onClick={() => publish(c.label.name, c.label.keys)}>
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
  );
}
