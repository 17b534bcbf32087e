/** How numbers, sizes and dates read on every page. */

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '–';
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(value < 10 ? 2 : 1)} ${UNITS[unit]}`;
}

/** "42.1 % smaller" or "3.0 % larger": how the output's size compares with the input's. */
export function formatSaving(inputBytes: number | undefined, outputBytes: number | undefined): string {
  if (!inputBytes || outputBytes === undefined) return '–';
  const change = ((outputBytes - inputBytes) / inputBytes) * 100;
  if (Math.abs(change) < 0.05) return 'same size';
  return `${Math.abs(change).toFixed(1)} % ${change < 0 ? 'smaller' : 'larger'}`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatNumber(value: number | undefined): string {
  return value === undefined ? '–' : value.toLocaleString();
}

/** Seconds between two timestamps, "–" when one is missing. */
export function formatDuration(from: string | undefined, to: string | undefined): string {
  if (!from || !to) return '–';
  const ms = new Date(to).getTime() - new Date(from).getTime();
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s` : '–';
}
