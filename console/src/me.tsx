/** The header's "who and where", from `GET /me`: the user's name (or e-mail), the organisation, the role. */
import { useEffect, useState } from 'preact/hooks';
import { api, type Me } from './api';

/** The words of a principal: "Ana Lima", "the API key CI (ak_12ab…)", the user's e-mail or id. */
export function whoOf(me: Me): string {
  if (me.credential === 'apiKey' && me.apiKey) return `the API key ${me.apiKey.name}`;
  if (me.credential !== 'session') return 'an API key';
  return me.name || me.email || me.principalId;
}

export function Identity() {
  const [me, setMe] = useState<Me | null>(null);
  useEffect(() => {
    let live = true;
    api.me().then(
      (m) => live && setMe(m),
      () => live && setMe(null),
    );
    return () => {
      live = false;
    };
  }, []);
  if (!me) return <p class="identity" />;
  const key = me.credential !== 'session';
  return (
    <p class="identity">
      {key ? 'Signed in with ' : 'Signed in as '}
      <strong>{whoOf(me)}</strong>
      {key && me.kind === 'user' && (me.name || me.email) ? ` for ${me.name || me.email}` : ''}
      {' · '}
      <span class="org">{me.organization.name || me.organization.id}</span>
      {me.role && (
        <>
          {' · '}
          <span class="role">{me.role}</span>
        </>
      )}
    </p>
  );
}
