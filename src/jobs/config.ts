/** Jobs: input size limits, the synchronous/asynchronous split, workers, retention and retries. */
import { availableParallelism } from 'node:os';
import { bytes, duration, int, type Loaded, section } from '../config/env.ts';
import { ConfigError } from '../errors/catalog.ts';

const MiB = 1024 * 1024;

export const jobsConfig = section(
  {
    maxInputBytes: bytes('PRESSO_MAX_INPUT_BYTES', { default: 1024 * MiB, doc: 'Largest accepted input' }),
    asyncThresholdBytes: bytes('PRESSO_ASYNC_THRESHOLD_BYTES', {
      default: 32 * MiB,
      doc: 'Inputs larger than this run asynchronously',
    }),
    syncTimeoutMs: duration('PRESSO_SYNC_TIMEOUT', {
      default: 60_000,
      doc: 'Synchronous requests answer 202 after this long',
    }),
    // The documented default is what it depends on, so the README reads the same on every machine.
    workers: int('PRESSO_WORKERS', {
      default: availableParallelism(),
      shown: '(CPU count)',
      min: 0,
      max: 256,
      doc: 'Jobs processed at once by this process (the standard lane: images, PDFs, documents, archives)',
    }),
    mediaWorkers: int('PRESSO_MEDIA_WORKERS', {
      default: 1,
      min: 0,
      max: 64,
      doc: 'Video and audio jobs processed at once by this process, on workers of their own so they never hold the others',
    }),
    retentionMs: duration('PRESSO_JOB_RETENTION', {
      default: 7 * 86_400_000,
      doc: 'How long job records are kept',
    }),
    outputTtlMs: duration('PRESSO_OUTPUT_TTL', {
      default: 2 * 3_600_000,
      doc: 'Lifetime of temporary output URLs and files',
    }),
    eventsHeartbeatMs: duration('PRESSO_EVENTS_HEARTBEAT', {
      default: 15_000,
      doc: 'A quiet job event stream (GET /1.0/jobs/{id}/events) sends a comment this often, so proxies keep it open; at least 1s',
    }),
    maxAttempts: int('PRESSO_JOB_MAX_ATTEMPTS', {
      default: 3,
      min: 1,
      max: 20,
      doc: 'Runs of a job interrupted by crashes before it fails',
    }),
  },
  (v) => {
    if (v.asyncThresholdBytes > v.maxInputBytes) {
      throw new ConfigError('PRESSO_ASYNC_THRESHOLD_BYTES must not exceed PRESSO_MAX_INPUT_BYTES');
    }
    // Each quiet tick reads the job again: a tiny interval would turn every open stream into a busy loop.
    if (v.eventsHeartbeatMs < 1000) throw new ConfigError('PRESSO_EVENTS_HEARTBEAT must be at least 1s');
    return v;
  },
);

export type JobsConfig = Loaded<typeof jobsConfig>;
