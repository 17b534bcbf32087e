/**
 * The services over the backends of the configured mode, without the HTTP app: the CLI's account, key, user
 * and connector commands open them through this module and so never load Fastify and the routes
 * (runtime/presso.ts, which starts the API, imports it too).
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { openEmbeddedBackends } from './embedded.ts';
import { buildServices, type Services } from './services.ts';

/** The services over the backends of the configured mode. */
export async function openServices(config: Config, logger: Logger): Promise<Services> {
  // The scaled mode's modules (pg, ioredis, BullMQ, the S3 file store: ~60 MB resident) are loaded only in
  // that mode; the embedded server never needs them (test/architecture/idle-modules.test.ts).
  const backends =
    config.runtime.mode === 'scaled'
      ? await (await import('./scaled.ts')).openScaledBackends(config, logger)
      : await openEmbeddedBackends(config, logger);
  return buildServices(backends, config, logger);
}
