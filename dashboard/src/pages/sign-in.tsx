/** `#/sign-in`: email and password; the answer is the session (cookie) and its CSRF token. */
import { useState } from 'preact/hooks';
import { api, type Session } from '../api.ts';
import { ErrorMessage, PageTitle, useAction } from '../components/ui.tsx';

export function SignInPage({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void run(async () => onSignedIn(await api.session.signIn(email, password)));
  };
  return (
    <main id="main" class="narrow">
      <PageTitle>Sign in to Presso</PageTitle>
      <form onSubmit={submit} class="stack">
        <label for="email">Email</label>
        <input
          id="email"
          type="email"
          autocomplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorMessage error={error} />
      </form>
      <p class="muted">
        No user yet? An operator creates the first one with <code>presso user create</code>, or an owner sends
        you an invitation link.
      </p>
    </main>
  );
}
