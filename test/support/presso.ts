/**
 * End-to-end harness: a really started Presso (HTTPS listener, workers, SQLite in a temp data dir)
 * and an HTTP client that trusts its self-signed certificate. `spawnPresso` runs the CLI as a child
 * process for the tests that need to kill the server.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { Agent, FormData, fetch, Headers, type RequestInit, type Response } from 'undici';
import type { Account } from '../../src/accounts/account-store.ts';
import { loadConfig } from '../../src/runtime/config.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import { type RunningPresso, startPresso } from '../../src/runtime/presso.ts';
import { freePort } from './ports.ts';
import { scaledMs } from './time-scale.ts';
import { until } from './until.ts';

export { freePort };

const repoRoot = resolve(import.meta.dirname, '..', '..');

/** `auth`: a whole Authorization header value, or false to send none. Default: Bearer with the test key. */
export type TestRequestInit = RequestInit & { auth?: string | false };

export interface TestClient {
  url: string;
  key: string;
  request(path: string, init?: TestRequestInit): Promise<Response>;
  /** POST /1.0/upload with a `file` part (path or bytes) and an optional `data` part (object or raw text). */
  upload(file: string | Buffer, data?: unknown, auth?: string | false, fileName?: string): Promise<Response>;
  /** POST /1.0/fetch with a JSON body. */
  fetchJson(body: unknown, auth?: string | false): Promise<Response>;
  /** Polls GET /1.0/jobs/{id} until the job is completed or failed. */
  waitForJob(id: string): Promise<Record<string, unknown>>;
  /** GET an absolute URL (download links) through the trusting client, without an API key. */
  get(url: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/**
 * `waitForJob` over a harness's `request`, the same for a real server and for `app.inject()`: polls
 * GET /1.0/jobs/{id} until the job has ended. A status poll is idempotent, so a dropped connection is polled
 * again, not a failed test (a server whose event loop is busy past its 5 s keep-alive closes a pooled socket
 * a request is already on: the audit's ECONNRESET). No time limit but the shared hang guard.
 */
export function jobWaiter(request: TestClient['request']): TestClient['waitForJob'] {
  return (id) =>
    until(
      async () => {
        const response = await request(`/1.0/jobs/${id}`).catch((error: unknown) => {
          if (!isConnectionError(error)) throw error;
          return undefined;
        });
        if (response === undefined) return undefined;
        const body = (await response.json()) as Record<string, unknown>;
        if (response.status !== 200)
          throw new Error(`GET /1.0/jobs/${id}: ${response.status} ${JSON.stringify(body)}`);
        return body.status === 'completed' || body.status === 'failed' ? body : undefined;
      },
      `job ${id} to finish`,
      100,
    );
}

/**
 * `upload` and `fetchJson` over a harness's `request`, the same for a real server and for `app.inject()`
 * (test/support/http-app.ts), so a route test reads the same against either.
 */
export function submitCalls(request: TestClient['request']): Pick<TestClient, 'upload' | 'fetchJson'> {
  const withAuth = (auth: string | false | undefined) => (auth === undefined ? {} : { auth });
  return {
    async upload(file, data, auth, fileName) {
      const bytes = typeof file === 'string' ? await readFile(file) : file;
      const name = fileName ?? (typeof file === 'string' ? basename(file) : 'image.png');
      const form = new FormData();
      form.append('file', new Blob([bytes]), name);
      if (data !== undefined) form.append('data', typeof data === 'string' ? data : JSON.stringify(data));
      return request('/1.0/upload', { method: 'POST', body: form, ...withAuth(auth) });
    },
    fetchJson(body, auth) {
      return request('/1.0/fetch', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...withAuth(auth),
      });
    },
  };
}

export interface TestPresso extends TestClient {
  port: number;
  dataDir: string;
  account: Account;
  keyId: string;
  presso: RunningPresso;
  services: RunningPresso['services'];
  /** A second account with its own key on the same server. */
  createAccount(name: string, rateLimit?: number): Promise<{ account: Account; key: string; keyId: string }>;
  stop(): Promise<void>;
}

export const bearer = (key: string) => `Bearer ${key}`;
export const basic = (key: string, colon = true) =>
  `Basic ${Buffer.from(colon ? `${key}:` : key).toString('base64')}`;

/** Errors of a connection that dropped or was refused (a server restarting, a keep-alive socket it closed). */
const CONNECTION_ERRORS = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
]);

export function isConnectionError(error: unknown): boolean {
  for (let e: unknown = error; e instanceof Error; e = e.cause) {
    if (CONNECTION_ERRORS.has(String((e as NodeJS.ErrnoException).code))) return true;
  }
  return false;
}

