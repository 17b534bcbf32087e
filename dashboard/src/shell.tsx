/**
 * The signed-in frame: skip link, navigation (the operator page for operators only), the page, sign-out.
 */
import { api, type Session } from './api.ts';
import { ErrorMessage, useAction } from './components/ui.tsx';
import { ConnectorsPage } from './pages/connectors.tsx';
import { JobPage } from './pages/job.tsx';
import { JobsPage } from './pages/jobs.tsx';
import { KeysPage } from './pages/keys.tsx';
import { OperatorPage } from './pages/operator.tsx';
import { OverviewPage } from './pages/overview.tsx';
import { TryPage } from './pages/try-it.tsx';
import { UsersPage } from './pages/users.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import type { Route, RouteName } from './router.ts';
import { SessionContext } from './session.ts';

const NAV: { name: RouteName; label: string; operator?: true }[] = [
  { name: 'overview', label: 'Overview' },
  { name: 'try', label: 'Try it' },
  { name: 'jobs', label: 'Jobs' },
  { name: 'keys', label: 'API keys' },
  { name: 'connectors', label: 'Connectors' },
  { name: 'webhooks', label: 'Webhooks' },
  { name: 'users', label: 'Users' },
  { name: 'operator', label: 'Operator', operator: true },
];

function Page({ route }: { route: Route }) {
  switch (route.name) {
    case 'try':
      return <TryPage />;
    case 'jobs':
      return <JobsPage />;
    case 'job':
      return <JobPage id={route.param ?? ''} />;
    case 'keys':
      return <KeysPage />;
    case 'connectors':
      return <ConnectorsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'users':
      return <UsersPage />;
    case 'operator':
      return <OperatorPage />;
    default:
      return <OverviewPage />;
  }
}

export function Shell(props: { route: Route; session: Session; onSignedOut: () => void }) {
  const { route, session, onSignedOut } = props;
  const signOut = useAction();
  const current = route.name === 'job' ? 'jobs' : route.name;
  const isOperator = session.user.role === 'operator';
  return (
    <SessionContext.Provider value={{ session, signedOut: onSignedOut }}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/overview">
          Presso
        </a>
        <nav aria-label="Dashboard">
          <ul>
            {NAV.filter((item) => !item.operator || isOperator).map((item) => (
              <li key={item.name}>
                <a href={`#/${item.name}`} aria-current={current === item.name ? 'page' : undefined}>
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="muted">
            {session.user.email} · {session.account.name} · {session.user.role}
          </span>
          <button
            type="button"
            disabled={signOut.busy}
            onClick={() =>
              signOut.run(async () => {
                await api.session.signOut();
                onSignedOut();
              })
            }
          >
            Sign out
          </button>
          <button
            type="button"
            disabled={signOut.busy}
            onClick={() =>
              signOut.run(async () => {
                await api.session.signOutEverywhere();
                onSignedOut();
              })
            }
          >
            Sign out everywhere
          </button>
          <ErrorMessage error={signOut.error} />
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Page key={`${route.name}/${route.param ?? ''}`} route={route} />
      </main>
    </SessionContext.Provider>
  );
}
