/**
 * Waiting for a job per the interface's polling rules: the first check after 1 to 2 s, then an interval
 * that grows while the job is enqueued or processing, never sooner than the `Retry-After` the server
 * sent; stop at completed or failed. Errors in between are the transport's: network errors and 5xx are
 * retried with jitter, a 429 waits for the rate-limit reset. An AbortSignal stops the wait at once.
 */
import { PressoJobFailedError, retryAfterSeconds } from './errors.ts';
import { sleep, type Transport } from './http.ts';
import type { CompletedJob, JobRecord } from './types.ts';

export interface PollSchedule {
  /** First delay, ms; the actual one is between this and twice this (default 1000: 1 to 2 s). */
  initialDelayMs?: number;
  /** Growth of the interval after each check while the job runs (default 1.5). */
  factor?: number;
  /** Longest interval, ms (default 15 000). */
  maxIntervalMs?: number;
}

/** One planned wait before a check, reported to `onPoll` (for logs, and for tests: no wall clock needed). */
export interface PollStep {
  check: number;
  delayMs: number;
  /** The Retry-After of the previous answer, seconds, if it sent one. */
  retryAfter?: number;
  status?: JobRecord['status'];
}

export interface WaitOptions extends PollSchedule {
  signal?: AbortSignal;
  /** Called with every record while the job runs, and with the final one; `progress` 0-100 when known. */
  onProgress?: (record: JobRecord) => void;
  onPoll?: (step: PollStep) => void;
  /** Source of jitter in [0, 1) (default Math.random). */
  random?: () => number;
}

export async function waitForJob(
  transport: Transport,
  id: string,
  options: WaitOptions = {},
): Promise<CompletedJob> {
  const { initialDelayMs = 1000, factor = 1.5, maxIntervalMs = 15_000, signal } = options;
  const random = options.random ?? Math.random;
  // 1 to 2 s, jittered so a batch of submissions does not poll in lock step; later intervals grow from it.
  let interval = initialDelayMs * (1 + random());
  let delayMs = Math.round(interval);
  let last: { status?: JobRecord['status']; retryAfter?: number } = {};
  for (let check = 1; ; check++) {
    options.onPoll?.({ check, delayMs, ...last });
    await sleep(delayMs, signal);
    const answer = await transport.request<JobRecord>(`/1.0/jobs/${encodeURIComponent(id)}`, { signal });
    const record = answer.body;
    options.onProgress?.(record);
    if (record.status === 'completed') return record as CompletedJob;
    if (record.status === 'failed')
      throw new PressoJobFailedError(record as ConstructorParameters<typeof PressoJobFailedError>[0]);
    interval = Math.min(maxIntervalMs, interval * factor);
    const retryAfter = retryAfterSeconds(answer.headers);
    last = { status: record.status, ...(retryAfter === undefined ? {} : { retryAfter }) };
    // Up to 10 % of jitter above the interval (growth by 1.5 stays larger than it), and never sooner than
    // the server's Retry-After.
    delayMs = Math.round(Math.max((retryAfter ?? 0) * 1000, interval * (1 + random() / 10)));
  }
}
