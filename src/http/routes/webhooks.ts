/**
 * Webhook deliveries of the caller's jobs: GET /1.0/webhooks?job=ID lists a job's, GET /1.0/webhooks the
 * account's across jobs (newest first, paged); POST .../replay resends one.
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { NotFoundError, ValidationError } from '../../errors/catalog.ts';
import type { JobService } from '../../jobs/job-service.ts';
import type { WebhookDeliveryWithAttempts, WebhookStore } from '../../webhooks/webhook-store.ts';
import { decodeCursor, encodeCursor, NextCursorSchema, PageQuerySchema, pageSize } from '../list-params.ts';
import { requireAccount } from '../request-context.ts';
import { commonErrors, ErrorSchema } from '../schemas.ts';

const DeliverySchema = Type.Object({
  id: Type.String(),
  jobId: Type.String(),
  url: Type.String(),
  state: Type.Union(['pending', 'sending', 'succeeded', 'failed'].map((s) => Type.Literal(s))),
  nextAttemptAt: Type.Optional(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  attempts: Type.Array(
    Type.Object({
      attempt: Type.Integer(),
      at: Type.String({ format: 'date-time' }),
      statusCode: Type.Optional(Type.Integer()),
      error: Type.Optional(Type.String()),
      durationMs: Type.Integer(),
    }),
  ),
});

export interface WebhooksRouteOptions {
  jobs: JobService;
  webhooks: WebhookStore;
  replay: (deliveryId: string, accountId: string) => Promise<boolean>;
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

const deliveryView = (d: WebhookDeliveryWithAttempts) => ({
  id: d.id,
  jobId: d.jobId,
  url: d.url,
  state: d.state,
  nextAttemptAt: iso(d.nextAttemptAt),
  createdAt: iso(d.createdAt),
  attempts: d.attemptLog.map((a) => ({ ...a, at: iso(a.at) })),
});

export async function webhooksRoute(app: FastifyInstance, options: WebhooksRouteOptions) {
  app.get(
    '/1.0/webhooks',
    {
      config: { auth: true },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['Webhooks'],
        summary:
          "List webhook deliveries and their attempts: a job's (oldest first), or without `job` the account's " +
          'across jobs (newest first, paged)',
        querystring: Type.Object({
          job: Type.Optional(Type.String({ description: 'A job id: its deliveries only, all in one page.' })),
          ...PageQuerySchema,
        }),
        response: {
          200: Type.Object({ deliveries: Type.Array(DeliverySchema), nextCursor: NextCursorSchema }),
          404: ErrorSchema,
          ...commonErrors,
        },
      },
    },
    async (request) => {
      const account = requireAccount(request.account);
      const query = request.query as { job?: string; cursor?: string; limit?: string };
      if (query.job === undefined) {
        const page = await options.webhooks.listForAccount(account.id, {
          limit: pageSize(query.limit),
          after: decodeCursor(query.cursor),
        });
        return { deliveries: page.deliveries.map(deliveryView), nextCursor: encodeCursor(page.next) };
      }
      if (query.job === '') throw ValidationError.field('job', 'must be a job id');
      await options.jobs.getForAccount(account.id, query.job);
      return { deliveries: (await options.webhooks.listForJob(query.job, account.id)).map(deliveryView) };
    },
  );

  app.post(
    '/1.0/webhooks/:id/replay',
    {
      config: { auth: true },
      schema: {
        operationId: 'replayWebhookDelivery',
        tags: ['Webhooks'],
        summary: 'Send a finished webhook delivery again',
        params: Type.Object({ id: Type.String() }),
        response: {
          202: Type.Object({ id: Type.String(), state: Type.Literal('pending') }),
          404: ErrorSchema,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      const { id } = request.params as { id: string };
      if (!(await options.replay(id, account.id)))
        throw new NotFoundError('No finished webhook delivery with this id.');
      return reply.code(202).send({ id, state: 'pending' });
    },
  );
}
