/** `#/jobs/:id`: one job's descriptors, timings, steps, failure, download and webhook deliveries. */
import { api, type FileDescriptor } from '../api.ts';
import { DeliveryList } from '../components/deliveries.tsx';
import { ErrorMessage, Loading, PageTitle, StatusBadge, useLoad } from '../components/ui.tsx';
import { formatBytes, formatDate, formatDuration, formatSaving } from '../format.ts';

function Descriptor({ title, file }: { title: string; file: FileDescriptor | undefined }) {
  return (
    <section class="card" aria-label={title}>
      <h2>{title}</h2>
      {file ? (
        <dl class="pairs">
          <dt>Name</dt>
          <dd class="wrap">{file.name}</dd>
          <dt>Kind</dt>
          <dd>{file.type}</dd>
          <dt>Format</dt>
          <dd>
            {file.format} ({file.mime})
          </dd>
          <dt>Size</dt>
          <dd>{formatBytes(file.size)}</dd>
          <dt>SHA-1</dt>
          <dd class="wrap mono">{file.sha1}</dd>
        </dl>
      ) : (
        <p class="muted">Not available.</p>
      )}
    </section>
  );
}

export function JobPage({ id }: { id: string }) {
  const job = useLoad(() => api.jobs.get(id), [id]);
  const deliveries = useLoad(() => api.webhooks.list({ job: id }), [id]);
  const data = job.data;
  return (
    <>
      <PageTitle>Job {id.slice(0, 8)}</PageTitle>
      <p>
        <a href="#/jobs">Back to jobs</a>
      </p>
      {job.loading && <Loading what="the job" />}
      <ErrorMessage error={job.error} />
      {data && (
        <>
          <p>
            <StatusBadge status={data.status} /> <span class="mono small">{data.id}</span>
            {data.progress !== undefined && data.status === 'processing' ? ` · ${data.progress} %` : ''}
          </p>
          {data.status === 'failed' && (
            <p class="error" role="alert">
              {data.message ?? 'The job failed.'}
            </p>
          )}
          {data.status === 'completed' && (
            <p>
              Output {formatSaving(data.input?.size, data.output?.size)}.{' '}
              {data.url && (
                <a href={data.url} download={data.output?.name}>
                  Download the output
                </a>
              )}
            </p>
          )}
          <div class="two">
            <Descriptor title="Input" file={data.input} />
            <Descriptor title="Output" file={data.output} />
          </div>
          <section class="card" aria-labelledby="timings-title">
            <h2 id="timings-title">Timings</h2>
            <dl class="pairs">
              <dt>Queued</dt>
              <dd>{formatDate(data.queuedAt ?? data.createdAt)}</dd>
              <dt>Started</dt>
              <dd>{formatDate(data.startedAt)}</dd>
              <dt>Finished</dt>
              <dd>{formatDate(data.finishedAt)}</dd>
              <dt>Waited</dt>
              <dd>{formatDuration(data.queuedAt ?? data.createdAt, data.startedAt)}</dd>
              <dt>Ran</dt>
              <dd>{formatDuration(data.startedAt, data.finishedAt)}</dd>
            </dl>
          </section>
          <section aria-labelledby="steps-title">
            <h2 id="steps-title">Steps</h2>
            {data.steps && data.steps.length > 0 ? (
              <ol class="steps">
                {data.steps.map((step, i) => (
                  <li key={`${step.name}-${i}`}>
                    <strong>{step.name}</strong> <StatusBadge status={step.outcome ?? 'running'} />{' '}
                    <span class="muted small">{formatDuration(step.startedAt, step.finishedAt)}</span>
                  </li>
                ))}
              </ol>
            ) : (
              <p class="muted">No steps recorded for this job.</p>
            )}
          </section>
        </>
      )}
      <section aria-labelledby="deliveries-title">
        <h2 id="deliveries-title">Webhook deliveries</h2>
        <ErrorMessage error={deliveries.error} />
        {deliveries.data && (
          <DeliveryList deliveries={deliveries.data.deliveries} onReplayed={deliveries.reload} />
        )}
      </section>
    </>
  );
}
