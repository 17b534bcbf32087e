/** Persistent job records. Embedded: SQLite; scaled: PostgreSQL. */
import type { ErrorRecord } from '../errors/catalog.ts';
import type { FileDescriptor, Job, JobOutput, ReceivedFile } from './job.ts';
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
}

/**
 * Every store seals a job's secrets (`NewJob.secrets`, through JobSecretBox) so that no row holds them in
 * plain text, and wipes them when the job ends (`complete`, `fail`): a finished job holds none at all.
 */
export interface JobStore {
  create(job: NewJob): Promise<Job>;
  get(id: string): Promise<Job | undefined>;
  /** Moves an enqueued (or re-run) job to processing and counts the attempt. */
  markProcessing(id: string): Promise<Job | undefined>;
  /**
   * Puts a processing job back to enqueued without counting the attempt: the run stopped through no
   * fault of the job (storage ran out), so it must not bring the job closer to failing.
   */
  releaseAttempt(id: string): Promise<void>;
  /** Records how far a processing job has got (0–100); ignored once the job is no longer processing. */
  setProgress(id: string, percent: number): Promise<void>;
  setInput(id: string, input: ReceivedFile & Partial<FileDescriptor>): Promise<void>;
  complete(id: string, input: FileDescriptor, output: JobOutput): Promise<Job>;
  fail(id: string, error: ErrorRecord): Promise<Job>;
  /** Records that a finished job's usage and webhook were reported (once; a second call changes nothing). */
  markReported(id: string): Promise<void>;
  /** Jobs whose output expired before `now`, so the sweeper can delete their files. */
  listOutputsExpiredBefore(now: number, limit: number): Promise<Job[]>;
  clearOutput(id: string): Promise<void>;
  /** Deletes records finished before `before`; returns how many. */
  deleteFinishedBefore(before: number): Promise<number>;
}
