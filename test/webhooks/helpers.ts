/** Test doubles that are real: an OutboundClient over fetch and a local HTTP receiver. */
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UpstreamError } from '../../src/errors/catalog.ts';
import type {
  DownloadResult,
  OutboundClient,
  PostRequest,
  PostResult,
} from '../../src/outbound/outbound-client.ts';

/** Only `post` is used by webhooks: a plain fetch with the time-out and no redirects. */
export class FetchOutboundClient implements OutboundClient {
  posts = 0;

  async checkUrl(): Promise<void> {}

  async download(): Promise<DownloadResult> {
    throw new Error('not used by webhook tests');
  }

  async post(request: PostRequest): Promise<PostResult> {
    this.posts++;
    const started = performance.now();
    const signals = [AbortSignal.timeout(request.timeoutMs)];
    if (request.signal) signals.push(request.signal);
    try {
      const response = await fetch(request.url, {
        method: 'POST',
        body: request.body,
        headers: request.headers,
        redirect: 'manual',
        signal: AbortSignal.any(signals),
      });
      await response.arrayBuffer();
      return { status: response.status, durationMs: performance.now() - started };
    } catch (error) {
      throw new UpstreamError(
        `The webhook receiver could not be reached: ${(error as Error).message}`,
        error,
      );
    }
  }

  async close(): Promise<void> {}
}

export interface ReceivedRequest {
  method: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1. `respond` gets the 0-based request number and answers; by default
 * 200 for everything.
 */
export async function startReceiver(
  respond: (index: number, response: ServerResponse) => void | Promise<void> = (_, res) => {
    res.end('ok');
  },
): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const index = requests.length;
    requests.push({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
    await respond(index, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Answers each request with the next status in `statuses` (the last one repeats). */
export function statuses(...codes: number[]) {
  return (index: number, res: ServerResponse) => {
    res.statusCode = codes[Math.min(index, codes.length - 1)]!;
    res.end();
  };
}

export { until as waitFor } from '../support/until.ts';
