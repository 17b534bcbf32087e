/** Webhook deliveries with every attempt and a replay button (used by the job page and the webhooks page). */
import { api, type Delivery } from '../api.ts';
import { formatDate } from '../format.ts';
import { ErrorMessage, ScrollArea, StatusBadge, useAction } from './ui.tsx';

function DeliveryRow({ delivery, onReplayed }: { delivery: Delivery; onReplayed: () => void }) {
  const replay = useAction();
  const finished = delivery.state === 'succeeded' || delivery.state === 'failed';
  return (
    <li class="card">
      <div class="result-head">
        <StatusBadge status={delivery.state} /> <span class="wrap">{delivery.url}</span>
      </div>
      <p class="small muted">
        Delivery {delivery.id} of job{' '}
        <a href={`#/jobs/${encodeURIComponent(delivery.jobId)}`}>{delivery.jobId.slice(0, 8)}</a>, created{' '}
        {formatDate(delivery.createdAt)}
        {delivery.nextAttemptAt ? `, next attempt ${formatDate(delivery.nextAttemptAt)}` : ''}
      </p>
      {delivery.attempts.length > 0 && (
        <ScrollArea label={`Attempts of delivery ${delivery.id}`}>
          <table>
            <caption class="visually-hidden">Attempts of delivery {delivery.id}</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">At</th>
                <th scope="col">Answer</th>
                <th scope="col">Time</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempts.map((a) => (
                <tr key={a.attempt}>
                  <td>{a.attempt}</td>
                  <td>{formatDate(a.at)}</td>
                  <td>{a.statusCode ?? a.error ?? '–'}</td>
                  <td>{a.durationMs} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
      <button
        type="button"
        disabled={!finished || replay.busy}
        onClick={() =>
          replay.run(async () => {
            await api.webhooks.replay(delivery.id);
            onReplayed();
          })
        }
      >
        Replay delivery
      </button>
      <ErrorMessage error={replay.error} />
    </li>
  );
}

export function DeliveryList({ deliveries, onReplayed }: { deliveries: Delivery[]; onReplayed: () => void }) {
  if (deliveries.length === 0) return <p class="muted">No webhook deliveries.</p>;
  return (
    <ul class="deliveries">
      {deliveries.map((d) => (
        <DeliveryRow key={d.id} delivery={d} onReplayed={onReplayed} />
      ))}
    </ul>
  );
}
