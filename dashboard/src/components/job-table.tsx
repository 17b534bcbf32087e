/** A list of jobs as a table: id (link to its page), file, kind, status, sizes, saving, when. */
import type { Job } from '../api.ts';
import { formatBytes, formatDate, formatSaving } from '../format.ts';
import { StatusBadge } from './ui.tsx';

export function JobTable({ jobs, caption }: { jobs: Job[]; caption: string }) {
  if (jobs.length === 0) return <p class="muted">{caption}: none.</p>;
  return (
    <div class="scroll">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">File</th>
            <th scope="col">Kind</th>
            <th scope="col">Status</th>
            <th scope="col">Input</th>
            <th scope="col">Output</th>
            <th scope="col">Size change</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.id}>
              <td>
                <a href={`#/jobs/${encodeURIComponent(job.id)}`}>{job.id.slice(0, 8)}</a>
              </td>
              <td class="wrap">{job.input?.name ?? '–'}</td>
              <td>{job.input?.type ?? '–'}</td>
              <td>
                <StatusBadge status={job.status} />
                {job.status === 'failed' && job.message ? <div class="muted small">{job.message}</div> : null}
              </td>
              <td>{formatBytes(job.input?.size)}</td>
              <td>{formatBytes(job.output?.size)}</td>
              <td>{formatSaving(job.input?.size, job.output?.size)}</td>
              <td>{formatDate(job.createdAt ?? job.queuedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
