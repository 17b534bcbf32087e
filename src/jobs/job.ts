/**
 * The job record: what was asked, where the input came from, and how it ended. The shapes the API
 * also shows (the status list, a file's descriptor) are TypeBox schemas, declared once here; their
 * TypeScript types are derived from them, and the HTTP schemas re-use them.
 */
import { type Static, Type } from '#typebox';
import type { ErrorRecord } from '../errors/catalog.ts';
import { FILE_KINDS, type FileKind } from '../media/formats.ts';

export const JobStatusSchema = Type.Union([
  Type.Literal('enqueued'),
  Type.Literal('processing'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);
export type JobStatus = Static<typeof JobStatusSchema>;

/** What the API tells about a file: the input as detected, or the output as written. */
export const FileDescriptorSchema = Type.Object(
  {
    name: Type.String(),
    // Built from the list, so a new kind needs no edit here; TypeBox cannot type a union mapped from
    // an array (it infers never), hence the stated static type.
    type: Type.Unsafe<FileKind>(Type.Union(FILE_KINDS.map((kind) => Type.Literal(kind)))),
    format: Type.String({ examples: ['jpeg'] }),
    mime: Type.String({ examples: ['image/jpeg'] }),
    size: Type.Integer({ description: 'Bytes.' }),
    sha1: Type.String({ pattern: '^[0-9a-f]{40}$' }),
  },
  { title: 'FileDescriptor' },
);
export type FileDescriptor = Static<typeof FileDescriptorSchema>;

/** Facts about the input known before detection (name, size, hash), filled in as it arrives. */
export interface ReceivedFile {
  name: string;
  size: number;
  sha1: string;
}

/** `headers` are the caller's (secrets: job-secrets.ts); a stored job has them only once its run revealed them. */
export type JobSource = { type: 'upload' } | { type: 'fetch'; url: string; headers?: Record<string, string> };

/** The validated request JSON, minus transport concerns. Namespaces are per kind (`image`, `video`, ...). */
export interface JobParams {
  [namespace: string]: unknown;
  metadata?: boolean;
  /** The external store the output goes to (checked against the account's connector at submission). */
  store?: Record<string, unknown>;
}

export interface JobOutput {
  descriptor: FileDescriptor;
  /** File-store key of the stored output. */
  key: string;
  url: string;
  expiresAt: number;
  metadata?: Record<string, unknown> | undefined;
}

/** One named step of a job's last run (job-context.ts `step`), as the job detail shows it. */
export interface JobStep {
  name: string;
  startedAt: number;
  finishedAt: number;
  outcome: 'completed' | 'failed';
}

export interface Job {
  id: string;
  accountId: string;
  status: JobStatus;
  source: JobSource;
  params: JobParams;
  webhookUrl: string | undefined;
  /** Set when the input is in the file store (at submission for uploads, after download for fetches). */
  input: (ReceivedFile & Partial<FileDescriptor>) | undefined;
  output: JobOutput | undefined;
  error: ErrorRecord | undefined;
  attempts: number;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | undefined;
  /** 0–100 while a long processor (video, audio) runs; undefined when it does not report. */
  progress?: number | undefined;
  /**
   * When the finished job's usage and webhook were reported. A finished job without it lost its run
   * between finishing and reporting (a crash); the queue runs it again and that run reports it.
   */
  reportedAt?: number | undefined;
  /**
   * The request's secrets (fetch headers, passwords), sealed by the job store while the job has not ended;
   * the runner opens them (job-secrets.ts). Wiped when the job ends.
   */
  sealedSecrets?: string | undefined;
  /** The input's detected kind, once known (at submission for uploads, at completion otherwise). */
  kind?: string | undefined;
  /** When the last run started (each run restarts it); undefined before the first. */
  startedAt?: number | undefined;
  /** The last run's steps, recorded when the job ends. */
  steps?: JobStep[] | undefined;
  /** The worker that claimed the current or last run: `host:pid:slot` (job-runner.ts). */
  worker?: string | undefined;
}

export function isFinished(job: Pick<Job, 'status'>): boolean {
  return job.status === 'completed' || job.status === 'failed';
}

/** File-store keys of a job's files. */
export const jobKeys = {
  input: (jobId: string) => `jobs/${jobId}/input`,
  output: (jobId: string, name: string) => `jobs/${jobId}/output/${name}`,
  prefix: (jobId: string) => `jobs/${jobId}/`,
};
