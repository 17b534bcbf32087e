/**
 * Listeners that count what reaches them, for the connector endpoint tests: a trap on every local address
 * (dual-stack `::`, so 127.0.0.1, ::1, 127.0.0.2 and 0.0.0.0 on its port all land there) that answers 403 and
 * hangs up, a counting TCP proxy in front of a store server, the host names /etc/hosts maps to loopback, a
 * recorder of every client socket the process opens (node:diagnostics_channel `net.client.socket`), and the
 * well-formed credentials the hostile cases are built on.
 */
import { generateKeyPairSync } from 'node:crypto';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import net from 'node:net';

export interface Counter {
  port: number;
  /** Connections accepted so far. */
  accepted: number;
  close(): Promise<void>;
}

async function listen(server: net.Server, host: string): Promise<number> {
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, host, ok);
  });
  return (server.address() as net.AddressInfo).port;
}

function closer(server: net.Server, sockets: Set<net.Socket>) {
  return () =>
    new Promise<void>((ok) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => ok());
    });
}

/** A listener on every local address that counts connections and refuses whatever is asked (HTTP 403). */
export async function startTrap(): Promise<Counter> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    trap.accepted++;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  const trap: Counter = { port: 0, accepted: 0, close: closer(server, sockets) };
  trap.port = await listen(server, '::');
  return trap;
}

/** Sockets the proxies open to their targets: the test's own, not the service's. */
const proxySockets = new WeakSet<object>();

/** A TCP proxy on 127.0.0.1 to `target` that counts the connections it accepts. */
export async function startCountingProxy(target: { host: string; port: number }): Promise<Counter> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    proxy.accepted++;
    const upstream = net.connect(target.port, target.host);
    proxySockets.add(upstream);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  const proxy: Counter = { port: 0, accepted: 0, close: closer(server, sockets) };
  proxy.port = await listen(server, '127.0.0.1');
  return proxy;
}

/** Names /etc/hosts gives a loopback address (localhost, and here the machine's own names), and ip6-localhost. */
export function loopbackNames(): string[] {
  const names = new Set<string>(['localhost', 'ip6-localhost']);
  for (const line of readFileSync('/etc/hosts', 'utf8').split('\n')) {
    const [address, ...aliases] = line.replace(/#.*/, '').trim().split(/\s+/);
    if (address === undefined || !(address.startsWith('127.') || address === '::1')) continue;
    for (const alias of aliases) if (/^[A-Za-z0-9.-]{1,63}$/.test(alias)) names.add(alias);
  }
  return [...names];
}

/** Records every client socket the process opens while `work` runs, except the proxies' own. */
export async function socketsOpenedBy(work: () => Promise<unknown>): Promise<object[]> {
  const opened: object[] = [];
  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: object };
    opened.push(socket);
  };
  subscribe('net.client.socket', onSocket);
  try {
    await work();
  } finally {
    unsubscribe('net.client.socket', onSocket);
  }
  return opened.filter((socket) => !proxySockets.has(socket));
}

/** Well-formed credentials of each kind (none is valid anywhere): the cases change one field of them. */
export const S3_KEYS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
export const AZURE_KEY = Buffer.alloc(64, 7).toString('base64');
export const AZURE_KEYED = `DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=${AZURE_KEY}`;
export const SERVICE_ACCOUNT = {
  client_email: 'presso@example.iam.gserviceaccount.com',
  private_key: generateKeyPairSync('rsa', { modulusLength: 1024 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
};

/** The body of a POST /1.0/connectors, less the bucket (`out` unless given). */
export interface Hostile {
  kind: string;
  credentials: Record<string, unknown>;
  region?: string;
  bucket?: string;
}
