/**
 * `presso` command line: `serve` runs the embedded default; the other commands manage accounts, keys and
 * store connectors in the same data directory (stop nothing: SQLite in WAL mode takes a second writer safely).
 */
import { parseArgs } from 'node:util';
import { ConfigError } from '../errors/catalog.ts';
import { describeConfig, loadConfig } from '../runtime/config.ts';
import { createLogger } from '../runtime/logger.ts';
import { UsageError } from './usage-error.ts';

const USAGE = `Usage: presso <command> [options]

Commands:
  serve [--role all|api|worker]           Start the HTTPS API, workers and sweeper (all, the default); in
                                          scaled mode (PRESSO_MODE=scaled) the API alone or a worker alone
  account create --name N [--rate-limit N] Create an account and its first API key (prints JSON)
  account list                            List accounts with their keys (prefixes only)
  key create --account ID                 Create another API key for an account
  user create (--account ID | --name N) --email E [--role owner|member|operator] [--invite]
                                          Create a dashboard user (password from stdin or a prompt; with
                                          --name, in a new account); --invite prints a one-time link instead
  key revoke KEY_ID                       Revoke a key
  connector add --account ID --kind K --bucket B [--region R] [--name N] --credentials JSON|@file
                                          Add a store connector (s3, r2, b2, spaces, gcs, azure) after a probe write
  connector list --account ID             List an account's connectors (masked hints)
  connector remove CONNECTOR_ID --account ID
  connector test CONNECTOR_ID --account ID --bucket B [--region R]
  openapi                                 Print the OpenAPI 3.1 document
  config                                  Print every PRESSO_* variable with its default

Configuration comes from PRESSO_* environment variables; see the README.`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      'rate-limit': { type: 'string' },
      account: { type: 'string' },
      kind: { type: 'string' },
      bucket: { type: 'string' },
      region: { type: 'string' },
      credentials: { type: 'string' },
      role: { type: 'string' },
      email: { type: 'string' },
      invite: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub, ...rest] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return command ? 0 : 2;
  }
  if (command === 'config') {
    for (const v of describeConfig()) console.log(`${v.name}\t${v.default}\t${v.description}`);
    return 0;
  }
  // `serve --role` is PRESSO_ROLE for this process: one place checks it (runtime/scaled-config.ts).
  // (`user create --role` is the user's role.)
  const config = loadConfig(
    values.role === undefined || command !== 'serve'
      ? process.env
      : { ...process.env, PRESSO_ROLE: values.role },
  );
  // Each command loads only its own modules: an account or connector command needs the services, not the
  // HTTP app (Fastify, the routes, their schemas), which `serve` and `openapi` load.
  switch (command) {
    case 'serve':
      return (await import('./serve-command.ts')).serveCommand(config, createLogger(config.logLevel));
    case 'openapi':
      return (await import('./serve-command.ts')).openapiCommand(config);
    case 'account':
      return (await import('./admin-commands.ts')).accountCommand(config, sub, values);
    case 'key':
      return (await import('./admin-commands.ts')).keyCommand(config, sub, rest[0] ?? values.account, values);
    case 'user':
      return (await import('./user-command.ts')).userCommand(config, sub, values);
    case 'connector':
      return (await import('./connector-command.ts')).connectorCommand(config, sub, rest[0], values);
    default:
      console.error(`Unknown command "${command}".\n\n${USAGE}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError) console.error(`Configuration error: ${error.message}`);
    else if (error instanceof UsageError) console.error(`${error.message}\n\n${USAGE}`);
    else console.error(error instanceof Error ? error.message : error);
    process.exitCode = error instanceof UsageError ? error.exitCode : 1;
  },
);
