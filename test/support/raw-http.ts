/**
 * A raw HTTP/1.1 client over TLS (or plain TCP) for the tests where a client library would hide the
 * behaviour under test: trickled headers, stalled bodies, a client that writes its whole body before
 * reading, connections held open. It parses just enough of the answer to assert on it.
 */
import net from 'node:net';
import tls from 'node:tls';
import { scaledMs } from './time-scale.ts';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawConnection {
  socket: net.Socket;
  /** False when the server closed the connection before the TLS handshake (or TCP connect) completed. */
  established: boolean;
  /** Everything received so far. */
  received(): Buffer;
  /** Resolves once the server closed the connection (or it failed), with what was received. */
  closed: Promise<Buffer>;
  /** Writes and resolves once the bytes are handed to the kernel; rejects if the connection fails. */
  write(data: string | Buffer): Promise<void>;
  /** Resolves with the first complete response received (by Content-Length). */
  response(): Promise<RawResponse>;
  destroy(): void;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Rejects after `ms` (scaled); only a guard against a hang, never the thing a test asserts on. */
export function guard<T>(promise: Promise<T>, unscaledMs: number, what: string): Promise<T> {
  const ms = scaledMs(unscaledMs);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no outcome after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function parseResponse(bytes: Buffer): RawResponse | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  if (bytes.length < end + 4 + length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: bytes.subarray(end + 4, end + 4 + length).toString('utf8'),
  };
}

/** Opens a connection; `secure: false` for plain TCP (which stays silent until it sends a byte). */
export async function connect(
  port: number,
  options: { secure?: boolean; localAddress?: string } = {},
): Promise<RawConnection> {
  const { secure = true, localAddress } = options;
  const socket = secure
    ? tls.connect({
        host: '127.0.0.1',
        port,
        rejectUnauthorized: false,
        ...(localAddress ? { localAddress } : {}),
      })
    : net.connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
  let buffer = Buffer.alloc(0);
  const listeners: Array<() => void> = [];
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (const listener of listeners.splice(0)) listener();
  });
  const closed = new Promise<Buffer>((resolve) => {
    socket.on('error', () => {});
    socket.on('close', () => {
      for (const listener of listeners.splice(0)) listener();
      resolve(buffer);
    });
  });
  const established = await new Promise<boolean>((resolve) => {
    socket.once(secure ? 'secureConnect' : 'connect', () => resolve(true));
    socket.once('close', () => resolve(false));
  });
  return {
    socket,
    established,
    received: () => buffer,
    closed,
    write(data) {
      return new Promise((resolve, reject) => {
        socket.write(data, (error) => (error ? reject(error) : resolve()));
      });
    },
    response() {
      return new Promise((resolve, reject) => {
        const check = () => {
          const parsed = parseResponse(buffer);
          if (parsed) return resolve(parsed);
          if (socket.destroyed) return reject(new Error(`closed after ${buffer.length} bytes: ${buffer}`));
          listeners.push(check);
        };
        check();
      });
    },
    destroy: () => socket.destroy(),
  };
}

/** A multipart body: `parts` are [name, content, file name?]. */
export function multipart(boundary: string, parts: Array<[string, string | Buffer, string?]>): Buffer {
  const chunks: Buffer[] = [];
  for (const [name, content, fileName] of parts) {
    const disposition = fileName
      ? `form-data; name="${name}"; filename="${fileName}"\r\nContent-Type: application/octet-stream`
      : `form-data; name="${name}"`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n\r\n`));
    chunks.push(Buffer.isBuffer(content) ? content : Buffer.from(content));
    chunks.push(Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

/** The head of a POST /1.0/upload with the given body length and Content-Type. */
export function uploadHead(key: string, length: number, contentType: string): string {
  return (
    'POST /1.0/upload HTTP/1.1\r\nHost: localhost\r\n' +
    `Authorization: Bearer ${key}\r\nContent-Type: ${contentType}\r\nContent-Length: ${length}\r\n\r\n`
  );
}
