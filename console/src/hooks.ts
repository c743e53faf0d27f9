/** What every page uses to load from the API: a loading/error/ok state and the error's wording. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

export type State<T> =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'ok'; value: T };

export function describe(e: unknown): string {
  if (e instanceof ApiError) return `The API answered ${e.status}: ${e.code}`;
  return `Could not reach the API (${(e as Error)?.message ?? e})`;
}

/**
 * Runs `load` whenever `deps` change; the latest answer wins. With `keepShown`, an answer already
 * shown stays on the page while the next one loads (a log re-read every few seconds).
 */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[], keepShown = false): State<T> {
  const [state, setState] = useState<State<T>>({ status: 'loading' });
  useEffect(() => {
    let live = true;
    if (!keepShown) setState({ status: 'loading' });
    load().then(
      (value) => live && setState({ status: 'ok', value }),
      (e) => live && setState({ status: 'error', message: describe(e) }),
    );
    return () => {
      live = false;
    };
  }, deps);
  return state;
}
