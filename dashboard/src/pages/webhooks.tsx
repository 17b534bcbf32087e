/** `#/webhooks`: the signing secret (hint; rotate shows the new one once) and deliveries across jobs. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { DeliveryList } from '../components/deliveries.tsx';
import { ErrorMessage, Loading, PageTitle, ShownOnce, useAction, useLoad } from '../components/ui.tsx';
import { formatDate } from '../format.ts';
import { canManage, useSession } from '../session.ts';

function SigningSecret() {
  const { session } = useSession();
  const state = useLoad(() => api.webhookSecret.get());
  const [rotated, setRotated] = useState<
    { secret: string; previousValidUntil?: string | null } | undefined
  >();
  const rotate = useAction();
  return (
    <section class="card" aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      <p>
        Every delivery is signed (Standard Webhooks, <code>webhook-signature</code>). After a rotation both
        the old and the new secret sign until the grace period ends, so receivers can switch without losing
        one.
      </p>
      {state.loading && <Loading what="the secret" />}
      <ErrorMessage error={state.error} />
      {state.data && (
        <dl class="pairs">
          <dt>Secret</dt>
          <dd class="mono">{state.data.hint}</dd>
          <dt>Rotated</dt>
          <dd>{formatDate(state.data.rotatedAt)}</dd>
          {state.data.previousValidUntil && (
            <>
              <dt>Previous secret valid until</dt>
              <dd>{formatDate(state.data.previousValidUntil)}</dd>
            </>
          )}
        </dl>
      )}
      {rotated && <ShownOnce label="New signing secret" secret={rotated.secret} />}
      {canManage(session.user.role) && (
        <button
          type="button"
          disabled={rotate.busy}
          onClick={() => {
            if (!confirm('Rotate the signing secret? The old one keeps signing during the grace period.'))
              return;
            void rotate.run(async () => {
              setRotated(await api.webhookSecret.rotate());
              state.reload();
            });
          }}
        >
          Rotate the secret
        </button>
      )}
      <ErrorMessage error={rotate.error} />
    </section>
  );
}

export function WebhooksPage() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const deliveries = useLoad(() => api.webhooks.list({ cursor, limit: 20 }), [cursor]);
  return (
    <>
      <PageTitle>Webhooks</PageTitle>
      <SigningSecret />
      <section aria-labelledby="all-deliveries-title">
        <h2 id="all-deliveries-title">Deliveries</h2>
        {deliveries.loading && <Loading what="deliveries" />}
        <ErrorMessage error={deliveries.error} />
        {deliveries.data && (
          <DeliveryList deliveries={deliveries.data.deliveries} onReplayed={deliveries.reload} />
        )}
        <nav class="pager" aria-label="Pages of deliveries">
          <button
            type="button"
            disabled={cursors.length === 0}
            onClick={() => setCursors(cursors.slice(0, -1))}
          >
            Newer
          </button>
          <button
            type="button"
            disabled={!deliveries.data?.nextCursor}
            onClick={() =>
              deliveries.data?.nextCursor && setCursors([...cursors, deliveries.data.nextCursor])
            }
          >
            Older
          </button>
        </nav>
      </section>
    </>
  );
}
