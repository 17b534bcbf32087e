/**
 * A local plain-HTTP server for fetch sources and webhook receivers. It records every request (headers
 * and raw body) and answers through a handler the test supplies.
 */
import http from 'node:http';
import type net from 'node:net';
import { until } from './until.ts';

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Handler = (req: Received, res: http.ServerResponse) => void | Promise<void>;

export interface Receiver {
  /** `http://<host>:<port>` */
  origin: string;
  port: number;
  requests: Received[];
  /** Resolves when `count` requests in all have arrived. */
  waitFor(count: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(handler: Handler, host = '127.0.0.1'): Promise<Receiver> {
  const requests: Received[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const received: Received = {
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks),
    };
    requests.push(received);
    try {
      await handler(received, res);
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, host, ok);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    origin: `http://${host}:${port}`,
    port,
    requests,
    async waitFor(count) {
      await until(() => requests.length >= count, `${count} requests to arrive`);
      return requests;
    },
    close() {
      server.closeAllConnections();
      return new Promise((ok) => server.close(() => ok()));
    },
  };
}

/** Serves one file's bytes with the given content type. */
export function serveBytes(bytes: Buffer, contentType = 'application/octet-stream'): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    res.end(bytes);
  };
}
