/** The job record: what was asked, where the input came from, and how it ended. */
import type { ErrorRecord } from '../errors/catalog.ts';
import type { FileKind } from '../media/formats.ts';

export type JobStatus = 'enqueued' | 'processing' | 'completed' | 'failed';

export interface FileDescriptor {
  name: string;
  type: FileKind;
  format: string;
  mime: string;
  /** Bytes. */
  size: number;
  sha1: string;
}

/** Facts about the input known before detection (name, size, hash), filled in as it arrives. */
export interface ReceivedFile {
  name: string;
  size: number;
  sha1: string;
}

export type JobSource = { type: 'upload' } | { type: 'fetch'; url: string; headers: Record<string, string> };

/** The validated request JSON, minus transport concerns. Namespaces are per kind (`image`, `video`, ...). */
export interface JobParams {
  [namespace: string]: unknown;
  metadata?: boolean;
}

export interface JobOutput {
  descriptor: FileDescriptor;
  /** File-store key of the stored output. */
  key: string;
  url: string;
  expiresAt: number;
  metadata?: Record<string, unknown> | undefined;
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
