/**
 * `#/connectors`: the account's store connectors (masked hints only: credentials never come back), a form
 * per store kind, a test that shows the provider's reason when the probe fails, and delete.
 */
import { useState } from 'preact/hooks';
import { api, type Connector } from '../api.ts';
import { ErrorMessage, Loading, PageTitle, useAction, useLoad } from '../components/ui.tsx';
import { credentialsOf, STORE_KINDS } from '../connector-kinds.ts';
import { formatDate } from '../format.ts';
import { canManage, useSession } from '../session.ts';

function CreateConnector({ onCreated }: { onCreated: () => void }) {
  const [kindName, setKindName] = useState('s3');
  const [values, setValues] = useState<Record<string, string>>({});
  const { busy, error, run } = useAction();
  const kind = STORE_KINDS.find((k) => k.kind === kindName) ?? STORE_KINDS[0]!;
  const input = (
    name: string,
    label: string,
    opts: { secret?: boolean; optional?: boolean; multiline?: boolean } = {},
  ) => {
    const id = `c-${name}`;
    const common = {
      id,
      required: !opts.optional,
      autocomplete: 'off',
      value: values[name] ?? '',
      onInput: (e: Event) => setValues({ ...values, [name]: (e.currentTarget as HTMLInputElement).value }),
    };
    return (
      <div class="field" key={`${kind.kind}-${name}`}>
        <label for={id}>
          {label}
          {opts.optional ? ' (optional)' : ''}
        </label>
        {opts.multiline ? (
          <textarea rows={5} spellcheck={false} {...common} />
        ) : opts.secret ? (
          <input type="password" {...common} />
        ) : (
          <input type="text" {...common} />
        )}
      </div>
    );
  };
  return (
    <form
      class="card stack"
      aria-labelledby="create-connector-title"
      onSubmit={(e) => {
        e.preventDefault();
        void run(async () => {
          await api.connectors.create({
            kind: kind.kind,
            ...(values.name ? { name: values.name } : {}),
            credentials: credentialsOf(kind, values),
            bucket: values.bucket ?? '',
            ...(kind.region === 'required' && values.region ? { region: values.region } : {}),
          });
          setValues({});
          onCreated();
        });
      }}
    >
      <h2 id="create-connector-title">Add a connector</h2>
      <p class="muted">
        The service writes and deletes a probe object in the bucket before it keeps the connector. Credentials
        are encrypted at rest and never shown again.
      </p>
      <div class="field">
        <label for="c-kind">Store</label>
        <select id="c-kind" value={kind.kind} onChange={(e) => setKindName(e.currentTarget.value)}>
          {STORE_KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
      </div>
      {input('name', 'Name', { optional: true })}
      {kind.fields.map((f) => input(f.name, f.label, f))}
      {input('bucket', kind.kind === 'azure' ? 'Container for the probe' : 'Bucket for the probe')}
      {kind.region === 'required' && input('region', 'Region')}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Checking the store…' : 'Check and save'}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

function ConnectorRow({
  connector,
  manage,
  onDeleted,
}: {
  connector: Connector;
  manage: boolean;
  onDeleted: () => void;
}) {
  const [bucket, setBucket] = useState('');
  const [region, setRegion] = useState('');
  const [result, setResult] = useState('');
  const test = useAction();
  const remove = useAction();
  const needsRegion = STORE_KINDS.find((k) => k.kind === connector.kind)?.region === 'required';
  const id = `t-${connector.id}`;
  return (
    <li class="card">
      <div class="result-head">
        <strong>{connector.name}</strong> <span class="badge">{connector.kind}</span>{' '}
        <span class="mono small">{connector.id}</span>
      </div>
      <p class="small muted">
        Credentials {connector.hint} · added {formatDate(connector.createdAt)}
      </p>
      <form
        class="inline"
        aria-label={`Test connector ${connector.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          setResult('');
          void test.run(async () => {
            await api.connectors.test(connector.id, bucket, needsRegion ? region : undefined);
            setResult('The probe object was written and deleted: the connector works.');
          });
        }}
      >
        <label for={`${id}-bucket`}>Bucket</label>
        <input
          id={`${id}-bucket`}
          required
          value={bucket}
          onInput={(e) => setBucket(e.currentTarget.value)}
        />
        {needsRegion && (
          <>
            <label for={`${id}-region`}>Region</label>
            <input
              id={`${id}-region`}
              required
              value={region}
              onInput={(e) => setRegion(e.currentTarget.value)}
            />
          </>
        )}
        <button type="submit" disabled={test.busy}>
          {test.busy ? 'Testing…' : 'Test'}
        </button>
        {manage && (
          <button
            type="button"
            class="danger"
            disabled={remove.busy}
            onClick={() => {
              if (!confirm(`Delete the connector "${connector.name}"?`)) return;
              void remove.run(async () => {
                await api.connectors.remove(connector.id);
                onDeleted();
              });
            }}
          >
            Delete
          </button>
        )}
      </form>
      <p role="status" class="ok">
        {result}
      </p>
      <ErrorMessage error={test.error ?? remove.error} />
    </li>
  );
}

export function ConnectorsPage() {
  const { session } = useSession();
  const manage = canManage(session.user.role);
  const list = useLoad(() => api.connectors.list());
  return (
    <>
      <PageTitle>Connectors</PageTitle>
      {manage ? (
        <CreateConnector onCreated={list.reload} />
      ) : (
        <p class="muted">Members see the connectors; an owner adds and deletes them.</p>
      )}
      {list.loading && <Loading what="connectors" />}
      <ErrorMessage error={list.error} />
      {list.data &&
        (list.data.connectors.length === 0 ? (
          <p class="muted">No connector yet.</p>
        ) : (
          <ul class="connectors">
            {list.data.connectors.map((c) => (
              <ConnectorRow key={c.id} connector={c} manage={manage} onDeleted={list.reload} />
            ))}
          </ul>
        ))}
    </>
  );
}
