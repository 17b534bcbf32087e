/**
 * The service graph, written once for every mode: the account, job and webhook services, the
 * workers, the sweeper and readiness, built over whichever `Backends` the mode opened. Adding a
 * service touches this file (and `AppDeps` if routes use it); a new mode touches none of it.
 */
import { rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { AccountService } from '../accounts/account-service.ts';
import { ConnectorService } from '../connectors/connector-service.ts';
import { CredentialCipher } from '../connectors/credential-cipher.ts';
import { DiskSpaceMonitor } from '../files/disk-space.ts';
import { JobRunner } from '../jobs/job-runner.ts';
import { JobService } from '../jobs/job-service.ts';
import { JobSweeper } from '../jobs/job-sweeper.ts';
import { RequestParser } from '../jobs/request-params.ts';
import { GuardedOutboundClient } from '../outbound/guarded-client.ts';
import type { OutboundClient } from '../outbound/outbound-client.ts';
import { createArchiveProcessor } from '../processors/archive/archive-processor.ts';
import { createAudioProcessor } from '../processors/audio/audio-processor.ts';
import { createBundleProcessor } from '../processors/bundle/bundle-processor.ts';
import { createDocumentProcessor } from '../processors/document/document-processor.ts';
import { createImageProcessor } from '../processors/image/image-processor.ts';
import { createPdfProcessor } from '../processors/pdf/pdf-processor.ts';
import type { Processor } from '../processors/processor.ts';
import { ProcessorRegistry } from '../processors/registry.ts';
import { createVideoProcessor } from '../processors/video/video-processor.ts';
import { SessionService } from '../users/session-service.ts';
import { UserService } from '../users/user-service.ts';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import type { Backends } from './backends.ts';
import type { Config } from './config.ts';
import { dataPaths } from './data-dir.ts';
import { ServiceMetrics } from './metrics.ts';
import { startSandbox } from './sandbox.ts';

export interface Services extends Omit<Backends, 'close'> {
  config: Config;
  logger: Logger;
  /** Prometheus metrics of this process; also the routes' request observer. */
  metrics: ServiceMetrics;
  requestObserver: ServiceMetrics;
  accounts: AccountService;
  connectors: ConnectorService;
  /** Dashboard users and invites, and their sign-in sessions. */
  users: UserService;
  sessions: SessionService;
  outbound: OutboundClient;
  processors: ProcessorRegistry;
  parser: RequestParser;
  jobs: JobService;
  diskSpace: DiskSpaceMonitor;
  replayWebhook(deliveryId: string, accountId: string): Promise<boolean>;
  /** Starts workers, webhook deliveries and the sweeper (the API alone needs none of them). */
  startBackground(): Promise<void>;
  /** Stops background work (running jobs get the shutdown grace) and closes every resource. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** The processors to run; the built-in set by default (route tests pass a fake). */
  processors?: Processor[];
}

export function buildServices(
  backends: Backends,
  config: Config,
  logger: Logger,
  options: ServiceOptions = {},
): Services {
  const { jobStore, queue, events, files, webhookStore } = backends;
  // Working files are local in every mode: uploads stream there and processors need real paths.
  const workRoot = dataPaths(backends.localDataDir).work;
  const accounts = new AccountService(backends.accountStore, {
    defaultRateLimit: config.rateLimit.defaultLimit,
  });
  const outbound = new GuardedOutboundClient({
    ...config.outbound,
    serviceName: config.service.name,
    siteUrl: config.service.siteUrl,
  });
  const images = createImageProcessor(config.images);
  // Deep archive mode passes members to the processor of their kind: looked up in the registry built here.
  let registry: ProcessorRegistry | undefined;
  const processors = new ProcessorRegistry(
    options.processors ?? [
      images,
      createVideoProcessor(config.videos),
      createAudioProcessor(config.audio),
      // Images embedded in PDFs are recompressed in place through the same image processor. A tool that
      // succeeded with warnings (qpdf repairing a damaged file) is logged; the path names the job.
      createPdfProcessor({
        ...config.pdf,
        images,
        onWarning: (message) => logger.warn({ component: 'pdf' }, message),
      }),
      // Pictures inside office documents go through the same image processor and its memory budget.
      createDocumentProcessor(images, config.document),
      createArchiveProcessor((kind) => registry?.forKind(kind), config.archive),
      createBundleProcessor(images, config.bundle),
    ],
  );
  registry = processors;
  const connectors = new ConnectorService(
    backends.connectorStore,
    new CredentialCipher(backends.connectorKey),
    // Fresh guarded agents for each use of a store: the address guard at every connection (guarded-agents.ts).
    () => outbound.agents(),
  );
  const jobs = new JobService(
    { store: jobStore, queue, events, files, outbound, usage: accounts, logger, destinations: connectors },
    {
      asyncThresholdBytes: config.jobs.asyncThresholdBytes,
      syncTimeoutMs: config.jobs.syncTimeoutMs,
    },
  );
  const metrics = new ServiceMetrics(queue, { role: config.runtime.role });
  const dispatcher = new WebhookDispatcher({
    store: webhookStore,
    client: outbound,
    secretFor: (accountId) => accounts.signingSecrets(accountId),
    userAgent: `${config.service.name}/1.0 (+${config.service.siteUrl})`,
    timeoutMs: config.webhooks.timeoutMs,
    retrySchedule: config.webhooks.retrySchedule,
    logger: logger.child({ component: 'webhooks' }),
    onOutcome: (outcome) => metrics.webhookOutcome(outcome),
    schedule: backends.webhookSchedule,
  });
  const runner = new JobRunner(
    {
      store: jobStore,
      files,
      events,
      processors,
      outbound,
      usage: accounts,
      webhooks: dispatcher,
      destinations: connectors,
      secrets: backends.jobSecrets,
      logger: logger.child({ component: 'worker' }),
      observer: metrics,
    },
    {
      workRoot,
      publicUrl: config.server.publicUrl,
      outputTtlMs: config.jobs.outputTtlMs,
      maxInputBytes: config.jobs.maxInputBytes,
      maxAttempts: config.jobs.maxAttempts,
    },
  );
  const sweeper = new JobSweeper(
    { store: jobStore, files, logger },
    { retentionMs: config.jobs.retentionMs },
  );

  return {
    ...backends,
    config,
    logger,
    metrics,
    requestObserver: metrics,
    accounts,
    connectors,
    users: new UserService(
      { store: backends.userStore, sessions: backends.sessionStore, accounts },
      { publicUrl: config.server.publicUrl },
    ),
    sessions: new SessionService(
      { users: backends.userStore, sessions: backends.sessionStore, accounts, limiter: backends.limiter },
      config.sessions,
    ),
    outbound,
    processors,
    parser: new RequestParser(processors),
    jobs,
    diskSpace: new DiskSpaceMonitor(backends.localDataDir, config.storage.minFreeBytes),
    replayWebhook: (id, accountId) => dispatcher.replay(id, accountId),
    async startBackground() {
      // Before any job runs: no tool may start unconfined by surprise.
      await startSandbox(config.sandbox, logger);
      // Working directories of a previous process are stale: its jobs re-run from their stored input.
      await rm(workRoot, { recursive: true, force: true });
      if (config.jobs.workers > 0 || config.jobs.mediaWorkers > 0)
        queue.start(runner.run, config.jobs.workers, config.jobs.mediaWorkers);
      await dispatcher.start();
      sweeper.start();
      // The first sweep frees space, so it matters most when the disk is full; failing, it waits for the timer.
      await sweeper.sweep().catch((error) => logger.error({ err: error }, 'sweep failed'));
    },
    async close() {
      sweeper.stop();
      await queue.stop(config.server.shutdownGraceMs);
      await dispatcher.stop();
      await outbound.close();
      await backends.close();
    },
  };
}
