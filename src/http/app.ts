/**
 * The HTTP application, built from its dependencies and separate from `listen`, so tests and the
 * server share it. Routes translate between HTTP and the job service; they hold no business logic.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerFactory } from 'fastify';
import type { Logger } from 'pino';
import type { AccountService } from '../accounts/account-service.ts';
import type { ConnectorService } from '../connectors/connector-service.ts';
import { InvalidJsonError, NotFoundError } from '../errors/catalog.ts';
import type { DiskSpaceMonitor } from '../files/disk-space.ts';
import type { FileStore } from '../files/file-store.ts';
import type { JobQueue } from '../jobs/job-queue.ts';
import type { JobService } from '../jobs/job-service.ts';
import type { JobStore } from '../jobs/job-store.ts';
import type { RequestParser } from '../jobs/request-params.ts';
import type { RateLimiter } from '../ratelimit/rate-limiter.ts';
import type { SessionService } from '../users/session-service.ts';
import type { UserService } from '../users/user-service.ts';
import { ajv } from '../validation/schema-validator.ts';
import type { WebhookStore } from '../webhooks/webhook-store.ts';
import { frameworkErrors, makeClientErrorHandler, SECURITY_HEADERS } from './client-errors.ts';
import { CspReportLog } from './csp-reports.ts';
import { errorBody, JSON_BODY_LIMIT, makeErrorHandler } from './error-handler.ts';
import { lazySerializers, lazyValidator } from './lazy-compilers.ts';
import { registerAbandonedBodies } from './plugins/abandoned-bodies.ts';
import { registerAccessControl } from './plugins/access-control.ts';
import { type BodyTimeouts, registerBodyTimeouts } from './plugins/body-timeouts.ts';
import './request-context.ts';
import type { SandboxMode } from '../processors/shared/sandbox.ts';
import { completeErrorResponses } from './openapi-errors.ts';
import { accountRoute } from './routes/account.ts';
import { connectorsRoute } from './routes/connectors.ts';
import { cspReportsRoute } from './routes/csp-reports.ts';
import { dashboardRoute } from './routes/dashboard.ts';
import { downloadsRoute } from './routes/downloads.ts';
import { fetchRoute } from './routes/fetch.ts';
import { healthRoute } from './routes/health.ts';
import { jobEventsRoute } from './routes/job-events.ts';
import { jobsRoute } from './routes/jobs.ts';
import { keysRoute } from './routes/keys.ts';
import { openapiRoute } from './routes/openapi.ts';
import { type MetricTotals, operatorRoute } from './routes/operator.ts';
import { sessionRoute } from './routes/session.ts';
import { uploadRoute } from './routes/upload.ts';
import { usersRoute } from './routes/users.ts';
import { webhookSecretRoute } from './routes/webhook-secret.ts';
import { webhooksRoute } from './routes/webhooks.ts';
import { UploadFolders } from './upload-folders.ts';
import { UploadSlots } from './upload-slots.ts';

/**
 * What the routes use. The names are those of `Services`, so the whole service bag can be passed
 * as it is; tests may build the object by hand instead.
 */
export interface AppDeps {
  logger: Logger;
  accounts: AccountService;
  jobs: JobService;
  jobStore: JobStore;
  queue: JobQueue;
  files: FileStore;
  webhookStore: WebhookStore;
  connectors: ConnectorService;
  /** Dashboard users and invites, and their sessions (routes/session.ts, users.ts, operator.ts). */
  users: UserService;
  sessions: SessionService;
  replayWebhook: (deliveryId: string, accountId: string) => Promise<boolean>;
  parser: RequestParser;
  limiter: RateLimiter;
  /** Free space of the data directory, for readiness (`/healthz`). */
  diskSpace: Pick<DiskSpaceMonitor, 'check'>;
  config?: { webhooks: { secretGraceMs: number }; jobs: { workers: number; mediaWorkers: number } };
  /** True once shutdown began: `/healthz` answers 503 so balancers stop sending (default: never). */
  isShuttingDown?: () => boolean;
  /** The isolation of external tools (`PRESSO_SANDBOX`), which `/healthz` reports (default: bwrap). */
  sandbox?: SandboxMode;
  /** Sees every answered request (metrics); optional. */
  requestObserver?: RequestObserver;
  /** Where the dashboard's CSP violation reports are counted (default: a new one, as `app.cspReports`). */
  cspReports?: CspReportLog;
  /** Job and webhook totals for the operator's overview; optional. */
  metrics?: MetricTotals;
}

export interface RequestObserver {
  /** `route` is the matched route's pattern (`/1.0/jobs/:id`), never the raw URL, so label sets stay small. */
  requestFinished(method: string, route: string, status: number, seconds: number): void;
}

export interface AppOptions {
  maxInputBytes: number;
  defaultRateLimit: number;
  rateWindowMs: number;
  trustedProxies: string[];
  publicUrl: string;
  /** Answered 408 when the request headers take longer (the listener enforces it; the message names it). */
  headersTimeoutMs: number;
  bodyTimeouts: BodyTimeouts;
  maxUploadsPerKey: number;
  /** How often a quiet job event stream sends a heartbeat (default 15 s). */
  eventsHeartbeatMs?: number;
  /** Where uploads are written while their request is read (upload-folders.ts); emptied at start. */
  uploadsDir: string;
  serverFactory?: FastifyServerFactory;
  /** The built dashboard served under /dashboard/ (default: dist/dashboard of this checkout). */
  dashboardDir?: string;
}

/** Where scripts/setup.sh builds the dashboard. */
export const DEFAULT_DASHBOARD_DIR = resolve(import.meta.dirname, '..', '..', 'dist', 'dashboard');

