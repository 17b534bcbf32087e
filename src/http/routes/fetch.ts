/** POST /1.0/fetch: the service downloads the input from a URL (JSON body only). */
import type { FastifyInstance } from 'fastify';
import { UnsupportedContentTypeError } from '../../errors/catalog.ts';
import type { JobService } from '../../jobs/job-service.ts';
import type { RequestParser } from '../../jobs/request-params.ts';
import { requireAccount } from '../request-context.ts';
import { AcknowledgementSchema, commonErrors, ErrorSchema, SyncResultSchema } from '../schemas.ts';
import { clientGone, replyWithJob } from './submit-reply.ts';

export interface FetchRouteOptions {
  jobs: JobService;
  parser: RequestParser;
}

export async function fetchRoute(app: FastifyInstance, options: FetchRouteOptions) {
  const { jobs, parser } = options;
  app.post(
    '/1.0/fetch',
    {
      config: { auth: true },
      // The schema documents the body; validation runs in the request parser so that schema errors and
      // cross-field rules are reported together in one 422.
      attachValidation: true,
      schema: {
        operationId: 'fetchFile',
        tags: ['Jobs'],
        summary: 'Process a file downloaded from a URL',
        body: parser.fetchBodySchema,
        response: {
          200: SyncResultSchema,
          202: AcknowledgementSchema,
          408: ErrorSchema,
          413: ErrorSchema,
          415: ErrorSchema,
          422: ErrorSchema,
          502: ErrorSchema,
          ...commonErrors,
        },
      },
    },
    async (request, reply) => {
      const account = requireAccount(request.account);
      // Fastify parses text/plain by default; the interface accepts JSON only.
      const mediaType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (mediaType !== 'application/json') {
        throw new UnsupportedContentTypeError('application/json');
      }
      const parsed = parser.parseFetchBody(request.body);
      const job = await jobs.submitFetch(
        { jobId: request.id, accountId: account.id, request: parsed },
        clientGone(reply),
      );
      return replyWithJob(reply, job);
    },
  );
}
