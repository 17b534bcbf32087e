/**
 * The public shapes of a job, as `docs/api.md` documents them: the synchronous result, and the job
 * record of `GET /1.0/jobs/{id}` and of webhook deliveries. Each is a TypeBox schema declared once
 * here; the TypeScript types are derived from them, and `http/schemas.ts` builds the response
 * schemas (so the OpenAPI document) from the same pieces.
 */
import { type Static, Type } from '#typebox';
import { type FileDescriptor, FileDescriptorSchema, type Job } from './job.ts';

const JobId = Type.String({ format: 'uuid' });

/** The output's metadata, present only when the request asked for it. */
export const MetadataSchema = Type.Object(
  {},
  { additionalProperties: true, description: 'With "metadata": true.' },
);

/** What a synchronous request answers with: the completed job, without a `status`. */
export const SyncResultSchema = Type.Object({
  id: JobId,
  url: Type.String({
    description: 'Temporary download URL (2 hours) or the object URL in an external store.',
  }),
  input: FileDescriptorSchema,
  output: FileDescriptorSchema,
  metadata: Type.Optional(MetadataSchema),
});
export type SyncResult = Static<typeof SyncResultSchema>;

/** A job that ended well: the synchronous result plus its status. */
export const CompletedRecordSchema = Type.Object({
  ...SyncResultSchema.properties,
  status: Type.Literal('completed'),
});
export type CompletedRecord = Static<typeof CompletedRecordSchema>;

/** A job that failed: the catalogued error's public message, in the error body's shape. */
export const FailedRecordSchema = Type.Object({
  success: Type.Literal(false),
  id: JobId,
  status: Type.Literal('failed'),
  message: Type.String(),
});
export type FailedRecord = Static<typeof FailedRecordSchema>;

/** A job not finished yet; also the acknowledgement of an asynchronous request. */
export const RunningRecordSchema = Type.Object({
  id: JobId,
  status: Type.Union([Type.Literal('enqueued'), Type.Literal('processing')]),
  progress: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 100,
      description: "Extension: percent done of a processing video or audio job, from ffmpeg's progress.",
    }),
  ),
});
export type RunningRecord = Static<typeof RunningRecordSchema>;

export const JobRecordSchema = Type.Union([CompletedRecordSchema, FailedRecordSchema, RunningRecordSchema]);
export type JobRecord = Static<typeof JobRecordSchema>;

/** The synchronous result of a completed job. */
export function syncResult(job: Job): SyncResult {
  const output = job.output!;
  const result: SyncResult = {
    id: job.id,
    url: output.url,
    input: job.input as FileDescriptor,
    output: output.descriptor,
  };
  if (output.metadata) result.metadata = output.metadata;
  return result;
}

/** The record of `GET /1.0/jobs/{id}` and of webhook deliveries. */
export function jobRecord(job: Job): JobRecord {
  switch (job.status) {
    case 'completed':
      return { ...syncResult(job), status: 'completed' };
    case 'failed':
      return {
        success: false,
        id: job.id,
        status: 'failed',
        message: job.error?.message ?? 'The job failed.',
      };
    default:
      return job.status === 'processing' && job.progress !== undefined
        ? { id: job.id, status: job.status, progress: job.progress }
        : { id: job.id, status: job.status };
  }
}
