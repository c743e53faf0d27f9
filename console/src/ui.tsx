/** Blocks every page shares: a loaded list (loading / error / empty / items) and the "← back" link. */
import type { ComponentChildren } from 'preact';
import type { State } from './hooks';

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

export function ErrorText({ message }: { message: string }) {
  return (
    <p class="error" role="alert">
      {message}
    </p>
  );
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
