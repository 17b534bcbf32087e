/** Starts a whole Presso: services, background work, the app and its listener. */
import type { Server } from 'node:http';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { Logger } from 'pino';
import { buildApp } from '../http/app.ts';
import { readiness } from '../http/readiness.ts';
import { createListener } from '../http/server.ts';
import { loadOrCreateTls, type TlsMaterial } from '../http/tls.ts';
import type { Config } from './config.ts';
import { dataPaths } from './data-dir.ts';
import { openServices } from './open-services.ts';
import { startOpsServer } from './ops-server.ts';
import type { Services } from './services.ts';

export interface RunningPresso {
  services: Services;
  app: FastifyInstance;
  port: number;
  /** The URL this process answers on (the configured public URL may point at a proxy). */
  localUrl: string;
  tls: TlsMaterial | undefined;
  stop(): Promise<void>;
}

/**
 * Runs `start` over freshly opened services; when it fails, the services are closed again, so a process
 * whose start-up failed holds no connection that keeps it alive (and no worker that takes jobs).
 */
async function startingWith<T>(services: Services, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await services.close().catch(() => {});
    throw error;
  }
}

async function startOps(services: Services, isShuttingDown: () => boolean): Promise<Server | undefined> {
  const { config, logger } = services;
  if (config.runtime.metricsPort === 0) return undefined;
  const server = await startOpsServer(config.server.host, config.runtime.metricsPort, {
    metrics: services.metrics,
    readiness: () => readiness({ ...services, isShuttingDown, sandbox: config.sandbox.mode }),
    logger,
  });
  logger.info({ port: config.runtime.metricsPort }, 'metrics and health listener is ready');
  return server;
}

export interface RunningWorker {
  services: Services;
  stop(): Promise<void>;
}

/**
 * A worker process of the scaled-out mode: jobs, webhook deliveries and sweeping, no API; health and
 * metrics on the ops listener. SIGTERM stops taking jobs, gives running ones the shutdown grace, then
 * hands the rest back to the queue for another worker.
 */
export async function startWorker(config: Config, logger: Logger): Promise<RunningWorker> {
  const services = await openServices(config, logger);
  let shuttingDown = false;
  const ops = await startingWith(services, async () => {
    await services.startBackground();
    return startOps(services, () => shuttingDown);
  });
  logger.info({ workers: config.jobs.workers }, 'presso worker is ready');
  let stopping: Promise<void> | undefined;
  return {
    services,
    stop() {
      stopping ??= (async () => {
        shuttingDown = true;
        await services.close();
        await new Promise<void>((resolve) => (ops ? ops.close(() => resolve()) : resolve()));
        logger.info('presso worker stopped');
      })();
      return stopping;
    },
  };
}

export async function startPresso(config: Config, logger: Logger): Promise<RunningPresso> {
  const tls =
    config.server.tls === 'on'
      ? await loadOrCreateTls(
          config.dataDir,
          { certPath: config.server.tlsCertPath, keyPath: config.server.tlsKeyPath },
          [new URL(config.server.publicUrl).hostname],
        )
      : undefined;
  if (tls?.generated) logger.info({ certificate: tls.certPath }, 'generated a self-signed TLS certificate');
  const services = await openServices(config, logger);
  let shuttingDown = false;
  const listener = createListener(tls, {
    headersTimeoutMs: config.server.headersTimeoutMs,
    maxTotal: config.server.maxConnections,
    maxPerAddress: config.server.maxConnectionsPerAddress,
    exempt: config.server.trustedProxies,
  });
  const { app, ops, port } = await startingWith(services, async () => {
    const app = await appFromServices(services, {
      serverFactory: listener.serverFactory,
      isShuttingDown: () => shuttingDown,
    });
    await app.ready();
    // The API role leaves jobs, webhooks and sweeping to the worker processes.
    if (config.runtime.role !== 'api') await services.startBackground();
    const ops = await startOps(services, () => shuttingDown);
    const port = await listener.listen(config.server.host, config.server.port).catch(async (error) => {
      await new Promise<void>((resolve) => (ops ? ops.close(() => resolve()) : resolve()));
      throw error;
    });
    return { app, ops, port };
  });
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const localUrl = `${tls ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? 'localhost' : host}:${port}`;
  logger.info({ url: config.server.publicUrl, listening: localUrl }, 'presso is ready');

  let stopping: Promise<void> | undefined;
  return {
    services,
    app,
    port,
    localUrl,
    tls,
    stop() {
      stopping ??= (async () => {
        shuttingDown = true;
        // Stop taking requests and let those in flight finish (synchronous waits included), then
        // let running jobs finish or hand them back to the queue.
        await listener.close(config.server.shutdownGraceMs);
        await app.close();
        await services.close();
        await new Promise<void>((resolve) => (ops ? ops.close(() => resolve()) : resolve()));
        logger.info('presso stopped');
      })();
      return stopping;
    },
  };
}

/** The app over a set of services; `presso openapi` uses it without a listener. */
export function appFromServices(
  services: Services,
  extra: { serverFactory?: FastifyServerFactory; isShuttingDown?: () => boolean } = {},
): Promise<FastifyInstance> {
  const { config } = services;
  const isShuttingDown = extra.isShuttingDown ?? (() => false);
  return buildApp(
    { ...services, isShuttingDown, sandbox: config.sandbox.mode },
    {
      maxInputBytes: config.jobs.maxInputBytes,
      defaultRateLimit: config.rateLimit.defaultLimit,
      rateWindowMs: config.rateLimit.windowMs,
      trustedProxies: config.server.trustedProxies,
      publicUrl: config.server.publicUrl,
      headersTimeoutMs: config.server.headersTimeoutMs,
      bodyTimeouts: {
        idleMs: config.server.bodyIdleTimeoutMs,
        minBytesPerSecond: config.server.bodyMinBytesPerSecond,
      },
      maxUploadsPerKey: config.server.maxUploadsPerKey,
      eventsHeartbeatMs: config.jobs.eventsHeartbeatMs,
      uploadsDir: dataPaths(services.localDataDir).uploads,
      ...(extra.serverFactory ? { serverFactory: extra.serverFactory } : {}),
    },
  );
}
