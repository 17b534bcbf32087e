/** Account and key management from the command line; output is JSON for scripts. */
import type { Config } from '../runtime/config.ts';
import { createCliLogger } from '../runtime/logger.ts';
import { openServices } from '../runtime/open-services.ts';
import { UsageError } from './usage-error.ts';

type Options = { name?: string | undefined; 'rate-limit'?: string | undefined; account?: string | undefined };

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new UsageError('--rate-limit must be a positive integer');
  return Number(text);
}

export async function withServices<T>(
  config: Config,
  fn: (s: Awaited<ReturnType<typeof openServices>>) => Promise<T>,
) {
  const services = await openServices(config, createCliLogger(config.logLevel));
  try {
    return await fn(services);
  } finally {
    await services.close();
  }
}

export async function accountCommand(
  config: Config,
  sub: string | undefined,
  options: Options,
): Promise<number> {
  if (sub === 'create') {
    if (!options.name) {
      console.error('account create needs --name');
      return 2;
    }
    const rateLimit = parseLimit(options['rate-limit']);
    return withServices(config, async ({ accounts }) => {
      const { account, key } = await accounts.createAccount(options.name!, rateLimit);
      print({
        account: { id: account.id, name: account.name, rateLimit: account.rateLimit },
        key: { id: key.id, key: key.key },
        webhookSecret: account.webhookSecret,
      });
      return 0;
    });
  }
  if (sub === 'list') {
    return withServices(config, async ({ accounts }) => {
      const list = [];
      for (const account of await accounts.listAccounts()) {
        const keys = await accounts.listKeys(account.id);
        list.push({
          id: account.id,
          name: account.name,
          rateLimit: account.rateLimit,
          createdAt: new Date(account.createdAt).toISOString(),
          keys: keys.map((k) => ({ id: k.id, prefix: k.prefix, revoked: k.revokedAt !== undefined })),
          usage: await accounts.getUsage(account.id),
        });
      }
      print(list);
      return 0;
    });
  }
  console.error('Usage: presso account create --name N [--rate-limit N] | presso account list');
  return 2;
}

export async function keyCommand(
  config: Config,
  sub: string | undefined,
  target: string | undefined,
  options: Options,
): Promise<number> {
  if (sub === 'create' && options.account) {
    return withServices(config, async ({ accounts }) => {
      const key = await accounts.createKey(options.account!);
      print({ key: { id: key.id, key: key.key, account: options.account } });
      return 0;
    });
  }
  if (sub === 'revoke' && target) {
    return withServices(config, async ({ accounts }) => {
      await accounts.revokeKey(target);
      print({ key: { id: target, revoked: true } });
      return 0;
    });
  }
  console.error('Usage: presso key create --account ID | presso key revoke KEY_ID');
  return 2;
}