/**
 * An HTTP client for a running server; `ca` is its certificate (undefined: accept any). With
 * `keepAlive: false` every request opens its own connection, for a server that was just restarted.
 */
export function testClient(
  baseUrl: string,
  key: string,
  ca: string | undefined,
  options: { keepAlive?: boolean } = {},
): TestClient {
  const dispatcher = new Agent({
    connect: ca ? { ca } : { rejectUnauthorized: false },
    keepAliveTimeout: 1000,
    // undici: pipelining 0 closes each connection after its response.
    ...(options.keepAlive === false ? { pipelining: 0 } : {}),
  });
  const request = async (path: string, init: TestRequestInit = {}) => {
    const { auth = bearer(key), headers, ...rest } = init;
    const merged = new Headers(headers);
    if (auth !== false && !merged.has('authorization')) merged.set('authorization', auth);
    const idempotent = rest.method === undefined || rest.method === 'GET' || rest.method === 'HEAD';
    // A pooled connection the server closed as the request went out (its keep-alive timer fired late on a
    // busy machine) is a reset, not an answer: an idempotent request is sent again, as browsers do.
    for (let attempt = 1; ; attempt++) {
      try {
        return await fetch(new URL(path, baseUrl), { ...rest, headers: merged, dispatcher });
      } catch (error) {
        if (!idempotent || attempt >= 3 || !isConnectionError(error)) throw error;
      }
    }
  };
  const client: TestClient = {
    url: baseUrl,
    key,
    request,
    ...submitCalls(request),
    waitForJob: jobWaiter(request),
    get(url, headers = {}) {
      return fetch(url, { headers, dispatcher });
    },
    close: () => dispatcher.close(),
  };
  return client;
}

/**
 * Outcomes, not speed: a busy machine (10 busy loops on 2 cores make every step six times slower) must not push
 * a test job past a kind's default budget (the PDF and document 3 min among them), nor past what a small test
 * input earns (every kind's floor is raised to its budget, so each job gets all of it), nor a synchronous
 * request past its 60 s answer. The tests of budgets and of the synchronous time-out set their own.
 */
export const OUTCOMES_NOT_SPEED: Record<string, string> = {
  PRESSO_IMAGE_TIME_BUDGET: '30m',
  PRESSO_IMAGE_TIME_FLOOR: '30m',
  PRESSO_VIDEO_TIME_FLOOR: '1h',
  PRESSO_AUDIO_TIME_FLOOR: '15m',
  PRESSO_PDF_TIME_BUDGET: '30m',
  PRESSO_PDF_TIME_FLOOR: '30m',
  PRESSO_DOCUMENT_TIME_BUDGET: '30m',
  PRESSO_DOCUMENT_TIME_FLOOR: '30m',
  PRESSO_ARCHIVE_TIME_FLOOR: '10m',
  PRESSO_BUNDLE_TIME_FLOOR: '10m',
  PRESSO_SYNC_TIMEOUT: '30m',
};