/**
 * The router refuses a longer path segment (414). Download links keep their name segment within 100
 * characters (jobs/download-link.ts); links made before that carry names of up to 200 characters,
 * each up to 9 once percent-encoded.
 */
const MAX_PARAM_LENGTH = 2048;

export async function buildApp(deps: AppDeps, options: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger,
    // The request id doubles as the job id of upload and fetch, so clients must never choose it.
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    trustProxy: options.trustedProxies.length > 0 ? options.trustedProxies : false,
    bodyLimit: JSON_BODY_LIMIT,
    return503OnClosing: true,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler: makeClientErrorHandler(options.headersTimeoutMs),
    schemaController: { compilersFactory: { buildSerializer: lazySerializers } },
    ...(options.serverFactory ? { serverFactory: options.serverFactory } : {}),
  }) as unknown as FastifyInstance;

  app.setValidatorCompiler(({ schema }) => lazyValidator(() => ajv.compile(schema)));
  app.setErrorHandler(makeErrorHandler(options.maxInputBytes));
  app.setNotFoundHandler((request, reply) => {
    const error = new NotFoundError(`No route for ${request.method} ${request.url.split('?')[0]}.`);
    reply.code(404).send(errorBody(error, request.id));
  });
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new InvalidJsonError(), undefined);
    }
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    reply.headers(SECURITY_HEADERS);
  });
  registerBodyTimeouts(app, options.bodyTimeouts);
  registerAbandonedBodies(app);
  // Every usage counter but this one is kept by the job layer (jobs and bytes in at submit, bytes
  // out at completion); requests are an HTTP notion, counted here once the answer went out.
  app.addHook('onResponse', async (request, reply) => {
    deps.requestObserver?.requestFinished(
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    if (!request.account) return;
    await deps.accounts
      .countRequest(request.account.id)
      .catch((error: unknown) => request.log.error({ err: error }, 'request not counted in usage'));
  });

  app.addHook('onRoute', completeErrorResponses);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Presso API',
        version: '1.0',
        description: 'Compress, optimise, convert and resize files. Compatible with the Compressor.app API.',
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      },
      servers: [{ url: options.publicUrl }],
      components: {
        securitySchemes: {
          basic: { type: 'http', scheme: 'basic', description: 'API key as user name, empty password.' },
          bearer: { type: 'http', scheme: 'bearer' },
          session: {
            type: 'apiKey',
            in: 'cookie',
            name: 'presso_session',
            description: 'Dashboard session (POST /1.0/session); state changes also need X-CSRF-Token.',
          },
        },
      },
      security: [{ basic: [] }, { bearer: [] }, { session: [] }],
    },
  });

  registerAccessControl(app, {
    accounts: deps.accounts,
    sessions: deps.sessions,
    limiter: deps.limiter,
    anonymousLimit: options.defaultRateLimit,
    origin: new URL(options.publicUrl).origin,
  });

  const uploads = new UploadFolders(options.uploadsDir);
  // Uploads a previous process was reading when it died are nobody's; those of this one are removed
  // before it stops (the listener has cut their requests by then).
  app.addHook('onReady', () => uploads.clearStale());
  app.addHook('onClose', () => uploads.closeAll());
  await app.register(uploadRoute, {
    jobs: deps.jobs,
    parser: deps.parser,
    maxInputBytes: options.maxInputBytes,
    slots: new UploadSlots(options.maxUploadsPerKey),
    uploads,
  });
  await app.register(fetchRoute, { jobs: deps.jobs, parser: deps.parser });
  await app.register(jobsRoute, { jobs: deps.jobs });
  await app.register(jobEventsRoute, {
    jobs: deps.jobs,
    ...(options.eventsHeartbeatMs === undefined ? {} : { heartbeatMs: options.eventsHeartbeatMs }),
  });
  await app.register(keysRoute, { accounts: deps.accounts });
  await app.register(accountRoute, {
    accounts: deps.accounts,
    limiter: deps.limiter,
    windowMs: options.rateWindowMs,
  });
  await app.register(webhooksRoute, {
    jobs: deps.jobs,
    webhooks: deps.webhookStore,
    replay: deps.replayWebhook,
  });
  await app.register(connectorsRoute, { connectors: deps.connectors });
  await app.register(openapiRoute);
  const cspReports = deps.cspReports ?? new CspReportLog();
  app.decorate('cspReports', cspReports);
  await app.register(cspReportsRoute, { log: cspReports });
  await app.register(dashboardRoute, { dir: options.dashboardDir ?? DEFAULT_DASHBOARD_DIR });
  // Dashboard users and sessions, the webhook secret, the operator's view (issue 22).
  const origin = new URL(options.publicUrl).origin;
  await app.register(sessionRoute, { sessions: deps.sessions, origin });
  await app.register(usersRoute, { users: deps.users, sessions: deps.sessions, origin });
  await app.register(webhookSecretRoute, {
    accounts: deps.accounts,
    graceMs: deps.config?.webhooks.secretGraceMs ?? 86_400_000,
  });
  await app.register(operatorRoute, {
    accounts: deps.accounts,
    users: deps.users,
    queue: deps.queue,
    jobs: deps.jobStore,
    diskSpace: deps.diskSpace,
    metrics: deps.metrics,
    workers: { standard: deps.config?.jobs.workers ?? 0, media: deps.config?.jobs.mediaWorkers ?? 0 },
  });
  await app.register(healthRoute, {
    queue: deps.queue,
    diskSpace: deps.diskSpace,
    isShuttingDown: deps.isShuttingDown ?? (() => false),
    sandbox: deps.sandbox ?? 'bwrap',
  });
  await app.register(downloadsRoute, { store: deps.jobStore, files: deps.files });
  return app;
}
