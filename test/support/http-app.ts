/**
 * Route tests without a listener: `buildApp(...)` over real SQLite stores, local files and the real job
 * service and runner in a temp dir, driven with `app.inject()`. The image processor is replaced by a
 * fake with the same parameter schema (`copyProcessor`: the output is the input), so a route test costs
 * milliseconds and can make a job slow or fail on purpose.
 *
 * The services come from the real composition root (`openEmbeddedBackends` + `buildServices`); only the
 * processors are swapped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Headers, Request, type RequestInit, Response } from 'undici';
import type { AccountService } from '../../src/accounts/account-service.ts';
import type { Account } from '../../src/accounts/account-store.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import type { Processor, ProcessRequest, ProcessResult } from '../../src/processors/processor.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { openEmbeddedBackends } from '../../src/runtime/embedded.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { appFromServices } from '../../src/runtime/presso.ts';
import { buildServices, type Services } from '../../src/runtime/services.ts';
import { jobWaiter, submitCalls, type TestClient } from './presso.ts';

export type ProcessFn = (request: ProcessRequest) => Promise<ProcessResult>;

/** Hands the input back unchanged, as the review's `copyProcessor`. */
export const copyInput: ProcessFn = async (request) => ({
  path: request.input.path,
  format: request.input.format,
  transformed: false,
});

/**
 * The image processor's name, kind, formats and parameter checks with another `process`: requests are
 * validated exactly as in production, and only the pixel work is faked.
 */
export function copyProcessor(process: ProcessFn = copyInput): Processor {
  const image = createImageProcessor({});
  return { ...image, name: 'copy', process };
}

/**
 * The same client surface as the end-to-end harness (test/support/presso.ts), answered by
 * `app.inject()`: a route test reads the same whether it runs here or against a real server.
 */
export interface TestApp extends TestClient {
  app: FastifyInstance;
  dataDir: string;
  account: Account;
  keyId: string;
  accounts: AccountService;
  /** The whole service graph (dashboard users, sessions, configuration). */
  services: Services;
  createAccount(name: string, rateLimit?: number): Promise<{ account: Account; key: string; keyId: string }>;
}

/** The base URL links are made for; requests to it are injected, never sent. */
export const TEST_PUBLIC_URL = 'https://presso.test';

/** Runs a fetch-style request through `app.inject()` and answers with a fetch Response. */
async function inject(
  app: FastifyInstance,
  url: string,
  init: RequestInit,
  auth: string | false,
): Promise<Response> {
  const request = new Request(new URL(url, TEST_PUBLIC_URL), init);
  const headers: Record<string, string> = { 'x-forwarded-proto': 'https' };
  for (const [name, value] of request.headers) headers[name] = value;
  if (auth !== false && headers.authorization === undefined) headers.authorization = auth;
  const target = new URL(request.url);
  const method = request.method as 'GET' | 'HEAD' | 'POST';
  const payload = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  const answer = await app.inject({
    method,
    url: target.pathname + target.search,
    headers,
    ...(payload ? { payload } : {}),
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(one));
  }
  const bodyless = method === 'HEAD' || [101, 204, 205, 304].includes(answer.statusCode);
  return new Response(bodyless ? null : answer.rawPayload, {
    status: answer.statusCode,
    headers: responseHeaders,
  });
}

export async function buildTestApp(
  options: {
    env?: Record<string, string>;
    process?: ProcessFn;
    processors?: Processor[];
    /** An existing data directory to start over (a restart); the caller removes it. */
    dataDir?: string;
  } = {},
): Promise<TestApp> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'presso-http-')));
  const config = loadConfig({
    PRESSO_DATA_DIR: dataDir,
    PRESSO_PUBLIC_URL: TEST_PUBLIC_URL,
    PRESSO_TRUSTED_PROXIES: '127.0.0.1',
    PRESSO_LOG_LEVEL: 'silent',
    PRESSO_WORKERS: '2',
    PRESSO_SHUTDOWN_GRACE: '2s',
    // Outcomes, not speed: a real processor's job on a busy machine must not turn a 200 into a 202.
    PRESSO_SYNC_TIMEOUT: '30m',
    ...options.env,
  });
  const logger = createLogger(config.logLevel);
  const services = buildServices(await openEmbeddedBackends(config, logger), config, logger, {
    // Real processors when a test gives them (the PDF, document, video and audio flows), else the copying fake.
    processors: options.processors ?? [copyProcessor(options.process)],
  });
  const { accounts } = services;
  const app = await appFromServices(services);
  await app.ready();
  await services.startBackground();

  const created = await accounts.createAccount('http-test');
  const key = created.key.key;
  const request: TestClient['request'] = (path, { auth = `Bearer ${key}`, ...init } = {}) =>
    inject(app, path, init, auth);
  const testApp: TestApp = {
    app,
    url: TEST_PUBLIC_URL,
    dataDir,
    key,
    keyId: created.key.id,
    account: created.account,
    accounts,
    services,
    request,
    ...submitCalls(request),
    waitForJob: jobWaiter(request),
    get(url, headers = {}) {
      return inject(app, url, { headers }, false);
    },
    async createAccount(name, rateLimit) {
      const { account, key: apiKey } = await accounts.createAccount(name, rateLimit);
      return { account, key: apiKey.key, keyId: apiKey.id };
    },
    async close() {
      await app.close();
      await services.close();
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
  return testApp;
}
