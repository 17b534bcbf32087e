/**
 * The whole configuration: one section per component, each declared in the component's own `config.ts`
 * (variables, defaults, descriptions and cross-variable checks together), read from `PRESSO_*` environment
 * variables and validated at start-up. `describeConfig()` lists every variable for the README table and
 * `presso config`, from the same declarations.
 */
import { resolve } from 'node:path';
import {
  describeVars,
  type Env,
  type Loaded,
  oneOf,
  optionalStr,
  type Section,
  section,
  str,
} from '../config/env.ts';
import { connectorsConfig } from '../connectors/config.ts';
import { storageConfig } from '../files/config.ts';
import { serverConfig } from '../http/config.ts';
import { jobsConfig } from '../jobs/config.ts';
import { outboundConfig, serviceIdentityConfig } from '../outbound/config.ts';
import { PROCESSORS } from '../processors/catalog.ts';
import { sandboxConfig } from '../processors/shared/config.ts';
import { rateLimitConfig } from '../ratelimit/config.ts';
import { sessionsConfig } from '../users/config.ts';
import { webhooksConfig } from '../webhooks/config.ts';
import { scaledConfig } from './scaled-config.ts';

/** What belongs to no one component: where data lives, how much is logged, the first account. */
const coreConfig = section(
  {
    dataDir: str('PRESSO_DATA_DIR', {
      default: './data',
      doc: 'Directory for the database, files, TLS pair and keys',
    }),
    logLevel: oneOf('PRESSO_LOG_LEVEL', {
      values: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const,
      default: 'info',
      doc: 'Log level',
    }),
    bootstrapAccount: optionalStr('PRESSO_BOOTSTRAP_ACCOUNT', {
      doc: 'Create this account with a key on first start',
    }),
  },
  (v) => ({ ...v, dataDir: resolve(v.dataDir) }),
);

type ProcessorSections = {
  [M in (typeof PROCESSORS)[number] as M['configKey']]: M['config'];
};

/** The catalog's sections, in its order, keyed as each module names its own. */
function processorSections(): ProcessorSections {
  const sections: Partial<Record<string, unknown>> = {};
  for (const module of PROCESSORS) sections[module.configKey] = module.config;
  // A record built from the tuple cannot carry the per-key types TypeScript reads off the tuple itself.
  return sections as ProcessorSections;
}

/** Every section, in the order the README table lists them (processors last, in the catalog's order). */
const SECTIONS = {
  core: coreConfig,
  runtime: scaledConfig,
  server: serverConfig,
  service: serviceIdentityConfig,
  jobs: jobsConfig,
  sandbox: sandboxConfig,
  outbound: outboundConfig,
  webhooks: webhooksConfig,
  storage: storageConfig,
  rateLimit: rateLimitConfig,
  sessions: sessionsConfig,
  connectors: connectorsConfig,
  ...processorSections(),
} as const;

type Sections = typeof SECTIONS;

export type Config = Loaded<Sections['core']> & {
  [K in Exclude<keyof Sections, 'core'>]: Loaded<Sections[K]>;
};

export function loadConfig(env: Env = process.env): Config {
  const { core, ...components } = SECTIONS;
  const loaded = Object.fromEntries(Object.entries(components).map(([key, s]) => [key, s.load(env)]));
  return { ...core.load(env), ...loaded } as Config;
}

/** Every variable with its default and meaning, section by section. */
export function describeConfig() {
  return describeVars(Object.values(SECTIONS) as Section<unknown>[]);
}
