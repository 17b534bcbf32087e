/**
 * presso-client: the Presso API from a shell. Exit codes: 0 done, 1 a file or call failed, 2 usage,
 * 130 interrupted (Ctrl-C; a batch can then be finished with --resume).
 */
import { parseArgs } from 'node:util';
import { PressoClientError } from '../errors.ts';
import { PressoWebhookError, verifyWebhook } from '../webhooks.ts';
import { runBatch } from './compress.ts';
import { ConfigError, clientFor, resolveConfig, writeConfigFile } from './config.ts';
import { buildParams, UsageError } from './params.ts';
import { JsonReporter, PlainReporter, type Reporter, TerminalReporter } from './progress.ts';

const USAGE = `Usage: presso-client <command> [options]

  compress FILES|DIRS... [--compression high] [--format webp] [--resize 800x600:fit] [--data JSON]
           (--out DIR | --in-place | --store CONNECTOR:BUCKET/PATH [--region R]) [--include GLOB]... [--exclude GLOB]...
           [--concurrency 4] [--resume] [--json]
  fetch URL [--compression ...] [--format ...] [--resize ...] [--data JSON] [--out DIR]
  job ID [--wait]
  account
  connectors list | add --data JSON | test ID --bucket B [--region R] | remove ID
  webhooks verify --secret S --id ID --timestamp T --signature SIG < body
  login [--url URL] [--ca PEM_PATH]      (the key is read from PRESSO_API_KEY or stdin)

The key comes from PRESSO_API_KEY or the config file \`login\` writes; the base URL from PRESSO_URL, the CA
certificate from PRESSO_CA_CERT (a PEM path), or the same file.`;

