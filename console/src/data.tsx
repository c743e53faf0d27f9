/**
 * The Data pages: the uploads list (`#/data`: file, format, status, rows, time, conformance score)
 * and an upload's page (`#/data/{id}`) with its FOCUS conformance report (docs/focus-conformance.md):
 * MUST and SHOULD met, then each failing requirement with its violating row count and sample rows.
 */
import { useState } from 'preact/hooks';
import { api } from './api';
import { describe, useAsync } from './hooks';
import { BackLink, ErrorPage, ErrorText, Heads, Loaded, numeric } from './ui';
import { failing, formatWords, scoreWords, statusCounts, type Upload, uploadRow } from './uploads-shape';

/** Uploads after the first page (100 a page, newest first): loaded on "Show more", following `nextCursor`. */
interface Later {
  items: Upload[];
  /** Where the next page starts; undefined until a later page is asked for (the first page's then). */
  cursor?: string | null;
  busy?: boolean;
  error?: string;
}

export function UploadList() {
  const first = useAsync(() => api.uploads(), []);
  const [later, setLater] = useState<Later>({ items: [] });
  const cursor =
    later.cursor !== undefined ? later.cursor : first.status === 'ok' ? first.value.nextCursor : null;
  const showMore = async () => {
    if (!cursor) return;
    setLater({ ...later, cursor, busy: true, error: undefined });
    try {
      const page = await api.uploads(cursor);
      setLater({ items: [...later.items, ...page.items], cursor: page.nextCursor });
    } catch (err) {
      setLater({ ...later, cursor, busy: false, error: describe(err) });
    }
  };
  const list =
    first.status === 'ok' ? { ...first, value: { items: [...first.value.items, ...later.items] } } : first;
  return (
    <section>
      <h1>Data</h1>
      <div class="card table-wrap">
        <h2>Uploads</h2>
        <Loaded
          state={list}
          loading="Loading uploads…"
          empty={
            <>
              No uploads yet. Upload a billing export with <code>npm run ingest</code> (docs/ingestion.md).
            </>
          }
        >
          {(items) => (
            <table class="uploads stack">
              <Heads cols={['File', 'Format', 'Status', numeric('Rows'), 'Finished', 'FOCUS conformance']} />
              <tbody>
                {items.map(uploadRow).map((r) => (
                  <tr key={r.id} data-id={r.id}>
                    <td data-label="File" class="name">
                      <a href={`#/data/${encodeURIComponent(r.id)}`}>{r.file}</a>
                    </td>
                    <td data-label="Format">{r.format}</td>
                    <td data-label="Status">{r.status}</td>
                    <td data-label="Rows" class="num">
                      {r.rows}
                    </td>
                    <td data-label="Finished">{r.time}</td>
                    <td data-label="Conformance">{r.conformance}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </Loaded>
        {later.error && <ErrorText message={later.error} />}
        {cursor && (
          <button type="button" class="more" disabled={later.busy} onClick={showMore}>
            {later.busy ? 'Loading…' : 'Show more uploads'}
          </button>
        )}
      </div>
    </section>
  );
}

export function UploadPage({ id }: { id: string }) {
  const upload = useAsync(() => api.upload(id), [id]);
  if (upload.status === 'loading') return <p class="loading">Loading the upload…</p>;
  if (upload.status === 'error') return <ErrorPage href="#/data" back="Data" message={upload.message} />;
  const u = upload.value;
  const row = uploadRow(u);
  const counts = statusCounts(u.conformance);
  const fails = failing(u.conformance);
  return (
    <section class="upload">
      <BackLink href="#/data">Data</BackLink>
      <h1>{row.file}</h1>
      <dl class="summary">
        <dt>Format</dt>
        <dd>{formatWords(u.format)}</dd>
        <dt>Status</dt>
        <dd>{row.status}</dd>
        <dt>Rows</dt>
        <dd>{row.rows}</dd>
        <dt>Months</dt>
        <dd>{u.months?.join(', ') || '–'}</dd>
        <dt>Finished</dt>
        <dd>{row.time}</dd>
        {u.error && (
          <>
            <dt>Refused</dt>
            <dd>{u.error}</dd>
          </>
        )}
      </dl>
      {u.warnings?.map((w) => (
        <p key={w} class="warning">
          {w}
        </p>
      ))}
      <div class="card conformance">
        <h2>FOCUS {u.conformance?.focusVersion ?? ''} conformance</h2>
        {!u.conformance ? (
          <p class="empty">No conformance report for this upload.</p>
        ) : (
          <>
            <p class="score">
              {scoreWords(u.conformance)} met · {counts.pass} passed, {counts.fail} failed,{' '}
              {counts.notApplicable} not applicable
            </p>
            {fails.length === 0 ? (
              <p class="empty">Every applicable requirement is met.</p>
            ) : (
              <ul class="failing">
                {fails.map((f) => (
                  <li key={f.id} data-id={f.id}>
                    <h3>
                      {f.id} <span class="keyword">{f.keyword}</span>
                    </h3>
                    <p>{f.statement}</p>
                    <p class="violations">Violated by {f.violations}</p>
                    {f.samples.length > 0 && (
                      <div class="table-wrap">
                        <table class="samples">
                          <thead>
                            <tr>
                              <th scope="col">Line</th>
                              {f.columns.map((c) => (
                                <th key={c} scope="col">
                                  {c}
                                </th>
                              ))}
                            </tr>
                          </thead>
                          <tbody>
                            {f.samples.map((s) => (
                              <tr key={s.line}>
                                <td>{s.line}</td>
                                {s.values.map((v, i) => (
                                  <td key={f.columns[i]}>{v}</td>
                                ))}
                              </tr>
                            ))}
                          </tbody>
                        </table>
                      </div>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
    </section>
  );
}
