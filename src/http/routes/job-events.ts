/**
 * GET /1.0/jobs/{id}/events: a job's live status as Server-Sent Events, so a page shows progress without
 * polling. `status` events carry the job record (as GET /1.0/jobs/{id}), `progress` events `{id, progress}`;
 * a comment line every 15 s (PRESSO_EVENTS_HEARTBEAT) keeps proxies from closing a quiet stream; the stream ends after the job's final
 * status. A client that goes away (or a service that stops) ends it at once and releases its watch.
 */
import { PassThrough } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { NotFoundError } from '../../errors/catalog.ts';
import { jobRecord } from '../../jobs/job-record.ts';
import type { JobService } from '../../jobs/job-service.ts';
import type { JobUpdate } from '../../jobs/job-updates.ts';
import { requireAccount } from '../request-context.ts';
import { commonErrors, ErrorSchema } from '../schemas.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Between two heartbeats by default (PRESSO_EVENTS_HEARTBEAT): well under common proxies' idle time-outs (60 s and up). */
export const HEARTBEAT_MS = 15_000;

/** The SSE frame of an update: `event:` and one `data:` line of JSON (JSON has no raw newline), or a comment. */
export function sseFrame(update: JobUpdate): string {
  switch (update.type) {
    case 'status':
      return `event: status\ndata: ${JSON.stringify(jobRecord(update.job))}\n\n`;
    case 'progress':
      return `event: progress\ndata: ${JSON.stringify({ id: update.job.id, progress: update.progress })}\n\n`;
    default:
      return ': heartbeat\n\n';
  }
}

export async function jobEventsRoute(
  app: FastifyInstance,
  options: { jobs: JobService; heartbeatMs?: number },
) {
  /** Every open stream's stop, so a closing server ends them instead of waiting for their jobs. */
  const open = new Set<AbortController>();
  app.addHook('preClose', async () => {
    for (const stream of open) stream.abort();
  });

  app.get(
    '/1.0/jobs/:id/events',
    {
      config: { auth: true },
      schema: {
        operationId: 'streamJobEvents',
        tags: ['Jobs'],
        summary: "A job's live status and progress as Server-Sent Events, until it ends",
        params: Type.Object({ id: Type.String() }),
        response: {
          200: {
            description:
              '`event: status` with the job record as data, `event: progress` with `{id, progress}`; a comment ' +
              'every 15 s; the stream ends after the final status (an EventSource should close on it).',
            content: { 'text/event-stream': { schema: Type.String() } },
          },
          404: ErrorSchema,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      const { id } = request.params as { id: string };
      if (!UUID.test(id)) throw new NotFoundError('No job with this id.');
      const stop = new AbortController();
      const updates = await options.jobs.updates(account.id, id.toLowerCase(), {
        signal: stop.signal,
        quietMs: options.heartbeatMs ?? HEARTBEAT_MS,
      });
      const body = new PassThrough();
      const onClose = () => stop.abort();
      // The client went away: end the stream's wait now, not at the job's end.
      reply.raw.on('close', onClose);
      open.add(stop);
      (async () => {
        for await (const update of updates) {
          if (body.destroyed) break;
          body.write(sseFrame(update));
        }
      })()
        .catch((error: unknown) => request.log.warn({ err: error }, 'job event stream failed'))
        .finally(() => {
          open.delete(stop);
          reply.raw.off('close', onClose);
          body.end();
        });
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        .send(body);
    },
  );
}
