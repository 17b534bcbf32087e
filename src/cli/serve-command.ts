/**
 * `presso serve`: the API and workers (role `all`, the embedded default), or in scaled mode the API alone
 * (`--role api`) or a worker alone (`--role worker`), with graceful shutdown on SIGTERM/SIGINT.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../runtime/config.ts';
import { createLogger } from '../runtime/logger.ts';
import { openServices } from '../runtime/open-services.ts';
import { appFromServices, startPresso, startWorker } from '../runtime/presso.ts';

export async function serveCommand(config: Config, logger: Logger): Promise<number> {
  // The last resort only: every background loop catches its own failures (a full disk included). A
  // rejection that still gets here is a bug to fix where it happened, but it must not end a process
  // whose accepted jobs would then wait for a restart.
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'unhandled promise rejection (a bug: it should have been caught)');
  });
  if (config.runtime.role === 'worker') {
    const worker = await startWorker(config, logger);
    console.log(`Presso worker is running (${config.jobs.workers} job workers)`);
    await untilSignal(logger, () => worker.stop());
    return 0;
  }
  const presso = await startPresso(config, logger);
  if (config.bootstrapAccount) {
    const existing = (await presso.services.accounts.listAccounts()).find(
      (a) => a.name === config.bootstrapAccount,
    );
    if (!existing) {
      const { account, key } = await presso.services.accounts.createAccount(config.bootstrapAccount);
      // Printed once, to stdout, on purpose: this is how the operator learns the key.
      console.log(
        JSON.stringify({ bootstrapAccount: { id: account.id, name: account.name, apiKey: key.key } }),
      );
    }
  }
  console.log(`Presso is listening on ${presso.localUrl} (public URL ${config.server.publicUrl})`);
  if (presso.tls?.generated || presso.tls?.certPath.startsWith(config.dataDir)) {
    console.log(`Self-signed TLS certificate: ${presso.tls.certPath}`);
  }
  await untilSignal(logger, () => presso.stop());
  return 0;
}

/** Waits for SIGTERM or SIGINT, then for `stop` (graceful: requests and jobs in flight get the grace). */
function untilSignal(logger: Logger, stop: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      logger.info({ signal }, 'shutting down');
      stop().then(resolve, (error) => {
        logger.error({ err: error }, 'shutdown failed');
        resolve();
      });
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
}

export async function openapiCommand(config: Config): Promise<number> {
  console.log(JSON.stringify(await generateOpenApi(config), null, 2));
  return 0;
}

/** The OpenAPI document of the app as configured, built over throw-away state (nothing is written to the data dir). */
export async function generateOpenApi(config: Config): Promise<unknown> {
  const scratch = await mkdtemp(join(tmpdir(), 'presso-openapi-'));
  const services = await openServices({ ...config, dataDir: scratch }, createLogger('silent'));
  try {
    const app = await appFromServices(services);
    await app.ready();
    const document = app.swagger() as { servers?: unknown };
    await app.close();
    // The document describes every deployment, not this machine's: the host is a variable whose default
    // is the configured one (the live /1.0/openapi.json names the deployment's own PRESSO_PUBLIC_URL).
    const { host, protocol } = new URL(config.server.publicUrl);
    document.servers = [
      {
        url: `${protocol}//{host}`,
        variables: {
          host: { default: host, description: 'Host and port of your Presso (PRESSO_PUBLIC_URL)' },
        },
      },
    ];
    return document;
  } finally {
    await services.close();
    await rm(scratch, { recursive: true, force: true });
  }
}
