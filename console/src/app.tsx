/** The console's shell: sign-in or the signed-in header and the page of the hash route. No server routing. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { parseBudgetPageQuery } from '../../shared/links';
import { AlertList, AlertPage } from './alerts';
import { credential, onCredentialRefused } from './api';
import { BudgetList, BudgetPage } from './budgets';
import { CommitmentAlerts } from './commitment-alerts';
import { Commitments } from './commitments';
import { DashboardList, DashboardPage } from './dashboards';
import { UploadList, UploadPage } from './data';
import { Dimensions } from './dimensions';
import { Explorer } from './explorer';
import { Identity } from './me';
import type { Callback } from './oidc';
import { ReportList, ReportPage } from './reports';
import { SignIn } from './sign-in';
import { forgetUsers } from './users';

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/dashboards');
  useEffect(() => {
    const f = () => setHash(location.hash || '#/dashboards');
    addEventListener('hashchange', f);
    return () => removeEventListener('hashchange', f);
  }, []);
  return hash;
}

/**
 * After a route change (not the first page), focus moves to the new page's heading once it is drawn
 * (pages load first), so a keyboard or screen-reader user starts at the page, not the old link.
 */
function useFocusOnRouteChange(hash: string, signedIn: boolean): void {
  const first = useRef(true);
  useEffect(() => {
    if (!signedIn) return;
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById('main');
    if (!main) return;
    const focusHeading = () => {
      const h1 = main.querySelector('h1');
      if (!h1) return false;
      h1.tabIndex = -1;
      h1.focus();
      return true;
    };
    if (focusHeading()) return;
    const mo = new MutationObserver(() => focusHeading() && stop());
    const t = setTimeout(() => stop(), 15_000);
    const stop = () => {
      mo.disconnect();
      clearTimeout(t);
    };
    mo.observe(main, { childList: true, subtree: true });
    return stop;
  }, [hash, signedIn]);
}

/** `callback`: the identity provider's answer, already taken out of the address bar (main.tsx). */
export function App({ callback = { kind: 'none' } }: { callback?: Callback }) {
  const [signedIn, setSignedIn] = useState(() => credential.get() !== null);
  const [notice, setNotice] = useState<string | null>(null);
  // Bumped by a click on the link of the page already shown: the page loads again.
  const [visit, setVisit] = useState(0);
  useEffect(
    () =>
      onCredentialRefused(() => {
        setSignedIn(false);
        setNotice('Your credential was refused (expired or revoked): sign in again.');
      }),
    [],
  );
  const hash = useHash();
  useFocusOnRouteChange(hash, signedIn);
  if (!signedIn)
    return (
      <SignIn
        notice={notice}
        callback={callback}
        onSignedIn={() => {
          setNotice(null);
          setSignedIn(true);
        }}
      />
    );
  return (
    <div class="app">
      {/* A button, not `href="#main"`: the hash is the route. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <Header
        hash={hash}
        onAgain={() => setVisit(visit + 1)}
        onSignOut={() => {
          credential.clear();
          forgetUsers();
          setSignedIn(false);
        }}
      />
      <main id="main" tabIndex={-1}>
        <Page key={visit} hash={hash} />
      </main>
    </div>
  );
}

const NAV: { href: string; text: string; current: (hash: string) => boolean }[] = [
  { href: '#/dashboards', text: 'Dashboards', current: (h) => h.startsWith('#/dashboards') },
  { href: '#/explorer', text: 'Explorer', current: (h) => isExplorer(h) },
  { href: '#/dimensions', text: 'Dimensions', current: (h) => h === '#/dimensions' },
  { href: '#/alerts', text: 'Alerts', current: (h) => h.startsWith('#/alerts') },
  { href: '#/reports', text: 'Reports', current: (h) => h.startsWith('#/reports') },
  { href: '#/budgets', text: 'Budgets', current: (h) => h.startsWith('#/budgets') },
  { href: '#/commitments', text: 'Commitments', current: (h) => h.startsWith('#/commitments') },
  { href: '#/data', text: 'Data', current: (h) => h.startsWith('#/data') },
];

/** The top bar: the pages, who is signed in to which organisation, and "Sign out". */
function Header(p: { hash: string; onAgain: () => void; onSignOut: () => void }) {
  return (
    <header class="top">
      <strong class="brand">FinOps console</strong>
      <nav aria-label="Main">
        {NAV.map((n) => (
          <a
            key={n.href}
            href={n.href}
            aria-current={n.current(p.hash) ? 'page' : undefined}
            // The link of the page shown (no hash change): load it again.
            onClick={() => p.hash === n.href && p.onAgain()}
          >
            {n.text}
          </a>
        ))}
      </nav>
      <Identity />
      <button type="button" class="link" onClick={p.onSignOut}>
        Sign out
      </button>
    </header>
  );
}

/** The page of a hash route; the dashboards list for any other. */
function Page({ hash }: { hash: string }) {
  const dash = /^#\/dashboards\/([^/]+)$/.exec(hash);
  const alert = /^#\/alerts\/([^/]+)$/.exec(hash);
  const report = /^#\/reports\/([^/]+)$/.exec(hash);
  const upload = /^#\/data\/([^/]+)$/.exec(hash);
  const budget = /^#\/budgets\/([^/?]+)(\?.*)?$/.exec(hash);
  if (dash) return <DashboardPage id={decodeURIComponent(dash[1]!)} />;
  // Keyed by the link followed: a new link opens its own view (the page's own runs only replace
  // the address, which fires no hashchange).
  if (isExplorer(hash)) return <Explorer key={hash} />;
  if (hash === '#/dimensions') return <Dimensions />;
  if (alert) return <AlertPage key={alert[1]} id={decodeURIComponent(alert[1]!)} />;
  if (hash === '#/alerts') return <AlertList />;
  if (report) return <ReportPage key={report[1]} id={decodeURIComponent(report[1]!)} />;
  if (hash === '#/reports') return <ReportList />;
  if (budget)
    return (
      <BudgetPage
        key={hash}
        id={decodeURIComponent(budget[1]!)}
        state={parseBudgetPageQuery(budget[2] ?? '')}
      />
    );
  if (hash === '#/budgets') return <BudgetList />;
  if (hash === '#/commitments') return <Commitments />;
  if (hash === '#/commitments/alerts') return <CommitmentAlerts />;
  if (upload) return <UploadPage key={upload[1]} id={decodeURIComponent(upload[1]!)} />;
  if (hash === '#/data') return <UploadList />;
  return <DashboardList />;
}

const isExplorer = (hash: string) => hash === '#/explorer' || hash.startsWith('#/explorer?');
