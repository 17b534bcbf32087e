/**
 * POST /1.0/csp-reports: where browsers send the dashboard's Content-Security-Policy violations, in the
 * legacy `report-uri` form (application/csp-report) or the Reporting API's (application/reports+json).
 * No key: browsers send no credentials with reports. Anyone may post, so the body is small, each
 * violation is logged cut short, and the count in memory is all that grows (tests read it).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from '#typebox';
import { InvalidJsonError } from '../../errors/catalog.ts';
import { type CspReportLog, parseCspReports } from '../csp-reports.ts';
import { ErrorSchema } from '../schemas.ts';

/** A report is a few hundred bytes; the Reporting API batches a few. */
const REPORT_BODY_LIMIT = 64 * 1024;

export async function cspReportsRoute(app: FastifyInstance, options: { log: CspReportLog }) {
  // Scoped to this plugin: only this route reads these types.
  app.addContentTypeParser(
    ['application/csp-report', 'application/reports+json'],
    { parseAs: 'string', bodyLimit: REPORT_BODY_LIMIT },
    (_request, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(new InvalidJsonError(), undefined);
      }
    },
  );
  app.post(
    '/1.0/csp-reports',
    {
      bodyLimit: REPORT_BODY_LIMIT,
      schema: {
        operationId: 'reportCspViolation',
        tags: ['dashboard'],
        summary: "Receive the dashboard's Content-Security-Policy violation reports (sent by browsers)",
        description:
          'application/csp-report (report-uri) or application/reports+json (Reporting API) bodies; ' +
          'each violation is logged. No key needed.',
        response: {
          204: Type.Null(),
          400: ErrorSchema,
          413: ErrorSchema,
          415: ErrorSchema,
          422: ErrorSchema,
        },
      },
    },
    async (request, reply) => {
      for (const violation of parseCspReports(request.body)) {
        options.log.add(violation);
        request.log.warn({ cspViolation: violation }, 'dashboard content-security-policy violation');
      }
      return reply.code(204).send();
    },
  );
}
