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
import { laneOf } from '../processors/catalog.ts';
import { createProcessors } from '../processors/host.ts';
import type { HostSettings } from '../processors/module.ts';
import type { Processor } from '../processors/processor.ts';
import { ProcessorRegistry } from '../processors/registry.ts';
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

/** What processors may read besides their own section: the operator's archive and image settings, as loaded. */
export function hostSettings(config: Config): HostSettings {
  return { archive: config.archive, images: { maxPixels: config.images.maxPixels } };
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
  // The catalog's processors (processors/catalog.ts), each from its loaded section; bundles and documents also
  // read the operator's archive and image settings, handed over here rather than taken from defaults.
  const processors = options.processors
    ? new ProcessorRegistry(options.processors)
    : createProcessors({
        sections: config,
        settings: hostSettings(config),
        // A tool that succeeded with warnings (qpdf repairing a damaged file) is logged; the path names the job.
        warn: (component, message) => logger.warn({ component }, message),
      });
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
      laneOf,
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