const OPTIONS = {
  compression: { type: 'string' },
  format: { type: 'string' },
  resize: { type: 'string' },
  data: { type: 'string' },
  store: { type: 'string' },
  out: { type: 'string' },
  'in-place': { type: 'boolean' },
  include: { type: 'string', multiple: true },
  exclude: { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  resume: { type: 'boolean' },
  json: { type: 'boolean' },
  wait: { type: 'boolean' },
  bucket: { type: 'string' },
  region: { type: 'string' },
  secret: { type: 'string' },
  id: { type: 'string' },
  timestamp: { type: 'string' },
  signature: { type: 'string' },
  url: { type: 'string' },
  ca: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function compress(targets: string[], values: Values): Promise<number> {
  if (targets.length === 0) throw new UsageError('compress needs files or folders.');
  if (!values.out && !values['in-place'] && !values.store)
    throw new UsageError('Give --out DIR, --in-place or --store.');
  const concurrency = Number(values.concurrency ?? 4);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
    throw new UsageError('--concurrency is 1 to 64.');
  const params = buildParams(values);
  const client = await clientFor(await resolveConfig(), concurrency);
  const controller = new AbortController();
  // First Ctrl-C: stop cleanly (outputs done so far stay, with their manifest); a second one: at once.
  const onSigint = () => {
    if (controller.signal.aborted) {
      // The second one ends the process by the signal itself, as a shell expects (status 130).
      process.off('SIGINT', onSigint);
      process.kill(process.pid, 'SIGINT');
      return;
    }
    controller.abort(new Error('interrupted'));
  };
  process.on('SIGINT', onSigint);
  const reporter: Reporter = values.json
    ? new JsonReporter(process.stdout)
    : process.stderr.isTTY
      ? new TerminalReporter(process.stderr)
      : new PlainReporter(process.stdout, process.stderr);
  try {
    const summary = await runBatch(client, {
      targets,
      filters: { include: values.include ?? [], exclude: values.exclude ?? [] },
      params,
      ...(values.out ? { out: values.out } : {}),
      inPlace: values['in-place'] ?? false,
      concurrency,
      resume: values.resume ?? false,
      reporter,
      signal: controller.signal,
    });
    if (summary.interrupted) return 130;
    return summary.failed.length > 0 ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    await client.close();
  }
}

async function withClient(
  run: (client: Awaited<ReturnType<typeof clientFor>>) => Promise<unknown>,
): Promise<number> {
  const client = await clientFor(await resolveConfig());
  try {
    const result = await run(client);
    if (result !== undefined) print(result);
    return 0;
  } finally {
    await client.close();
  }
}

async function connectors(sub: string | undefined, rest: string[], values: Values): Promise<number> {
  return withClient(async (client) => {
    switch (sub) {
      case 'list':
        return client.connectors.list();
      case 'add':
        if (!values.data)
          throw new UsageError('connectors add --data \'{"kind":"s3","credentials":{...},"bucket":"b"}\'');
        return client.connectors.add(JSON.parse(values.data));
      case 'test':
        if (!rest[0] || !values.bucket) throw new UsageError('connectors test ID --bucket B [--region R]');
        return client.connectors.test(rest[0], {
          bucket: values.bucket,
          ...(values.region ? { region: values.region } : {}),
        });
      case 'remove':
        if (!rest[0]) throw new UsageError('connectors remove ID');
        await client.connectors.remove(rest[0]);
        return { removed: rest[0] };
      default:
        throw new UsageError('connectors list | add | test | remove');
    }
  });
}

async function verify(values: Values): Promise<number> {
  if (!values.secret || !values.id || !values.timestamp || !values.signature)
    throw new UsageError('webhooks verify --secret S --id ID --timestamp T --signature SIG < body');
  const body = await readStdin();
  const headers = {
    'webhook-id': values.id,
    'webhook-timestamp': values.timestamp,
    'webhook-signature': values.signature,
  };
  try {
    await verifyWebhook(body, headers, values.secret);
    process.stdout.write('valid\n');
    return 0;
  } catch (error) {
    if (!(error instanceof PressoWebhookError)) throw error;
    process.stdout.write(`invalid: ${error.message}\n`);
    return 1;
  }
}

async function login(values: Values): Promise<number> {
  const apiKey = process.env.PRESSO_API_KEY || (await readStdin()).trim();
  if (!apiKey) throw new UsageError('login reads the key from PRESSO_API_KEY or stdin.');
  const config = {
    url: values.url ?? process.env.PRESSO_URL ?? 'https://localhost:8443',
    apiKey,
    ...(values.ca ? { ca: (await import('node:path')).resolve(values.ca) } : {}),
  };
  const client = await clientFor(config);
  const account = await client.account().finally(() => client.close());
  const path = await writeConfigFile(config);
  process.stdout.write(
    `Signed in to ${config.url} as account ${account.name} (${account.id}); config: ${path}\n`,
  );
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true });
  const [command, ...rest] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    return command || values.help ? 0 : 2;
  }
  switch (command) {
    case 'compress':
      return compress(rest, values);
    case 'fetch':
      if (!rest[0]) throw new UsageError('fetch URL');
      return withClient(async (client) => {
        const result = await client.compress({ url: rest[0]! }, buildParams(values));
        if (values.out) await client.download(result, values.out);
        return result;
      });
    case 'job':
      if (!rest[0]) throw new UsageError('job ID [--wait]');
      return withClient((client) => (values.wait ? client.wait(rest[0]!) : client.job(rest[0]!)));
    case 'account':
      return withClient((client) => client.account());
    case 'connectors':
      return connectors(rest[0], rest.slice(1), values);
    case 'webhooks':
      if (rest[0] !== 'verify') throw new UsageError('webhooks verify ...');
      return verify(values);
    case 'login':
      return login(values);
    default:
      throw new UsageError(`Unknown command "${command}".`);
  }
}

export async function run(argv: string[]): Promise<void> {
  try {
    process.exitCode = await main(argv);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (error instanceof PressoClientError || error instanceof ConfigError) {
      process.stderr.write(`presso-client: ${error.message}\n`);
      process.exitCode = 1;
    } else throw error;
  }
}
