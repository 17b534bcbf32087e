/** A free TCP port for tests that need an address nothing listens on, or a port to start a server on. */
import net from 'node:net';

/** A port that was free a moment ago (the caller binds it right away and retries on a clash). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, host, ok);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise((ok) => server.close(ok));
  return port;
}
