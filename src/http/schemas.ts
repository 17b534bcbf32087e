/**
 * Response schemas shared by the routes; they feed the generated OpenAPI document. A job's shapes
 * are declared in `jobs/` (the records the services build) and only re-used here.
 */
import { Type } from '#typebox';
import { JobStatusSchema } from '../jobs/job.ts';
import {
  CompletedRecordSchema,
  FailedRecordSchema,
  RunningRecordSchema,
  SyncResultSchema,
} from '../jobs/job-record.ts';

export { SyncResultSchema };

/** An asynchronous request's answer: the job's record while it is not finished. */
export const AcknowledgementSchema = RunningRecordSchema;

const completed = CompletedRecordSchema.properties;
const failed = FailedRecordSchema.properties;

/**
 * `GET /1.0/jobs/{id}`: any of the job's records (`JobRecordSchema` is the exact union), as one
 * object in which only `id` and `status` are always present. One object, not `anyOf`, so the
 * response serialiser need not try each record's schema in turn to pick one.
 */
export const JobRecordResponseSchema = Type.Object({
  id: RunningRecordSchema.properties.id,
  status: JobStatusSchema,
  success: Type.Optional(failed.success),
  message: Type.Optional(failed.message),
  url: Type.Optional(completed.url),
  input: Type.Optional(completed.input),
  output: Type.Optional(completed.output),
  metadata: completed.metadata,
  progress: RunningRecordSchema.properties.progress,
});

export const ErrorSchema = Type.Object(
  {
    success: Type.Literal(false),
    status: Type.Integer(),
    id: Type.String({ description: 'Request id; quote it to support.' }),
    message: Type.String(),
    errors: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
  },
  { title: 'Error' },
);

/** Error responses every authenticated route may give. */
export const commonErrors = {
  401: ErrorSchema,
  403: ErrorSchema,
  429: ErrorSchema,
  500: ErrorSchema,
  // Out of disk or database space (INSUFFICIENT_STORAGE): any route that records something can meet it.
  507: ErrorSchema,
};
