/** Shared fixtures of the outbound tests: real local HTTP servers and a scratch directory. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { UpstreamError, ValidationError } from '../../src/errors/catalog.ts';
import { GuardedOutboundClient } from '../../src/outbound/guarded-client.ts';
import type { OutboundOptions } from '../../src/outbound/outbound-client.ts';

export interface Recorded {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface TestServer {
  origin: string;
  port: number;
  requests: Recorded[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage, res: ServerResponse, server: TestServer) => void;

export async function serve(host: string, handler: Handler): Promise<TestServer> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, result);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  const result: TestServer = {
    origin: `http://${host}:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return result;
}

export const baseOptions: OutboundOptions = {
  allowCidrs: [],
  connectTimeoutMs: 2_000,
  totalTimeoutMs: 5_000,
  maxRedirects: 5,
  serviceName: 'Presso',
  siteUrl: 'https://presso.example',
};

export function client(overrides: Partial<OutboundOptions> = {}): GuardedOutboundClient {
  return new GuardedOutboundClient({ ...baseOptions, ...overrides });
}

export function isFieldError(field: string, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof ValidationError, `expected ValidationError, got ${String(error)}`);
    assert.equal(error.statusCode, 422);
    assert.equal(error.errors?.[0]?.field, field);
    assert.match(error.errors?.[0]?.message ?? '', message);
    return true;
  };
}

export function isUpstream(message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof UpstreamError, `expected UpstreamError, got ${String(error)}`);
    assert.match(error.message, message);
    return true;
  };
}

export function abortAfter(ms: number, reason: unknown): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(reason), ms);
  return controller.signal;
}

/** A scratch directory for the calling test file; returns a factory of fresh destination paths. */
export function scratchFiles(): () => string {
  let dir = '';
  let counter = 0;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presso-outbound-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  return () => join(dir, `download-${++counter}`);
}
