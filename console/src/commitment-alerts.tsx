/**
 * Expiring-commitment alerts (`#/commitments/alerts`, docs/commitments.md): the list (window,
 * target, state, last announcement), a create form and, per alert, editing (name, window, where it
 * is sent; `If-Match` its version), snooze (or end it) and archive.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { isSnoozed, snoozeUntil } from './alerts-shape';
import { ApiError, api } from './api';
import {
  type AlertFields,
  CHANNELS,
  type Channel,
  type CommitmentAlert,
  type CommitmentAlertInput,
  conflictText,
  fieldsOf,
  inputOf,
  lastAnnouncement,
  NEW_ALERT,
  targetText,
  WINDOWS,
} from './commitment-alerts-shape';
import { describe, useAsync } from './hooks';
import { utc } from './reports-shape';
import { ArchivableList, BackLink, ErrorText, SnoozeControls } from './ui';

const CHANNEL_WORDS: Record<Channel, string> = { EMAIL: 'E-mail', SLACK: 'Slack', TEAMS: 'Teams' };

export function CommitmentAlerts() {
  // Bumped by a create, snooze or archive: the list loads again.
  const [reload, setReload] = useState(0);
  const again = () => setReload(reload + 1);
  return (
    <div class="commitment-alerts">
      <BackLink href="#/commitments">Commitments</BackLink>
      <ArchivableList
        key={reload}
        title="Expiring-commitment alerts"
        load={(archived) => api.commitmentAlerts(archived)}
        listClass="commitment-alert-list"
        empty="None yet: each announces the commitments ending within its window (90, 60, 30 days left), once per window."
        item={(a) => <Item alert={a} onChanged={again} />}
      />
      <h2>New alert</h2>
      <CreateForm onCreated={again} />
    </div>
  );
}

function Item({ alert: a, onChanged }: { alert: CommitmentAlert; onChanged: () => void }) {
  const now = new Date();
  const history = useAsync(() => api.alertHistory(a.id), [a.id]);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const act = async (run: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await run();
      onChanged();
    } catch (e) {
      setError(describe(e));
    } finally {
      setBusy(false);
    }
  };
  const snoozed = isSnoozed(a, now);
  const last =
    history.status === 'ok'
      ? lastAnnouncement(history.value.items)
      : history.status === 'error'
        ? undefined
        : null;
  return (
    <>
      <strong>{a.name}</strong>
      <span class="meta">
        Within {a.withinDays} days · {targetText(a)} · last announcement{' '}
        {last === undefined ? 'unknown' : last ? utc(last) : history.status === 'loading' ? '…' : 'none yet'}
      </span>
      <span class={`badge ${a.archivedAt ? 'off' : snoozed ? 'warn' : 'on'}`}>
        {a.archivedAt
          ? `Archived ${utc(a.archivedAt)}`
          : snoozed
            ? `Snoozed until ${utc(a.snoozedUntil)}`
            : 'Active'}
      </span>
      {!a.archivedAt && (
        <span class="actions">
          <SnoozeControls
            snoozed={snoozed}
            busy={busy}
            dayChoices={[7, 30]}
            endLabel="End snooze"
            onEnd={() => act(() => api.unsnoozeCommitmentAlert(a.id))}
            onSnooze={(days) => act(() => api.snoozeCommitmentAlert(a.id, snoozeUntil(new Date(), days)))}
          />
          <button type="button" class="link" disabled={busy} onClick={() => setEditing(!editing)}>
            Edit
          </button>
          <button
            type="button"
            class="link"
            disabled={busy}
            onClick={() => act(() => api.archiveCommitmentAlert(a.id))}
          >
            Archive
          </button>
        </span>
      )}
      {editing && !a.archivedAt && (
        <EditForm
          alert={a}
          onDone={() => {
            setEditing(false);
            onChanged();
          }}
        />
      )}
      {error && <ErrorText message={error} />}
    </>
  );
}

function CreateForm({ onCreated }: { onCreated: () => void }) {
  const [done, setDone] = useState<string | null>(null);
  return (
    <AlertForm
      initial={NEW_ALERT}
      submitLabel="Create alert"
      clearName
      onSubmit={async (input) => {
        setDone(null);
        const made = await api.createCommitmentAlert(input);
        setDone(`Created “${made.name}”.`);
        onCreated();
      }}
    >
      {done && (
        <p class="done" role="status">
          {done}
        </p>
      )}
    </AlertForm>
  );
}

/** An existing alert's definition, sent with `If-Match` its version: a 409 says why in words, with a way to reload. */
function EditForm({ alert: a, onDone }: { alert: CommitmentAlert; onDone: () => void }) {
  return (
    <AlertForm
      initial={fieldsOf(a)}
      submitLabel="Save changes"
      onCancel={onDone}
      onSubmit={async (input) => {
        await api.updateCommitmentAlert(a.id, a.version, input);
        onDone();
      }}
      refused={(e) =>
        e instanceof ApiError && e.status === 409 ? (
          <>
            {conflictText(e.code, a.version)}{' '}
            <button type="button" class="link" onClick={onDone}>
              Reload
            </button>
          </>
        ) : null
      }
    />
  );
}

function AlertForm(p: {
  initial: AlertFields;
  submitLabel: string;
  onSubmit: (input: CommitmentAlertInput) => Promise<void>;
  /** Empties the name after a success (a create, ready for the next one). */
  clearName?: boolean;
  onCancel?: () => void;
  /** A refusal shown otherwise than the API's words (an edit's 409), or null for the default. */
  refused?: (e: unknown) => ComponentChildren | null;
  children?: ComponentChildren;
}) {
  const [f, setF] = useState<AlertFields>(p.initial);
  const [error, setError] = useState<ComponentChildren | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof AlertFields) => (e: Event) =>
    setF({ ...f, [k]: (e.target as HTMLInputElement | HTMLSelectElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await p.onSubmit(inputOf(f));
      if (p.clearName) setF({ ...f, name: '' });
    } catch (err) {
      setError(p.refused?.(err) ?? describe(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="commitment-alert-form filters" onSubmit={submit}>
      <label>
        Name <input required value={f.name} onInput={set('name')} />
      </label>
      <label>
        Within{' '}
        <select value={f.withinDays} onChange={set('withinDays')}>
          {WINDOWS.map((w) => (
            <option key={w} value={w}>
              {w} days
            </option>
          ))}
        </select>
      </label>
      <label>
        Send by{' '}
        <select value={f.channel} onChange={set('channel')}>
          {CHANNELS.map((c) => (
            <option key={c} value={c}>
              {CHANNEL_WORDS[c]}
            </option>
          ))}
        </select>
      </label>
      {f.channel === 'EMAIL' && (
        <label>
          E-mails{' '}
          <input value={f.emails} onInput={set('emails')} placeholder="a@example.com, b@example.com" />
        </label>
      )}
      {f.channel === 'SLACK' && (
        <label>
          Slack channel id <input value={f.slack} onInput={set('slack')} placeholder="C0123456" />
        </label>
      )}
      {f.channel === 'TEAMS' && (
        <label>
          Teams Workflows URL <input type="url" value={f.teams} onInput={set('teams')} />
        </label>
      )}
      <button type="submit" disabled={busy}>
        {p.submitLabel}
      </button>
      {p.onCancel && (
        <button type="button" class="link" onClick={p.onCancel}>
          Cancel
        </button>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {p.children}
    </form>
  );
}
