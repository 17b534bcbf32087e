/** The public shapes of a job (service-interface.md "Job status / result record"), shared by the API and webhooks. */
import type { FileDescriptor, Job } from './job.ts';

export interface CompletedRecord {
  id: string;
  status?: 'completed';
  url: string;
  input: FileDescriptor;
  output: FileDescriptor;
  metadata?: Record<string, unknown>;
}

export interface FailedRecord {
  success: false;
  id: string;
  status: 'failed';
  message: string;
}

export interface RunningRecord {
  id: string;
  status: 'enqueued' | 'processing';
}

export type JobRecord = CompletedRecord | FailedRecord | RunningRecord;

function completed(job: Job): CompletedRecord {
  const output = job.output!;
  const record: CompletedRecord = {
    id: job.id,
    url: output.url,
    input: job.input as FileDescriptor,
    output: output.descriptor,
  };
  if (output.metadata) record.metadata = output.metadata;
  return record;
}

/** The record of `GET /1.0/jobs/{id}` and of webhook deliveries. */
export function jobRecord(job: Job): JobRecord {
  switch (job.status) {
    case 'completed':
      return { ...completed(job), status: 'completed' };
    case 'failed':
      return {
        success: false,
        id: job.id,
        status: 'failed',
        message: job.error?.message ?? 'The job failed.',
      };
    default:
      return { id: job.id, status: job.status };
  }
}

/** A synchronous result is the completed record without `status` (ref). */
export function syncResult(job: Job): CompletedRecord {
  return completed(job);
}
