/** Blocks the pages share: a loaded list (loading / error / empty / items), a list with archived ones, the "← back" link. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { type State, useAsync } from './hooks';

/**
 * The loading text while `state` loads, its error (announced), `empty` when the list is empty,
 * otherwise `children(items)`.
 */
export function Loaded<T>(p: {
  state: State<{ items: T[] }>;
  loading: string;
  empty: ComponentChildren;
  children: (items: T[]) => ComponentChildren;
}) {
  const { state } = p;
  if (state.status === 'loading') return <p class="loading">{p.loading}</p>;
  if (state.status === 'error') return <ErrorText message={state.message} />;
  if (state.value.items.length === 0) return <p class="empty">{p.empty}</p>;
  return <>{p.children(state.value.items)}</>;
}

export function ErrorText({ message }: { message: ComponentChildren }) {
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
}

/** The state of an action started on a page: idle, under way, done (`text` says what it did) or failed. */
export interface ActionState {
  kind: 'idle' | 'busy' | 'ok' | 'error';
  text?: string;
}

/** What an action answered: its text, announced, once done; its error once failed; nothing before. */
export function ActionOutcome({ state }: { state: ActionState }) {
  if (state.kind === 'ok')
    return (
      <p class="ok" role="status">
        {state.text}
      </p>
    );
  return state.kind === 'error' ? <ErrorText message={state.text} /> : null;
}

/** The link back to a list (`#/alerts`, …), above a page's heading. */
export function BackLink({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <p>
      <a href={href}>← {children}</a>
    </p>
  );
}

/** A page that could not load: the way back and the error. */
export function ErrorPage(p: { href: string; back: string; message: string }) {
  return (
    <section>
      <BackLink href={p.href}>{p.back}</BackLink>
      <ErrorText message={p.message} />
    </section>
  );
}

/**
 * A list page whose items can be archived (alerts, reports): the heading, a "Show archived …"
 * checkbox that reloads the list, and one `<li>` per item drawn by `item`.
 */
export function ArchivableList<T extends { id: string }>(p: {
  /** Plural: "Alerts" (also "Show archived alerts", "Loading alerts…"). */
  title: string;
  load: (archived: boolean) => Promise<{ items: T[] }>;
  empty: ComponentChildren;
  listClass: string;
  item: (x: T) => ComponentChildren;
}) {
  const [archived, setArchived] = useState(false);
  const list = useAsync(() => p.load(archived), [archived]);
  const noun = p.title.toLowerCase();
  return (
    <section>
      <h1>{p.title}</h1>
      <div class="filters">
        <label>
          <input
            type="checkbox"
            checked={archived}
            onChange={(e) => setArchived((e.target as HTMLInputElement).checked)}
          />{' '}
          Show archived {noun}
        </label>
      </div>
      <Loaded state={list} loading={`Loading ${noun}…`} empty={p.empty}>
        {(items) => (
          <ul class={`dash-list ${p.listClass}`}>
            {items.map((x) => (
              <li key={x.id}>{p.item(x)}</li>
            ))}
          </ul>
        )}
      </Loaded>
    </section>
  );
}

/**
 * A labelled select of the API's codes, each shown in words (the option's value stays the code);
 * `first` is an option before them ("All", "As saved"), `last` options after them.
 */
export function WordSelect(p: {
  label: string;
  value: string;
  codes: readonly string[];
  words: (code: string) => string;
  onChange: (code: string) => void;
  first?: [string, string];
  last?: ComponentChildren;
}) {
  return (
    <label>
      {p.label}{' '}
      <select value={p.value} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}>
        {p.first && <option value={p.first[0]}>{p.first[1]}</option>}
        {p.codes.map((c) => (
          <option key={c} value={c}>
            {p.words(c)}
          </option>
        ))}
        {p.last}
      </select>
    </label>
  );
}

/**
 * Snooze for one of `dayChoices` days (the first chosen at first), or end a snooze: what the
 * alert pages offer. `onSnooze` gets the days chosen; `endLabel` names the button ending a snooze.
 */
export function SnoozeControls(p: {
  snoozed: boolean;
  busy: boolean;
  dayChoices: readonly number[];
  endLabel: string;
  onSnooze: (days: number) => void;
  onEnd: () => void;
}) {
  const [days, setDays] = useState(String(p.dayChoices[0] ?? 1));
  if (p.snoozed)
    return (
      <button type="button" disabled={p.busy} onClick={p.onEnd}>
        {p.endLabel}
      </button>
    );
  return (
    <>
      <label>
        Snooze for{' '}
        <select value={days} onChange={(e) => setDays((e.target as HTMLSelectElement).value)}>
          {p.dayChoices.map((d) => (
            <option key={d} value={String(d)}>
              {d} day{d === 1 ? '' : 's'}
            </option>
          ))}
        </select>
      </label>
      <button type="button" disabled={p.busy} onClick={() => p.onSnooze(Number(days))}>
        Snooze
      </button>
    </>
  );
}

/** A firing's top contributors (the messages' lines), or a dash when the entry has none. */
export function Causes({ causes }: { causes: { heading: string | null; lines: string[] } | null }) {
  if (!causes) return <>—</>;
  return (
    <div class="causes">
      {causes.heading && <p>{causes.heading}</p>}
      <ul>
        {causes.lines.map((l) => (
          <li key={l}>{l}</li>
        ))}
      </ul>
    </div>
  );
}

/** A column heading: its text, `num` for a right-aligned figure, `hidden` to name it for screen readers only. */
export type Head = string | { label: string; num?: true; hidden?: true };

/** A table's `<thead>`: one row of column headings (`scope="col"`). */
export function Heads({ cols }: { cols: Head[] }) {
  return (
    <thead>
      <tr>
        {cols.map((c) => {
          const h = typeof c === 'string' ? { label: c } : c;
          return (
            <th key={h.label} scope="col" class={h.num ? 'num' : undefined}>
              {h.hidden ? <span class="sr-only">{h.label}</span> : h.label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}

/** A right-aligned figure's heading. */
export const numeric = (label: string): Head => ({ label, num: true });
