/** Starts a whole Presso: services, background work, the app and its listener. */
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import { buildApp } from '../http/app.ts';
import { createListener } from '../http/server.ts';
import { loadOrCreateTls, type TlsMaterial } from '../http/tls.ts';
import { openEmbeddedBackends } from './embedded.ts';
import { buildServices, type Services } from './services.ts';

export interface RunningPresso {
  services: Services;
  app: FastifyInstance;
  port: number;
  /** The URL this process answers on (the configured public URL may point at a proxy). */
  localUrl: string;
  tls: TlsMaterial | undefined;
  stop(): Promise<void>;
}

/** The services over the backends of this mode (embedded; the scaled mode adds its factory here). */
export async function openServices(config: Config, logger: Logger): Promise<Services> {
  return buildServices(await openEmbeddedBackends(config, logger), config, logger);
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
  const app = await appFromServices(services, {
    serverFactory: listener.serverFactory,
    isShuttingDown: () => shuttingDown,
  });
  await app.ready();
  await services.startBackground();
  const port = await listener.listen(config.server.host, config.server.port);
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
    { ...services, isShuttingDown },
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
      ...(extra.serverFactory ? { serverFactory: extra.serverFactory } : {}),
    },
  );
}
