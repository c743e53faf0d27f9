/**
 * Who is who: user ids as names (versions, alerts; the header reads `GET /me`, me.tsx). The API gives names to admins only (`GET /iac/users`); for a member, or before the list
 * has loaded, a user is shown by their id. Read once per signed-in tab.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api';

export interface Users {
  nameOf(id: string): string;
}

let names: Promise<Map<string, string>> | undefined;

/** Every user's name by id (all pages), or an empty map when the API does not give them. */
function loadNames(): Promise<Map<string, string>> {
  names ??= (async () => {
    const out = new Map<string, string>();
    try {
      let cursor: string | undefined;
      do {
        const page = await api.users(cursor);
        for (const u of page.items) out.set(u.id, u.name || u.email || u.id);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
    } catch {
      // A member (403) or an older API: ids stay ids.
    }
    return out;
  })();
  return names;
}

/** Forgets the names read (a sign-out: the next credential may see other users). */
export function forgetUsers(): void {
  names = undefined;
}

/** Names by id; `when` (default: now) starts the read, `enabled` false reads nothing. */
export function useUsers(enabled = true, when: (start: () => void) => () => void = now): Users {
  const [map, setMap] = useState<Map<string, string>>(new Map());
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    const cancel = when(() => void loadNames().then((m) => live && setMap(m)));
    return () => {
      live = false;
      cancel();
    };
  }, [enabled]);
  return { nameOf: (id) => map.get(id) ?? id };
}

const now = (start: () => void) => {
  start();
  return () => {};
};
