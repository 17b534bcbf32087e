/**
 * The operator's fleet (GET /1.0/operator/overview): queue depth per lane, the workers with the jobs each is
 * running (every process's, named host:pid:slot), jobs and webhooks finished since the answering process
 * started (its Prometheus counters), and the data disk.
 */
import { api, type OperatorOverview } from '../api.ts';
import { formatBytes, formatDate, formatNumber } from '../format.ts';
import { ErrorMessage, Loading, ScrollArea, useLoad } from './ui.tsx';

function Queue({ overview }: { overview: OperatorOverview }) {
  const configured = new Map(overview.workers.map((w) => [w.lane, w.workers]));
  return (
    <div class="card">
      <h3>Queue by lane</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Lane</th>
            <th scope="col">Waiting</th>
            <th scope="col">Running</th>
            <th scope="col">Workers here</th>
          </tr>
        </thead>
        <tbody>
          {overview.queue.lanes.map((lane) => (
            <tr key={lane.lane}>
              <th scope="row">{lane.lane}</th>
              <td>{lane.waiting}</td>
              <td>{lane.running}</td>
              <td>{configured.get(lane.lane) ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Workers({ overview, names }: { overview: OperatorOverview; names: Map<string, string> }) {
  return (
    <section class="card" aria-labelledby="workers-title">
      <h3 id="workers-title">Workers and their jobs</h3>
      {overview.running.length === 0 ? (
        <p class="muted">No job is running.</p>
      ) : (
        <ul class="workers">
          {overview.running.map((group) => (
            <li key={group.worker}>
              <h4 class="mono wrap">{group.worker}</h4>
              <ScrollArea label={`Jobs on ${group.worker}`}>
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Job</th>
                      <th scope="col">Account</th>
                      <th scope="col">Kind</th>
                      <th scope="col">File</th>
                      <th scope="col">Started</th>
                      <th scope="col">Progress</th>
                    </tr>
                  </thead>
                  <tbody>
                    {group.jobs.map((job) => (
                      <tr key={job.id}>
                        <td class="mono small">{job.id.slice(0, 8)}</td>
                        <td>{names.get(job.accountId) ?? job.accountId}</td>
                        <td>{job.kind ?? '–'}</td>
                        <td class="wrap">{job.name ?? '–'}</td>
                        <td>{formatDate(job.startedAt)}</td>
                        <td>{job.progress === undefined ? '–' : `${job.progress} %`}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollArea>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Totals({ overview }: { overview: OperatorOverview }) {
  const kinds = [...new Set(overview.jobs.map((j) => j.kind))].sort();
  const count = (kind: string, status: string) =>
    overview.jobs.find((j) => j.kind === kind && j.status === status)?.count ?? 0;
  return (
    <section class="card" aria-labelledby="throughput-title">
      <h3 id="throughput-title">Throughput and failures since this process started</h3>
      {kinds.length === 0 ? (
        <p class="muted">No job has finished yet.</p>
      ) : (
        <ScrollArea label="Jobs finished by kind">
          <table>
            <thead>
              <tr>
                <th scope="col">Kind</th>
                <th scope="col">Completed</th>
                <th scope="col">Failed</th>
              </tr>
            </thead>
            <tbody>
              {kinds.map((kind) => (
                <tr key={kind}>
                  <th scope="row">{kind}</th>
                  <td>{formatNumber(count(kind, 'completed'))}</td>
                  <td>{formatNumber(count(kind, 'failed'))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
      )}
      <p>
        Webhook deliveries:{' '}
        {overview.webhooks.length === 0
          ? 'none yet'
          : overview.webhooks.map((w) => `${w.outcome} ${formatNumber(w.count)}`).join(' · ')}
      </p>
    </section>
  );
}

export function Fleet({ names }: { names: Map<string, string> }) {
  const overview = useLoad(() => api.operator.overview());
  if (overview.loading && !overview.data) return <Loading what="the fleet" />;
  if (!overview.data) return <ErrorMessage error={overview.error} />;
  const { disk } = overview.data;
  return (
    <section aria-labelledby="fleet-title">
      <h2 id="fleet-title">Fleet</h2>
      <p>
        <button type="button" onClick={overview.reload}>
          Refresh the fleet
        </button>
      </p>
      <div class="two">
        <Queue overview={overview.data} />
        <div class="card">
          <h3>Disk</h3>
          <p>
            {formatBytes(disk.free)} free of {formatBytes(disk.total)}
            {disk.low ? ' (low: new work is refused)' : ''}
          </p>
          <meter min={0} max={disk.total} value={disk.total - disk.free} aria-label="Disk used">
            {formatBytes(disk.total - disk.free)} used
          </meter>
        </div>
      </div>
      <Workers overview={overview.data} names={names} />
      <Totals overview={overview.data} />
    </section>
  );
}
