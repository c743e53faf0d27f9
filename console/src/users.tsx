/**
 * Who is who: the signed-in credential in words (the header) and user ids as names (versions,
 * alerts). The API gives names to admins only (`GET /iac/users`); for a member, or before the list
 * has loaded, a user is shown by their id. Read once per signed-in tab.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, credential, credentialHolder } from './api';

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

/**
 * Runs `start` 2 s after the page has loaded, when the browser is idle: the header's reads wait
 * for the page's own (a dashboard's widgets asked for at once answered a third later with them).
 */
function whenIdle(start: () => void): () => void {
  let t: ReturnType<typeof setTimeout> | undefined;
  let idle: number | undefined;
  const later = () => {
    t = setTimeout(() => {
      if (typeof requestIdleCallback === 'function') idle = requestIdleCallback(start, { timeout: 3000 });
      else start();
    }, 2000);
  };
  if (document.readyState === 'complete') later();
  else addEventListener('load', later, { once: true });
  return () => {
    removeEventListener('load', later);
    clearTimeout(t);
    if (idle !== undefined) cancelIdleCallback(idle);
  };
}

/** The header's "who and where": the user's name (or e-mail, or id) and the organisation's name. */
export function Identity() {
  const who = credentialHolder(credential.get());
  // Read once the page's own requests are out (idle): the first chart does not wait on the header.
  const users = useUsers(who.sub !== undefined, whenIdle);
  const [org, setOrg] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const cancel = whenIdle(() =>
      api.organization().then(
        (o) => live && setOrg(o.name || o.id),
        () => live && setOrg(null),
      ),
    );
    return () => {
      live = false;
      cancel();
    };
  }, []);
  const user = who.sub ? users.nameOf(who.sub) : undefined;
  const named = user && user !== who.sub ? user : (who.email ?? who.sub);
  return (
    <p class="identity">
      {who.kind === 'jwt' && named ? (
        <>
          Signed in as <strong>{named}</strong>
        </>
      ) : (
        'Signed in with an API key'
      )}
      {(org ?? who.org) && (
        <>
          {' · '}
          <span class="org">{org ?? who.org}</span>
        </>
      )}
    </p>
  );
}
