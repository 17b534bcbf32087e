/**
 * `presso connector add|list|remove|test`: an account's store connectors from the command line, through the
 * same service as the REST API (probe write before a connector is kept; credentials never printed).
 * Credentials come as JSON in `--credentials`, or from a file with `--credentials @path` (kept out of the
 * shell history).
 */
import { readFileSync } from 'node:fs';
import { PressoError } from '../errors/catalog.ts';
import type { Config } from '../runtime/config.ts';
import { createCliLogger } from '../runtime/logger.ts';
import { openServices } from '../runtime/open-services.ts';
import { UsageError } from './usage-error.ts';

export interface ConnectorOptions {
  account?: string | undefined;
  kind?: string | undefined;
  name?: string | undefined;
  bucket?: string | undefined;
  region?: string | undefined;
  credentials?: string | undefined;
}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`connector needs ${flag}`);
  return value;
}

function readCredentials(text: string): Record<string, unknown> {
  const json = text.startsWith('@') ? readFileSync(text.slice(1), 'utf8') : text;
  try {
    return JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new UsageError('--credentials must be JSON, or @path of a JSON file');
  }
}

export async function connectorCommand(
  config: Config,
  sub: string | undefined,
  id: string | undefined,
  o: ConnectorOptions,
) {
  const account = need(o.account, '--account ID');
  const services = await openServices(config, createCliLogger(config.logLevel));
  try {
    const { connectors } = services;
    switch (sub) {
      case 'add': {
        const created = await connectors.create(account, {
          kind: need(o.kind, '--kind'),
          name: o.name,
          credentials: readCredentials(need(o.credentials, '--credentials')),
          bucket: need(o.bucket, '--bucket'),
          region: o.region,
        });
        console.log(JSON.stringify(created, null, 2));
        return 0;
      }
      case 'list':
        console.log(JSON.stringify(await connectors.list(account), null, 2));
        return 0;
      case 'remove':
        await connectors.remove(account, need(id, 'a connector id'));
        return 0;
      case 'test':
        await connectors.test(account, need(id, 'a connector id'), need(o.bucket, '--bucket'), o.region);
        console.log('ok: the probe object was written and deleted');
        return 0;
      default:
        throw new UsageError(`Unknown connector command "${sub ?? ''}"`);
    }
  } catch (error) {
    if (!(error instanceof PressoError)) throw error;
    const fields = error.errors?.map((e) => `\n  ${e.field}: ${e.message}`).join('') ?? '';
    console.error(`${error.message}${fields}`);
    return 1;
  } finally {
    await services.close();
  }
}
