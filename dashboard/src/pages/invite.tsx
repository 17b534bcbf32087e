/** `#/invite/:token`: who the invitation is for, then a password; accepting it signs the new user in. */
import { useState } from 'preact/hooks';
import { api, type Session } from '../api.ts';
import { ErrorMessage, Loading, PageTitle, useAction, useLoad } from '../components/ui.tsx';

/** The shortest password accepted here; the server decides finally. */
const MIN_PASSWORD = 12;

export function InvitePage({ token, onSignedIn }: { token: string; onSignedIn: (s: Session) => void }) {
  const invite = useLoad(() => api.invites.get(token), [token]);
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const { busy, error, run } = useAction();
  const mismatch = confirm !== '' && confirm !== password;
  const submit = (event: Event) => {
    event.preventDefault();
    if (mismatch) return;
    void run(async () => onSignedIn(await api.invites.accept(token, password)));
  };
  return (
    <main id="main" class="narrow">
      <PageTitle>Accept your invitation</PageTitle>
      {invite.loading && <Loading what="the invitation" />}
      <ErrorMessage error={invite.error} />
      {invite.data && (
        <form onSubmit={submit} class="stack">
          <p>
            <strong>{invite.data.email}</strong> is invited to <strong>{invite.data.accountName}</strong> as{' '}
            {invite.data.role}. Choose a password of at least {MIN_PASSWORD} characters.
          </p>
          <label for="new-password">Password</label>
          <input
            id="new-password"
            type="password"
            autocomplete="new-password"
            minLength={MIN_PASSWORD}
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <label for="confirm-password">Password again</label>
          <input
            id="confirm-password"
            type="password"
            autocomplete="new-password"
            required
            aria-invalid={mismatch}
            aria-describedby="confirm-help"
            value={confirm}
            onInput={(e) => setConfirm(e.currentTarget.value)}
          />
          <p id="confirm-help" class={mismatch ? 'error' : 'muted'}>
            {mismatch ? 'The two passwords differ.' : 'Type the same password twice.'}
          </p>
          <button type="submit" class="primary" disabled={busy || mismatch}>
            Create my user and sign in
          </button>
          <ErrorMessage error={error} />
        </form>
      )}
    </main>
  );
}
