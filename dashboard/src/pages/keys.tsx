/** `#/keys`: the account's API keys; owners create (the key is shown once) and revoke. */
import { useState } from 'preact/hooks';
import { type ApiKey, api, type Scope } from '../api.ts';
import { ErrorMessage, Loading, PageTitle, ShownOnce, useAction, useLoad } from '../components/ui.tsx';
import { formatDate } from '../format.ts';
import { canManage, useSession } from '../session.ts';

const SCOPES: { scope: Scope; label: string }[] = [
  { scope: 'jobs', label: 'jobs: upload, fetch, jobs, account, webhook deliveries' },
  { scope: 'connectors', label: 'connectors: create, test and delete store connectors' },
];

function CreateKey({ onCreated }: { onCreated: (key: ApiKey & { key: string }) => void }) {
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['jobs']);
  const { busy, error, run } = useAction();
  const toggle = (scope: Scope, on: boolean) =>
    setScopes(on ? [...scopes.filter((s) => s !== scope), scope] : scopes.filter((s) => s !== scope));
  return (
    <form
      class="card stack"
      aria-labelledby="create-key-title"
      onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          onCreated(await api.keys.create(name, scopes));
          setName('');
        });
      }}
    >
      <h2 id="create-key-title">Create a key</h2>
      <label for="key-name">Name</label>
      <input
        id="key-name"
        required
        maxLength={200}
        value={name}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <fieldset>
        <legend>Scopes</legend>
        {SCOPES.map(({ scope, label }) => (
          <label key={scope} class="check">
            <input
              type="checkbox"
              checked={scopes.includes(scope)}
              onChange={(e) => toggle(scope, e.currentTarget.checked)}
            />{' '}
            {label}
          </label>
        ))}
      </fieldset>
      <button type="submit" class="primary" disabled={busy || scopes.length === 0}>
        Create key
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

function KeyRow({ apiKey, manage, onRevoked }: { apiKey: ApiKey; manage: boolean; onRevoked: () => void }) {
  const revoke = useAction();
  return (
    <tr>
      <td>{apiKey.name}</td>
      <td class="mono">{apiKey.prefix}…</td>
      <td>{apiKey.scopes.join(', ')}</td>
      <td>{formatDate(apiKey.createdAt)}</td>
      <td>{apiKey.lastUsedAt ? formatDate(apiKey.lastUsedAt) : 'never'}</td>
      <td>
        {apiKey.revokedAt ? (
          `revoked ${formatDate(apiKey.revokedAt)}`
        ) : manage ? (
          <>
            <button
              type="button"
              class="danger"
              disabled={revoke.busy}
              aria-label={`Revoke key ${apiKey.name}`}
              onClick={() => {
                if (!confirm(`Revoke the key "${apiKey.name}"? Requests with it will be refused.`)) return;
                void revoke.run(async () => {
                  await api.keys.revoke(apiKey.id);
                  onRevoked();
                });
              }}
            >
              Revoke
            </button>
            <ErrorMessage error={revoke.error} />
          </>
        ) : (
          'active'
        )}
      </td>
    </tr>
  );
}

export function KeysPage() {
  const { session } = useSession();
  const manage = canManage(session.user.role);
  const keys = useLoad(() => api.keys.list());
  const [created, setCreated] = useState<(ApiKey & { key: string }) | undefined>(undefined);
  return (
    <>
      <PageTitle>API keys</PageTitle>
      {created && <ShownOnce label={`New key "${created.name}"`} secret={created.key} />}
      {manage ? (
        <CreateKey
          onCreated={(key) => {
            setCreated(key);
            keys.reload();
          }}
        />
      ) : (
        <p class="muted">Members see the keys; an owner creates and revokes them.</p>
      )}
      {keys.loading && <Loading what="keys" />}
      <ErrorMessage error={keys.error} />
      {keys.data && (
        <div class="scroll">
          <table>
            <caption>Keys of {session.account.name}</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.keys.map((k) => (
                <KeyRow key={k.id} apiKey={k} manage={manage} onRevoked={keys.reload} />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
