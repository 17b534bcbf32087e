/** Persistent job records. Embedded: SQLite; scaled: PostgreSQL. */
import type { ErrorRecord } from '../errors/catalog.ts';
import type { FileDescriptor, Job, JobOutput, JobStatus, JobStep, ReceivedFile } from './job.ts';
import type { RequestSecrets } from './job-secrets.ts';

export interface NewJob {
  id: string;
  accountId: string;
  source: Job['source'];
  params: Job['params'];
  webhookUrl: string | undefined;
  input: ReceivedFile | undefined;
  /** The request's secrets, kept apart from `params` and `source`: the store keeps them sealed until the job ends. */
  secrets?: RequestSecrets | undefined;
  /** The input's kind when known at submission (an upload's magic bytes). */
  kind?: string | undefined;
}

/** Which of an account's jobs to list; every filter is optional. Times are milliseconds, sizes bytes. */
export interface JobListFilter {
  status?: JobStatus | undefined;
  kind?: string | undefined;
  /** Created at or after. */
  since?: number | undefined;
  /** Created before. */
  until?: number | undefined;
  /** Input size bounds, inclusive (jobs whose input size is not known yet match no bound). */
  minSize?: number | undefined;
  maxSize?: number | undefined;
  /** A plain substring of the id or the input file name (no pattern), case-insensitive for ASCII letters. */
  q?: string | undefined;
}

/** Where the previous page ended: the last job's creation time and id (keyset pagination). */
export interface JobListPosition {
  createdAt: number;
  id: string;
}

export interface JobPage {
  jobs: Job[];
  /** Set when more jobs follow: pass it as `after` for the next page. */
  next: JobListPosition | undefined;
}

/**
 * Every store seals a job's secrets (`NewJob.secrets`, through JobSecretBox) so that no row holds them in
 * plain text, and wipes them when the job ends (`complete`, `fail`): a finished job holds none at all.
 */
export interface JobStore {
  create(job: NewJob): Promise<Job>;
  get(id: string): Promise<Job | undefined>;
  /** An account's jobs, newest first (by creation, then id), `limit` at most, after `after` when given. */
  list(
    accountId: string,
    filter: JobListFilter,
    page: { limit: number; after?: JobListPosition | undefined },
  ): Promise<JobPage>;
  /**
   * Moves an enqueued (or re-run) job to processing, counts the attempt and notes when this run started and
   * which worker (`host:pid:slot`) claimed it.
   */
  markProcessing(id: string, worker?: string): Promise<Job | undefined>;
  /** Every account's processing jobs, the longest running first, `limit` at most (the operator's workers view). */
  listRunning(limit: number): Promise<Job[]>;
  /**
   * Puts a processing job back to enqueued without counting the attempt: the run stopped through no
   * fault of the job (storage ran out), so it must not bring the job closer to failing.
   */
  releaseAttempt(id: string): Promise<void>;
  /** Records how far a processing job has got (0–100); ignored once the job is no longer processing. */
  setProgress(id: string, percent: number): Promise<void>;
  setInput(id: string, input: ReceivedFile & Partial<FileDescriptor>): Promise<void>;
  /** `steps` are the run's steps (job-context.ts), kept for the job's detail. */
  complete(id: string, input: FileDescriptor, output: JobOutput, steps?: JobStep[]): Promise<Job>;
  fail(id: string, error: ErrorRecord, steps?: JobStep[]): Promise<Job>;
  /** Records that a finished job's usage and webhook were reported (once; a second call changes nothing). */
  markReported(id: string): Promise<void>;
  /** Jobs whose output expired before `now`, so the sweeper can delete their files. */
  listOutputsExpiredBefore(now: number, limit: number): Promise<Job[]>;
  clearOutput(id: string): Promise<void>;
  /** Deletes records finished before `before`; returns how many. */
  deleteFinishedBefore(before: number): Promise<number>;
}
