/**
 * The listening socket. With TLS on, one port serves both protocols: the first byte of a connection
 * tells a TLS handshake (0x16) from plain HTTP, so a plain-HTTP request still gets the documented
 * 403 body instead of a TLS alert it cannot read. With TLS off (behind a trusted proxy) it is plain HTTP
 * and the proxy's X-Forwarded-Proto decides.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { FastifyServerFactory } from 'fastify';
import type { TlsMaterial } from './tls.ts';

const TLS_HANDSHAKE = 0x16;

export interface Listener {
  serverFactory: FastifyServerFactory;
  listen(host: string, port: number): Promise<number>;
  /** Stops accepting connections, lets requests in flight finish for `graceMs`, then closes the rest. */
  close(graceMs: number): Promise<void>;
}

export function createListener(tls: TlsMaterial | undefined): Listener {
  const servers: http.Server[] = [];
  let tcp: net.Server | undefined;
  const sockets = new Set<net.Socket>();

  const serverFactory: FastifyServerFactory = (handler) => {
    const plain = http.createServer({ requestTimeout: 0, keepAliveTimeout: 5000 }, handler);
    servers.push(plain);
    if (!tls) return plain;
    const secure = https.createServer(
      { cert: tls.cert, key: tls.key, requestTimeout: 0, keepAliveTimeout: 5000 },
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
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.setTimeout(15_000, () => socket.destroy());
        socket.once('data', (chunk: Buffer) => {
          socket.setTimeout(0);
          socket.pause();
          socket.unshift(chunk);
          const target = secure && chunk[0] === TLS_HANDSHAKE ? secure : plain;
          target.emit('connection', socket);
          process.nextTick(() => socket.resume());
        });
        socket.on('error', () => socket.destroy());
      });
      const server = tcp;
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
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
    },
  };
}
