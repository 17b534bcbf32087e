/**
 * `#/operator` (role operator): the fleet (queue, workers and their jobs, throughput and failures, disk) and
 * every account (create, rate limit, disable).
 */
import { useState } from 'preact/hooks';
import { api, type OperatorAccount } from '../api.ts';
import { Fleet } from '../components/fleet.tsx';
import { ErrorMessage, Loading, PageTitle, ShownOnce, useAction, useLoad } from '../components/ui.tsx';
import { formatBytes, formatNumber } from '../format.ts';
import { useSession } from '../session.ts';

function AccountRow({ account, onChanged }: { account: OperatorAccount; onChanged: () => void }) {
  const [limit, setLimit] = useState(String(account.rateLimit));
  const save = useAction();
  const id = `acc-${account.id}`;
  return (
    <tr>
      <td>
        {account.name}
        <div class="mono small">{account.id}</div>
      </td>
      <td>{formatNumber(account.usage?.requests)}</td>
      <td>{formatNumber(account.usage?.jobs)}</td>
      <td>{formatBytes(account.usage?.bytesIn)}</td>
      <td>
        <form
          class="inline"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run(async () => {
              await api.operator.updateAccount(account.id, { rateLimit: Number(limit) });
              onChanged();
            });
          }}
        >
          <label for={`${id}-limit`} class="visually-hidden">
            Rate limit of {account.name}
          </label>
          <input
            id={`${id}-limit`}
            type="number"
            min={1}
            step={1}
            required
            value={limit}
            onInput={(e) => setLimit(e.currentTarget.value)}
          />
          <button type="submit" disabled={save.busy}>
            Save limit
          </button>
        </form>
        <ErrorMessage error={save.error} />
      </td>
      <td>
        <button
          type="button"
          class={account.disabled ? '' : 'danger'}
          disabled={save.busy}
          onClick={() =>
            save.run(async () => {
              await api.operator.updateAccount(account.id, { disabled: !account.disabled });
              onChanged();
            })
          }
        >
          {account.disabled ? `Enable ${account.name}` : `Disable ${account.name}`}
        </button>
      </td>
    </tr>
  );
}

function CreateAccount({ onCreated }: { onCreated: () => void }) {
  const [name, setName] = useState('');
  const [limit, setLimit] = useState('');
  const [owner, setOwner] = useState('');
  const [invite, setInvite] = useState('');
  const { busy, error, run } = useAction();
  return (
    <form
      class="card stack"
      aria-labelledby="new-account-title"
      onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          const created = await api.operator.createAccount({
            name,
            ...(limit ? { rateLimit: Number(limit) } : {}),
            ...(owner ? { ownerEmail: owner } : {}),
          });
          setInvite(created.inviteUrl ?? created.invite?.url ?? '');
          setName('');
          setOwner('');
          setLimit('');
          onCreated();
        });
      }}
    >
      <h2 id="new-account-title">New account</h2>
      <label for="na-name">Name</label>
      <input id="na-name" required value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <label for="na-limit">Rate limit (requests per window; empty: the default)</label>
      <input
        id="na-limit"
        type="number"
        min={1}
        value={limit}
        onInput={(e) => setLimit(e.currentTarget.value)}
      />
      <label for="na-owner">Owner's email (optional: makes an invitation link)</label>
      <input id="na-owner" type="email" value={owner} onInput={(e) => setOwner(e.currentTarget.value)} />
      <button type="submit" class="primary" disabled={busy}>
        Create account
      </button>
      <ErrorMessage error={error} />
      {invite && <ShownOnce label="Invitation link for the owner" secret={invite} />}
    </form>
  );
}

export function OperatorPage() {
  const { session } = useSession();
  const accounts = useLoad(() => api.operator.accounts());
  if (session.user.role !== 'operator') {
    return (
      <>
        <PageTitle>Operator</PageTitle>
        <p>This page is for operators.</p>
      </>
    );
  }
  return (
    <>
      <PageTitle>Operator</PageTitle>
      <Fleet names={new Map((accounts.data?.accounts ?? []).map((a) => [a.id, a.name]))} />
      <CreateAccount onCreated={accounts.reload} />
      <section aria-labelledby="accounts-title">
        <h2 id="accounts-title">Accounts</h2>
        {accounts.loading && <Loading what="accounts" />}
        <ErrorMessage error={accounts.error} />
        {accounts.data && (
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th scope="col">Account</th>
                  <th scope="col">Requests</th>
                  <th scope="col">Jobs</th>
                  <th scope="col">Bytes in</th>
                  <th scope="col">Rate limit</th>
                  <th scope="col">State</th>
                </tr>
              </thead>
              <tbody>
                {accounts.data.accounts.map((a) => (
                  <AccountRow
                    key={`${a.id}-${a.rateLimit}-${a.disabled}`}
                    account={a}
                    onChanged={accounts.reload}
                  />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
