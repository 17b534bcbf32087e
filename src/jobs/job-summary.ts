/**
 * The dashboard's shapes of a job (issue 22), declared once as TypeBox schemas like job-record.ts: a job as the
 * list `GET /1.0/jobs` shows it, and what `GET /1.0/jobs/{id}` adds to the job record: its timings and the
 * steps of its last run. Times are ISO 8601 strings, as everywhere else in the API.
 */
import { type Static, Type } from '#typebox';
import { type Job, JobStatusSchema } from './job.ts';

const Time = Type.String({ format: 'date-time' });

export const JobStepSchema = Type.Object({
  name: Type.String({ examples: ['process'] }),
  startedAt: Time,
  finishedAt: Time,
  outcome: Type.Union([Type.Literal('completed'), Type.Literal('failed')]),
});

/** Timings and steps; `startedAt` is the last run's start (a job handed back to the queue runs again). */
export const JobTimingsSchema = Type.Object({
  queuedAt: Time,
  startedAt: Type.Optional(Time),
  finishedAt: Type.Optional(Time),
  steps: Type.Optional(
    Type.Array(JobStepSchema, { description: "The last run's steps, in order; recorded when the job ends." }),
  ),
});
export type JobTimings = Static<typeof JobTimingsSchema>;

export const JobSummarySchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    status: JobStatusSchema,
    kind: Type.Optional(Type.String({ description: 'The input’s detected kind, once known.' })),
    source: Type.Union([Type.Literal('upload'), Type.Literal('fetch')]),
    createdAt: Time,
    startedAt: Type.Optional(Time),
    finishedAt: Type.Optional(Time),
    progress: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    input: Type.Optional(
      Type.Object({ name: Type.String(), size: Type.Integer(), type: Type.Optional(Type.String()) }),
    ),
    output: Type.Optional(Type.Object({ name: Type.String(), size: Type.Integer(), format: Type.String() })),
    message: Type.Optional(Type.String({ description: 'Why a failed job failed.' })),
  },
  { title: 'JobSummary' },
);
export type JobSummary = Static<typeof JobSummarySchema>;

const iso = (ms: number) => new Date(ms).toISOString();

export function jobTimings(job: Job): JobTimings {
  const timings: JobTimings = { queuedAt: iso(job.createdAt) };
  if (job.startedAt !== undefined) timings.startedAt = iso(job.startedAt);
  if (job.finishedAt !== undefined) timings.finishedAt = iso(job.finishedAt);
  if (job.steps !== undefined)
    timings.steps = job.steps.map((s) => ({
      ...s,
      startedAt: iso(s.startedAt),
      finishedAt: iso(s.finishedAt),
    }));
  return timings;
}

export function jobSummary(job: Job): JobSummary {
  const summary: JobSummary = {
    id: job.id,
    status: job.status,
    source: job.source.type,
    createdAt: iso(job.createdAt),
  };
  const kind = job.kind ?? job.input?.type;
  if (kind !== undefined) summary.kind = kind;
  if (job.startedAt !== undefined) summary.startedAt = iso(job.startedAt);
  if (job.finishedAt !== undefined) summary.finishedAt = iso(job.finishedAt);
  if (job.status === 'processing' && job.progress !== undefined) summary.progress = job.progress;
  if (job.input !== undefined)
    summary.input = {
      name: job.input.name,
      size: job.input.size,
      ...(kind === undefined ? {} : { type: kind }),
    };
  if (job.output !== undefined) {
    const { name, size, format } = job.output.descriptor;
    summary.output = { name, size, format };
  }
  if (job.status === 'failed') summary.message = job.error?.message ?? 'The job failed.';
  return summary;
}
