/** `#/jobs`: the account's jobs, newest first, filtered by status, kind, dates, size and text; paged. */
import { useState } from 'preact/hooks';
import { api, type JobFilters } from '../api.ts';
import { JobTable } from '../components/job-table.tsx';
import { ErrorMessage, Loading, PageTitle, useLoad } from '../components/ui.tsx';

const STATUSES = ['enqueued', 'processing', 'completed', 'failed'];
const KINDS = ['image', 'video', 'audio', 'pdf', 'document', 'archive', 'bundle'];
const PAGE = 25;

type Draft = Required<Pick<JobFilters, 'status' | 'kind' | 'since' | 'until' | 'minSize' | 'maxSize' | 'q'>>;
const EMPTY: Draft = { status: '', kind: '', since: '', until: '', minSize: '', maxSize: '', q: '' };

/** Dates typed as days become the ISO instants the API takes (`until` includes its whole day). */
function toQuery(draft: Draft): JobFilters {
  const day = (value: string, end: boolean) =>
    value ? new Date(`${value}T${end ? '23:59:59.999' : '00:00:00'}`).toISOString() : '';
  return { ...draft, since: day(draft.since, false), until: day(draft.until, true) };
}

export function JobsPage() {
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [filters, setFilters] = useState<JobFilters>({});
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const page = useLoad(() => api.jobs.list({ ...filters, cursor, limit: PAGE }), [filters, cursor]);
  const field = (
    name: keyof Draft,
    label: string,
    type: 'text' | 'search' | 'date' | 'number' = 'text',
    extra: Record<string, unknown> = {},
  ) => (
    <div class="field">
      <label for={`f-${name}`}>{label}</label>
      <input
        id={`f-${name}`}
        // Preact types each input type's attributes apart; every type here takes a text value.
        type={type as 'text'}
        value={draft[name]}
        onInput={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
        {...extra}
      />
    </div>
  );
  const select = (name: 'status' | 'kind', label: string, options: string[]) => (
    <div class="field">
      <label for={`f-${name}`}>{label}</label>
      <select
        id={`f-${name}`}
        value={draft[name]}
        onChange={(e) => setDraft({ ...draft, [name]: e.currentTarget.value })}
      >
        <option value="">Any</option>
        {options.map((o) => (
          <option key={o}>{o}</option>
        ))}
      </select>
    </div>
  );
  return (
    <>
      <PageTitle>Jobs</PageTitle>
      <form
        class="filters card"
        aria-label="Filter jobs"
        onSubmit={(e) => {
          e.preventDefault();
          setCursors([]);
          setFilters(toQuery(draft));
        }}
      >
        {field('q', 'Job id or file name', 'search')}
        {select('status', 'Status', STATUSES)}
        {select('kind', 'Kind', KINDS)}
        {field('since', 'From day', 'date')}
        {field('until', 'To day', 'date')}
        {field('minSize', 'Min input bytes', 'number', { min: 0 })}
        {field('maxSize', 'Max input bytes', 'number', { min: 0 })}
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          <button
            type="button"
            onClick={() => {
              setDraft(EMPTY);
              setCursors([]);
              setFilters({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      {page.loading && <Loading what="jobs" />}
      <ErrorMessage error={page.error} />
      {page.data && <JobTable jobs={page.data.jobs} caption={`Jobs, page ${cursors.length + 1}`} />}
      <nav class="pager" aria-label="Pages of jobs">
        <button
          type="button"
          disabled={cursors.length === 0}
          onClick={() => setCursors(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <button
          type="button"
          disabled={!page.data?.nextCursor}
          onClick={() => page.data?.nextCursor && setCursors([...cursors, page.data.nextCursor])}
        >
          Older
        </button>
      </nav>
    </>
  );
}
