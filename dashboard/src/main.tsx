/** The dashboard's entry: the session decides between the sign-in page and the signed-in pages. */
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type Session, setCsrfToken } from './api.ts';
import { ErrorMessage } from './components/ui.tsx';
import { InvitePage } from './pages/invite.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { navigate, useRoute } from './router.ts';
import { Shell } from './shell.tsx';

type SessionState = { state: 'checking' } | { state: 'out' } | { state: 'in'; session: Session };

function App() {
  const route = useRoute();
  const [session, setSession] = useState<SessionState>({ state: 'checking' });
  const [error, setError] = useState<unknown>(undefined);

  useEffect(() => {
    api.session.get().then(
      (current) => {
        setCsrfToken(current.csrfToken);
        setSession({ state: 'in', session: current });
      },
      (failure: unknown) => {
        if (!(failure instanceof ApiError && failure.status === 401)) setError(failure);
        setSession({ state: 'out' });
      },
    );
  }, []);

  const signedIn = (current: Session) => {
    setCsrfToken(current.csrfToken);
    setSession({ state: 'in', session: current });
    if (route.name === 'sign-in' || route.name === 'invite') navigate('overview');
  };
  const signedOut = () => {
    setCsrfToken('');
    setSession({ state: 'out' });
    navigate('sign-in');
  };

  if (route.name === 'invite' && route.param) return <InvitePage token={route.param} onSignedIn={signedIn} />;
  if (session.state === 'checking') {
    return (
      <main id="main" class="narrow">
        <p role="status">Checking your session…</p>
      </main>
    );
  }
  if (session.state === 'out') {
    return (
      <>
        <ErrorMessage error={error} />
        <SignInPage onSignedIn={signedIn} />
      </>
    );
  }
  return <Shell route={route} session={session.session} onSignedOut={signedOut} />;
}

const root = document.getElementById('app')!;
// The "Loading…" placeholder of index.html goes: render() adds to the container, it does not replace it.
root.replaceChildren();
render(<App />, root);
