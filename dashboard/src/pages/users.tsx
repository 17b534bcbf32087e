/**
 * `#/users`: the account's dashboard users with their role and last sign-in. Owners and operators change a role,
 * remove a user, and invite someone with a one-time link (shown once, to copy and send); members only read. Only
 * an operator gives or takes away the operator role; the server checks all of it too.
 */
import { useState } from 'preact/hooks';
import { api, type DashboardUserRow, type Role } from '../api.ts';
import {
  ErrorMessage,
  Loading,
  PageTitle,
  ScrollArea,
  ShownOnce,
  useAction,
  useLoad,
} from '../components/ui.tsx';
import { formatDate } from '../format.ts';
import { canManage, useSession } from '../session.ts';

function rolesFor(actor: Role): Role[] {
  return actor === 'operator' ? ['member', 'owner', 'operator'] : ['member', 'owner'];
}

function Invite({ actor, onInvited }: { actor: Role; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState<{ url: string; expiresAt: string } | undefined>(undefined);
  const { busy, error, run } = useAction();
  return (
    <form
      class="card stack"
      aria-labelledby="invite-title"
      onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          const invite = await api.invites.create(email, role);
          setLink({ url: invite.url, expiresAt: invite.expiresAt });
          setEmail('');
          onInvited();
        });
      }}
    >
      <h2 id="invite-title">Invite a user</h2>
      <div class="field">
        <label for="invite-email">Email</label>
        <input
          id="invite-email"
          type="email"
          required
          autocomplete="off"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </div>
      <div class="field">
        <label for="invite-role">Role</label>
        <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
          {rolesFor(actor).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </div>
      <button type="submit" class="primary" disabled={busy}>
        Create the invitation link
      </button>
      <ErrorMessage error={error} />
      {link && (
        <>
          <ShownOnce label="Invitation link" secret={link.url} />
          <p class="small muted">It works once, until {formatDate(link.expiresAt)}.</p>
        </>
      )}
    </form>
  );
}

function UserRow(props: { user: DashboardUserRow; actor: Role; self: boolean; onChanged: () => void }) {
  const { user, actor, self, onChanged } = props;
  const change = useAction();
  // The operator role is an operator's to give or take away; an owner sees it but cannot change it.
  const locked = self || !canManage(actor) || (user.role === 'operator' && actor !== 'operator');
  const id = `role-${user.id}`;
  return (
    <tr>
      <th scope="row" class="wrap">
        {user.email}
        {self ? ' (you)' : ''}
      </th>
      <td>
        <label for={id} class="visually-hidden">
          Role of {user.email}
        </label>
        <select
          id={id}
          value={user.role}
          disabled={locked || change.busy}
          onChange={(e) => {
            const role = e.currentTarget.value as Role;
            void change.run(async () => {
              await api.users.setRole(user.id, role);
              onChanged();
            });
          }}
        >
          {(locked ? [user.role] : rolesFor(actor)).map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
      </td>
      <td>{formatDate(user.createdAt)}</td>
      <td>{user.lastSignInAt ? formatDate(user.lastSignInAt) : 'never'}</td>
      <td>
        {!locked && (
          <button
            type="button"
            class="danger"
            disabled={change.busy}
            aria-label={`Remove ${user.email}`}
            onClick={() => {
              if (!confirm(`Remove ${user.email}? Their sessions end now.`)) return;
              void change.run(async () => {
                await api.users.remove(user.id);
                onChanged();
              });
            }}
          >
            Remove
          </button>
        )}
        <ErrorMessage error={change.error} />
      </td>
    </tr>
  );
}

export function UsersPage() {
  const { session } = useSession();
  const actor = session.user.role;
  const manage = canManage(actor);
  const users = useLoad(() => api.users.list());
  return (
    <>
      <PageTitle>Users</PageTitle>
      {manage ? (
        <Invite actor={actor} onInvited={users.reload} />
      ) : (
        <p class="muted">Members see the users; an owner invites, changes roles and removes.</p>
      )}
      {users.loading && <Loading what="users" />}
      <ErrorMessage error={users.error} />
      {users.data && (
        <ScrollArea label="Users table">
          <table>
            <caption>Users of {session.account.name}</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Added</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Remove</th>
              </tr>
            </thead>
            <tbody>
              {users.data.users.map((u) => (
                <UserRow
                  key={`${u.id}-${u.role}`}
                  user={u}
                  actor={actor}
                  self={u.id === session.user.id}
                  onChanged={users.reload}
                />
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
    </>
  );
}
