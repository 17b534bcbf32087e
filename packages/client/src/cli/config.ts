/**
 * Where the CLI finds the service and the key: PRESSO_API_KEY, PRESSO_URL and PRESSO_CA_CERT (a PEM
 * path) first, then the config file `presso-client login` writes (mode 0600: it holds the key), at
 * PRESSO_CLIENT_CONFIG or $XDG_CONFIG_HOME/presso/client.json (default ~/.config/presso/client.json).
 * The key is never taken from the command line, where other users' `ps` would see it.
 */
import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { NodePressoClient } from '../node.ts';

export interface ClientConfig {
  url: string;
  apiKey: string;
  /** Path of a PEM CA certificate (the server's self-signed one, for the default set-up). */
  ca?: string;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PRESSO_CLIENT_CONFIG) return resolve(env.PRESSO_CLIENT_CONFIG);
  const base = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(base, 'presso', 'client.json');
}

export async function readConfigFile(env: NodeJS.ProcessEnv = process.env): Promise<Partial<ClientConfig>> {
  const text = await readFile(configPath(env), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return '{}';
    throw error;
  });
  return JSON.parse(text) as Partial<ClientConfig>;
}

/** Writes the config file with mode 0600 (created so, never readable by others even for a moment). */
export async function writeConfigFile(
  config: ClientConfig,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const path = configPath(env);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const partial = `${path}.${process.pid}.tmp`;
  await writeFile(partial, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(partial, 0o600);
  await rename(partial, path);
  return path;
}

export class ConfigError extends Error {}

export async function resolveConfig(env: NodeJS.ProcessEnv = process.env): Promise<ClientConfig> {
  const file = await readConfigFile(env);
  const url = env.PRESSO_URL || file.url || 'https://localhost:8443';
  const apiKey = env.PRESSO_API_KEY || file.apiKey;
  if (!apiKey)
    throw new ConfigError(
      'No API key: set PRESSO_API_KEY or run `presso-client login` (the key is never an argument).',
    );
  const ca = env.PRESSO_CA_CERT || file.ca;
  return { url, apiKey, ...(ca ? { ca } : {}) };
}

export async function clientFor(config: ClientConfig, concurrency = 4): Promise<NodePressoClient> {
  const ca = config.ca ? await readFile(config.ca, 'utf8') : undefined;
  return new NodePressoClient({
    baseUrl: config.url,
    apiKey: config.apiKey,
    connections: Math.max(4, concurrency * 2),
    ...(ca ? { ca } : {}),
  });
}
