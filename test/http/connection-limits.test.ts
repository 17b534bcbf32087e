/** ConnectionCounter over real sockets: per-address cap, trusted-proxy exemption, release on close. */
import assert from 'node:assert/strict';
import net from 'node:net';
import { test } from 'node:test';
import { type ConnectionCaps, ConnectionCounter } from '../../src/http/connection-limits.ts';

/** A server that admits through the counter; returns how each of `count` connections was judged. */
async function judge(caps: ConnectionCaps, count: number, closeFirst = false): Promise<boolean[]> {
  const counter = new ConnectionCounter(caps);
  const verdicts: boolean[] = [];
  const accepted: net.Socket[] = [];
  const arrived: Array<() => void> = [];
  const server = net.createServer((socket) => {
    verdicts.push(counter.admit(socket));
    accepted.push(socket);
    arrived.shift()?.();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as net.AddressInfo;
  const clients: net.Socket[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const seen = new Promise<void>((ok) => arrived.push(ok));
      clients.push(net.connect(port, '127.0.0.1'));
      await seen;
      if (closeFirst && i === 0) {
        const closed = new Promise((ok) => accepted[0]!.once('close', ok));
        clients[0]!.destroy();
        await closed;
      }
    }
    return verdicts;
  } finally {
    for (const client of clients) client.destroy();
    await new Promise((ok) => server.close(ok));
  }
}

test('connections beyond the per-address cap are refused', async () => {
  assert.deepEqual(await judge({ maxTotal: 0, maxPerAddress: 2, exempt: [] }, 3), [true, true, false]);
});

test('a trusted proxy is exempt from the per-address cap but not from the total', async () => {
  const caps = { maxTotal: 3, maxPerAddress: 1, exempt: ['127.0.0.0/8'] };
  assert.deepEqual(await judge(caps, 4), [true, true, true, false]);
});

test('a closed connection frees its place', async () => {
  assert.deepEqual(await judge({ maxTotal: 1, maxPerAddress: 1, exempt: [] }, 2, true), [true, true]);
});