export async function startTestPresso(env: Record<string, string> = {}): Promise<TestPresso> {
  const dataDir = await mkdtemp(join(tmpdir(), 'presso-api-'));
  let presso: RunningPresso | undefined;
  let port = 0;
  for (let attempt = 0; !presso; attempt++) {
    port = await freePort();
    const config = loadConfig({
      PRESSO_DATA_DIR: dataDir,
      PRESSO_HOST: '127.0.0.1',
      PRESSO_PORT: String(port),
      PRESSO_PUBLIC_URL: `https://127.0.0.1:${port}`,
      PRESSO_LOG_LEVEL: 'silent',
      PRESSO_SHUTDOWN_GRACE: '2s',
      // Readiness must not depend on how full the test machine's disk is; full-disk tests set their own.
      PRESSO_MIN_FREE_DISK: '1MiB',
      ...OUTCOMES_NOT_SPEED,
      ...env,
    });
    try {
      presso = await startPresso(config, createLogger(config.logLevel));
    } catch (error) {
      // Another test process took the port between the probe and the bind.
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw error;
    }
  }
  const running = presso;
  const services = running.services;
  const created = await services.accounts.createAccount('api-test');
  const url = `https://127.0.0.1:${port}`;
  const client = testClient(url, created.key.key, running.tls?.cert);
  return {
    ...client,
    port,
    dataDir,
    account: created.account,
    keyId: created.key.id,
    presso: running,
    services,
    async createAccount(name, rateLimit) {
      const { account, key } = await services.accounts.createAccount(name, rateLimit);
      return { account, key: key.key, keyId: key.id };
    },
    async stop() {
      await client.close();
      await running.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const execFileAsync = promisify(execFile);

/** `presso account create` against a data dir (the CLI path an operator uses); returns the key. */
export async function createAccountCli(
  dataDir: string,
  name: string,
  env: Record<string, string> = {},
  rateLimit?: number,
): Promise<{ key: string; id: string }> {
  const limit = rateLimit === undefined ? [] : ['--rate-limit', String(rateLimit)];
  const { stdout } = await execFileAsync(
    process.execPath,
    [join(repoRoot, 'src/cli/main.ts'), 'account', 'create', '--name', name, ...limit],
    { cwd: repoRoot, env: { ...process.env, ...env, PRESSO_DATA_DIR: dataDir, PRESSO_LOG_LEVEL: 'silent' } },
  );
  let parsed: { account: { id: string }; key: { key: string } };
  try {
    parsed = JSON.parse(stdout);
  } catch (error) {
    // The command's output is one JSON document and nothing else; name what else it printed.
    throw new Error(`presso account create printed more than its JSON: ${JSON.stringify(stdout)}`, {
      cause: error,
    });
  }
  return { key: parsed.key.key, id: parsed.account.id };
}

export interface SpawnedPresso {
  child: ChildProcess;
  url: string;
  port: number;
  /** The certificate the child generated in its data dir. */
  cert: string;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** How long a spawned server may take to say it listens (scaled); a test of a failed start sets less. */
const START_TIMEOUT_MS = 30_000;

/**
 * `node src/cli/main.ts serve` as a child process; resolves once it prints that it is listening. A start that
 * fails (early exit, or no word within `startTimeoutMs`) leaves no process behind: the child is killed and
 * reaped before the promise rejects, as no caller holds it to kill it later.
 */
export async function spawnPresso(
  dataDir: string,
  env: Record<string, string> = {},
  port?: number,
  startTimeoutMs = scaledMs(START_TIMEOUT_MS),
): Promise<SpawnedPresso> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await spawnOnce(dataDir, env, port ?? (await freePort()), startTimeoutMs);
    } catch (error) {
      // Another process took the probed port before the child bound it: try another one.
      if (port !== undefined || attempt >= 3 || !String(error).includes('EADDRINUSE')) throw error;
    }
  }
}

async function spawnOnce(
  dataDir: string,
  env: Record<string, string>,
  chosen: number,
  startTimeoutMs: number,
): Promise<SpawnedPresso> {
  const child = spawn(process.execPath, [join(repoRoot, 'src/cli/main.ts'), 'serve'], {
    cwd: repoRoot,
    env: {
      // bin/presso sets these before Node starts (glibc reads them once); the child gets the same.
      MALLOC_ARENA_MAX: '2',
      MALLOC_MMAP_THRESHOLD_: '1048576',
      ...process.env,
      PRESSO_DATA_DIR: dataDir,
      PRESSO_HOST: '127.0.0.1',
      PRESSO_PORT: String(chosen),
      PRESSO_PUBLIC_URL: `https://127.0.0.1:${chosen}`,
      PRESSO_LOG_LEVEL: 'silent',
      PRESSO_MIN_FREE_DISK: '1MiB',
      ...OUTCOMES_NOT_SPEED,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((ok) => {
    if (child.exitCode !== null || child.signalCode !== null) ok();
    else child.once('exit', () => ok());
  });
  await new Promise<void>((ok, fail) => {
    // Killed and reaped first: an orphaned server's open stdout would keep the test file alive for good.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      void exited.then(() =>
        fail(new Error(`presso (pid ${child.pid}) did not start within ${startTimeoutMs} ms:\n${output}`)),
      );
    }, startTimeoutMs);
    const onData = () => {
      // A worker (`serve --role worker`) has no API: it says it runs instead.
      if (output.includes('Presso is listening on') || output.includes('Presso worker is running')) {
        clearTimeout(timer);
        ok();
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') return; // killed by the timer above, which rejects
      clearTimeout(timer);
      fail(new Error(`presso exited early (${code ?? signal}):\n${output}`));
    });
  });
  // A worker has no API, so no certificate.
  const cert = await readFile(join(dataDir, 'tls', 'cert.pem'), 'utf8').catch(() => '');
  return {
    child,
    url: `https://127.0.0.1:${chosen}`,
    port: chosen,
    cert,
    output: () => output,
    async kill(signal = 'SIGKILL') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
