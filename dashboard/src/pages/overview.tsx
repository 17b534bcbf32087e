/** `#/overview`: usage by day and by kind, the rate-limit window, recent jobs and failures. */
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { BarChart } from '../components/bar-chart.tsx';
import { JobTable } from '../components/job-table.tsx';
import { ErrorMessage, Loading, PageTitle, useLoad } from '../components/ui.tsx';
import { formatBytes, formatNumber } from '../format.ts';
import { dayLabels, seriesByKind, seriesByMetric, totals } from '../usage.ts';

const PERIODS = [7, 30, 90];

function RateLimit() {
  const account = useLoad(() => api.account());
  if (account.loading) return <Loading what="the rate limit" />;
  if (!account.data) return <ErrorMessage error={account.error} />;
  const { limit, remaining, reset, windowSeconds } = account.data.rateLimit;
  return (
    <section aria-labelledby="rate-title" class="card">
      <h2 id="rate-title">Rate limit</h2>
      <p>
        {formatNumber(remaining)} of {formatNumber(limit)} requests left in the rolling{' '}
        {Math.round(windowSeconds / 60)}-minute window; capacity frees in {reset} s.
      </p>
      <meter min={0} max={limit} value={limit - remaining} aria-label="Requests used in the window">
        {limit - remaining} used
      </meter>
    </section>
  );
}

export function OverviewPage() {
  const [days, setDays] = useState(30);
  const usage = useLoad(() => api.usage(days), [days]);
  const recent = useLoad(() => api.jobs.list({ limit: 10 }));
  const failures = useLoad(() => api.jobs.list({ status: 'failed', limit: 5 }));
  const labels = dayLabels(new Date(), days);
  const rows = usage.data?.days ?? [];
  const sum = totals(rows);
  return (
    <>
      <PageTitle>Overview</PageTitle>
      <RateLimit />
      <section aria-labelledby="usage-title">
        <h2 id="usage-title">Usage</h2>
        <label for="period">Period</label>{' '}
        <select id="period" value={days} onChange={(e) => setDays(Number(e.currentTarget.value))}>
          {PERIODS.map((p) => (
            <option key={p} value={p}>
              Last {p} days
            </option>
          ))}
        </select>
        {usage.loading && <Loading what="usage" />}
        <ErrorMessage error={usage.error} />
        {usage.data && (
          <>
            <dl class="totals">
              <div>
                <dt>Requests</dt>
                <dd>{formatNumber(sum.requests)}</dd>
              </div>
              <div>
                <dt>Jobs</dt>
                <dd>{formatNumber(sum.jobs)}</dd>
              </div>
              <div>
                <dt>Failures</dt>
                <dd>{formatNumber(sum.failures)}</dd>
              </div>
              <div>
                <dt>Bytes in</dt>
                <dd>{formatBytes(sum.bytesIn)}</dd>
              </div>
              <div>
                <dt>Bytes out</dt>
                <dd>{formatBytes(sum.bytesOut)}</dd>
              </div>
              <div>
                <dt>Saved</dt>
                <dd>{formatBytes(sum.bytesSaved)}</dd>
              </div>
            </dl>
            <div class="charts">
              <BarChart
                title="Requests by day and kind"
                labels={labels}
                series={seriesByKind(rows, labels, 'requests')}
                format={(v) => formatNumber(Math.round(v))}
              />
              <BarChart
                title="Jobs by day and kind"
                labels={labels}
                series={seriesByKind(rows, labels, 'jobs')}
                format={(v) => formatNumber(Math.round(v))}
              />
              <BarChart
                title="Bytes out and saved by day"
                labels={labels}
                series={seriesByMetric(rows, labels, [
                  ['bytesOut', 'bytes out'],
                  ['bytesSaved', 'bytes saved'],
                ])}
                format={formatBytes}
              />
              <BarChart
                title="Failures by day and kind"
                labels={labels}
                series={seriesByKind(rows, labels, 'failures')}
                format={(v) => formatNumber(Math.round(v))}
              />
            </div>
          </>
        )}
      </section>
      <section aria-labelledby="recent-title">
        <h2 id="recent-title">Recent jobs</h2>
        <ErrorMessage error={recent.error} />
        {recent.data && <JobTable jobs={recent.data.jobs} caption="The last 10 jobs" />}
        <p>
          <a href="#/jobs">All jobs</a>
        </p>
      </section>
      <section aria-labelledby="failures-title">
        <h2 id="failures-title">Failures</h2>
        <ErrorMessage error={failures.error} />
        {failures.data && <JobTable jobs={failures.data.jobs} caption="The last 5 failed jobs" />}
      </section>
    </>
  );
}
