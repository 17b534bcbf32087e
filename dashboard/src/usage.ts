/** Turns GET /1.0/usage rows (one per day and kind) into chart series. No DOM: tested under Node. */

export interface UsageRow {
  date: string;
  kind: string;
  requests: number;
  jobs: number;
  failures: number;
  bytesIn: number;
  bytesOut: number;
}

export type UsageMetric = 'requests' | 'jobs' | 'failures' | 'bytesIn' | 'bytesOut' | 'bytesSaved';

const metricOf = (row: UsageRow, metric: UsageMetric): number =>
  metric === 'bytesSaved' ? Math.max(0, row.bytesIn - row.bytesOut) : row[metric];

/** Every day from `days - 1` days before `today` to `today` (YYYY-MM-DD, UTC): days without use show. */
export function dayLabels(today: Date, days: number): string[] {
  const labels: string[] = [];
  for (let back = days - 1; back >= 0; back--) {
    labels.push(new Date(today.getTime() - back * 86_400_000).toISOString().slice(0, 10));
  }
  return labels;
}

/** One series per kind (sorted by name), one value per label. */
export function seriesByKind(rows: UsageRow[], labels: string[], metric: UsageMetric) {
  const index = new Map(labels.map((label, i) => [label, i]));
  const byKind = new Map<string, number[]>();
  for (const row of rows) {
    const i = index.get(row.date.slice(0, 10));
    if (i === undefined) continue;
    let values = byKind.get(row.kind);
    if (!values) {
      values = labels.map(() => 0);
      byKind.set(row.kind, values);
    }
    values[i] = (values[i] ?? 0) + metricOf(row, metric);
  }
  return [...byKind.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, values]) => ({ name, values }));
}

/** Several metrics summed over kinds, one series each (bytes in, out and saved on one chart). */
export function seriesByMetric(rows: UsageRow[], labels: string[], metrics: [UsageMetric, string][]) {
  return metrics.map(([metric, name]) => ({
    name,
    values: labels.map((label) =>
      rows
        .filter((row) => row.date.slice(0, 10) === label)
        .reduce((sum, row) => sum + metricOf(row, metric), 0),
    ),
  }));
}

/** Totals over the period, per metric. */
export function totals(rows: UsageRow[]): Record<UsageMetric, number> {
  const sum = (metric: UsageMetric) => rows.reduce((total, row) => total + metricOf(row, metric), 0);
  return {
    requests: sum('requests'),
    jobs: sum('jobs'),
    failures: sum('failures'),
    bytesIn: sum('bytesIn'),
    bytesOut: sum('bytesOut'),
    bytesSaved: sum('bytesSaved'),
  };
}
