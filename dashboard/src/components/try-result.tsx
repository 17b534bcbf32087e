/** One Try-it file: its upload and job progress, then sizes, saving, before/after and its download. */
import type { Job } from '../api.ts';
import { formatBytes, formatSaving } from '../format.ts';
import type { Values } from '../schema-fields.ts';
import { sameOrigin } from '../try-download.ts';
import { ImageCompare, MediaCompare } from './compare.tsx';
import { ErrorMessage, StatusBadge } from './ui.tsx';

export interface TryItem {
  id: number;
  file: File;
  data: Values;
  phase: 'queued' | 'uploading' | 'processing' | 'done';
  /** Bytes of the upload sent so far. */
  sent: number;
  /** A blob: URL of the local file, the "before" of the comparison. */
  before: string;
  job?: Partial<Job> & { id: string };
  error?: unknown;
}

function Progress({ item }: { item: TryItem }) {
  if (item.phase === 'uploading') {
    const percent = item.file.size ? Math.round((item.sent / item.file.size) * 100) : 0;
    return (
      <div class="progress">
        <progress max={100} value={percent} aria-label={`Uploading ${item.file.name}`} /> Uploading {percent}{' '}
        %
      </div>
    );
  }
  if (item.phase === 'processing') {
    const percent = item.job?.progress;
    return (
      <div class="progress">
        {percent === undefined ? (
          <progress aria-label={`Processing ${item.file.name}`} />
        ) : (
          <progress max={100} value={percent} aria-label={`Processing ${item.file.name}`} />
        )}{' '}
        Processing{percent === undefined ? '' : ` ${percent} %`}
      </div>
    );
  }
  return null;
}

function Preview({ item }: { item: TryItem }) {
  const job = item.job;
  if (job?.status !== 'completed' || !sameOrigin(job.url)) return null;
  const name = item.file.name;
  const inputType = job.input?.type;
  const outputType = job.output?.type;
  if (inputType === 'image' && outputType === 'image') {
    return <ImageCompare before={item.before} after={job.url} name={name} />;
  }
  if ((inputType === 'video' || inputType === 'audio') && outputType === inputType) {
    return <MediaCompare kind={inputType} before={item.before} after={job.url} name={name} />;
  }
  return null;
}

export function TryResult({ item }: { item: TryItem }) {
  const job = item.job;
  const status = job?.status ?? item.phase;
  return (
    <li class="result card">
      <div class="result-head">
        <strong class="wrap">{item.file.name}</strong> <StatusBadge status={status} />{' '}
        {job?.id && (
          <a href={`#/jobs/${encodeURIComponent(job.id)}`} class="small">
            job {job.id.slice(0, 8)}
          </a>
        )}
      </div>
      <Progress item={item} />
      <ErrorMessage error={item.error} />
      {job?.status === 'failed' && (
        <p class="error" role="alert">
          {job.message ?? 'The job failed.'}
        </p>
      )}
      {job?.status === 'completed' && (
        <>
          <dl class="sizes">
            <div>
              <dt>Before</dt>
              <dd>{formatBytes(job.input?.size ?? item.file.size)}</dd>
            </div>
            <div>
              <dt>After</dt>
              <dd>{formatBytes(job.output?.size)}</dd>
            </div>
            <div>
              <dt>Size change</dt>
              <dd class="saving">{formatSaving(job.input?.size ?? item.file.size, job.output?.size)}</dd>
            </div>
            <div>
              <dt>Output</dt>
              <dd>{job.output ? `${job.output.name} (${job.output.format})` : '–'}</dd>
            </div>
          </dl>
          <Preview item={item} />
          {job.url && (
            <p>
              <a href={job.url} download={job.output?.name} class="button">
                Download {job.output?.name ?? 'the output'}
              </a>
            </p>
          )}
        </>
      )}
    </li>
  );
}
