/**
 * The listening socket. With TLS on, one port serves both protocols: the first byte of a connection
 * tells a TLS handshake (0x16) from plain HTTP, so a plain-HTTP request still gets the documented
 * 403 body instead of a TLS alert it cannot read. With TLS off (behind a trusted proxy) it is plain HTTP
 * and the proxy's X-Forwarded-Proto decides.
 *
 * Hostile and slow clients are bounded here, before any route runs: connection caps (total and per
 * address), a deadline for the first byte and for the whole header block, and the size limit of the
 * header block (answered 431 in the documented body by client-errors.ts).
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { FastifyServerFactory } from 'fastify';
import { makeClientErrorHandler } from './client-errors.ts';
import { type ConnectionCaps, ConnectionCounter } from './connection-limits.ts';
import type { TlsMaterial } from './tls.ts';

const TLS_HANDSHAKE = 0x16;

export interface ListenerLimits extends ConnectionCaps {
  /** From the first byte of a request to the end of its headers (and from accept to the first byte). */
  headersTimeoutMs: number;
}

export interface Listener {
  serverFactory: FastifyServerFactory;
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections, lets requests in flight finish for `graceMs`, then closes the rest. */
  close(graceMs: number): Promise<void>;
}

export function createListener(tls: TlsMaterial | undefined, limits: ListenerLimits): Listener {
  const servers: http.Server[] = [];
  let tcp: net.Server | undefined;
  const sockets = new Set<net.Socket>();
  const counter = new ConnectionCounter(limits);
  const timeouts = {
    requestTimeout: 0,
    keepAliveTimeout: 5000,
    headersTimeout: limits.headersTimeoutMs,
    // node checks the headers deadline on this period (default 30 s), so a short deadline needs a
    // matching period; a tenth of it keeps the overshoot small for at most one timer per server.
    connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(limits.headersTimeoutMs / 10))),
  };

  const serverFactory: FastifyServerFactory = (handler) => {
    const plain = http.createServer(timeouts, handler);
    servers.push(plain);
    if (!tls) return plain;
    // Fastify installs its clientError handler on the server it is given; the plain one needs its own.
    plain.on('clientError', makeClientErrorHandler(limits.headersTimeoutMs));
    const secure = https.createServer(
      { cert: tls.cert, key: tls.key, handshakeTimeout: limits.headersTimeoutMs, ...timeouts },
      handler,
    );
    servers.push(secure);
    return secure as unknown as http.Server;
  };

  return {
    serverFactory,
    listen(host, port) {
      const [plain, secure] = servers;
      if (!plain) throw new Error('the app was not built with this listener');
      tcp = net.createServer({ pauseOnConnect: false }, (socket) => {
        socket.on('error', () => socket.destroy());
        if (!counter.admit(socket)) {
          // Refused before a byte is read: there is no protocol yet to answer in.
          socket.destroy();
          return;
        }
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.setTimeout(limits.headersTimeoutMs, () => socket.destroy());
        socket.once('data', (chunk: Buffer) => {
          socket.setTimeout(0);
          socket.pause();
          socket.unshift(chunk);
          const target = secure && chunk[0] === TLS_HANDSHAKE ? secure : plain;
          target.emit('connection', socket);
          process.nextTick(() => socket.resume());
        });
      });
      const server = tcp;
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          // node starts the headers-deadline checks of an http server on its 'listening' event; these
          // servers never listen themselves (connections are handed to them), so they are told here.
          for (const s of servers) s.emit('listening');
          resolve((server.address() as net.AddressInfo).port);
        });
      });
    },
    async close(graceMs) {
      // net.Server#close waits for every connection to end, so it is not awaited: the loop below bounds it.
      tcp?.close();
      for (const s of servers) s.closeIdleConnections();
      const deadline = Date.now() + graceMs;
      while (Date.now() < deadline && sockets.size > 0) {
        for (const s of servers) s.closeIdleConnections();
        await new Promise((r) => setTimeout(r, 100));
      }
      for (const s of servers) s.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      // Stops their deadline checks; they were never listening, so the callback's error is expected.
      for (const s of servers) s.close(() => {});
    },
  };
}
