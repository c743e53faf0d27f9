/** The sign-in page: the identity provider's button (OIDC code flow) or a pasted API key or JWT. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, api, credential, loadConfig } from './api';
import { describe, useAsync } from './hooks';
import { begin, type Callback, complete, providerName } from './oidc';
import { ErrorText } from './ui';

export function SignIn({
  notice,
  callback,
  onSignedIn,
}: {
  notice: string | null;
  callback: Callback;
  onSignedIn: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const config = useAsync(() => loadConfig(), []);
  const oidc = config.status === 'ok' ? config.value.oidc : undefined;
  /** Checks a credential with the API, then keeps it in this tab's session storage only. */
  const keep = async (obtain: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    try {
      const token = await obtain();
      await api.verify(token);
      credential.set(token);
      onSignedIn();
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401
          ? 'This credential was refused.'
          : err instanceof ApiError
            ? describe(err)
            : `Sign-in failed: ${(err as Error)?.message ?? err}`,
      );
    } finally {
      setBusy(false);
    }
  };
  // Back from the identity provider: the code is exchanged once (it is good once).
  const completing = useRef(false);
  useEffect(() => {
    if (callback.kind === 'none' || completing.current || config.status === 'loading') return;
    completing.current = true;
    if (!oidc) return setError('An identity provider answered, but none is configured.');
    void keep(() => complete(oidc, callback));
  }, [config.status]);
  const leave = async () => {
    if (!oidc) return;
    setBusy(true);
    setError(null);
    try {
      await begin(oidc);
    } catch (err) {
      setBusy(false);
      setError(`Could not reach the identity provider: ${(err as Error)?.message ?? err}`);
    }
  };
  return (
    <main class="signin">
      <div class="signin-box">
        <h1>Sign in</h1>
        {notice && <p class="notice">{notice}</p>}
        {oidc && (
          <section class="sign-in-idp" aria-label="Identity provider">
            <button type="button" class="idp" disabled={busy} onClick={leave}>
              Sign in with {providerName(oidc)}
            </button>
            <p class="hint">Your organisation's sign-in page; the session stays in this tab only.</p>
          </section>
        )}
        {config.status === 'error' && <p class="error">{config.message}</p>}
        <PastedCredential
          busy={busy}
          error={error}
          onMissing={() => setError('Paste an API key or a JWT.')}
          onToken={(token) => keep(async () => token)}
        />
      </div>
    </main>
  );
}

/** The form for a pasted credential (an `ak_` key or a JWT, with or without "Bearer "). */
function PastedCredential(p: {
  busy: boolean;
  error: string | null;
  onMissing: () => void;
  onToken: (token: string) => Promise<void>;
}) {
  const [value, setValue] = useState('');
  const submit = async (e: Event) => {
    e.preventDefault();
    const token = value.trim().replace(/^Bearer\s+/i, '');
    if (!token) return p.onMissing();
    await p.onToken(token);
  };
  return (
    <form onSubmit={submit}>
      <label for="credential">API key or JWT</label>
      <input
        id="credential"
        type="password"
        autocomplete="off"
        value={value}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        placeholder="ak_… or eyJ…"
      />
      <p class="hint">
        Locally, <code>npm start</code> prints API keys; <code>npm run token -- --user …</code> prints a JWT.
        The credential stays in this tab's session storage.
      </p>
      {p.error && <ErrorText message={p.error} />}
      <button type="submit" disabled={p.busy}>
        {p.busy ? 'Checking…' : 'Sign in'}
      </button>
    </form>
  );
}
