/**
 * Slow and greedy clients: trickled headers and bodies are cut off with 408, connections over the caps
 * are closed on accept, one key cannot hold more uploads than allowed, and a refused upload's answer
 * survives a client that sends its whole body before reading. Time-outs are configured short and the
 * tests assert on the outcome; the `guard` time-outs only turn a hang into a failure.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { FormData } from 'undici';
import { DRAIN_CAP_BYTES } from '../../src/http/request-drain.ts';
import { corpus } from '../support/corpus.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import {
  connect,
  guard,
  multipart,
  parseResponse,
  type RawConnection,
  sleep,
  uploadHead,
} from '../support/raw-http.ts';
import { assertErrorBody, type CompletedResult } from './helpers.ts';

const BOUNDARY = 'presso-slow-boundary';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

/** Writes `unit` every `everyMs` until the server closes the connection. */
async function trickle(connection: RawConnection, unit: string, everyMs: number): Promise<void> {
  while (!connection.socket.destroyed) {
    await connection.write(unit).catch(() => {});
    await sleep(everyMs);
  }
}

function assertTimedOut(received: Buffer, pattern: RegExp): void {
  const response = parseResponse(received);
  assert.ok(response, `an answer before the close, got: ${received.toString('latin1').slice(0, 200)}`);
  assert.equal(response.status, 408);
  const body = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(body.success, false);
  assert.equal(body.status, 408);
  assert.match(String(body.message), pattern);
}

describe('slow clients', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso({
      PRESSO_HEADERS_TIMEOUT: '1s',
      // Two seconds: long enough that a normal upload from a busy test process is never idle that long.
      PRESSO_BODY_IDLE_TIMEOUT: '2s',
      PRESSO_BODY_MIN_RATE: '2000',
    });
  });
  after(() => presso?.stop());

  test('headers trickled one byte at a time get 408 and the connection is closed', async () => {
    const connection = await connect(presso.port);
    await connection.write('GET /1.0/account HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    void trickle(connection, 'a', 100);
    assertTimedOut(await guard(connection.closed, 30_000, 'headers time-out'), /headers were not received/);
  });

  test('a connection that never sends a byte is closed', async () => {
    const connection = await connect(presso.port, { secure: false });
    const received = await guard(connection.closed, 30_000, 'first-byte time-out');
    assert.equal(received.length, 0);
  });

  test('a body that stops arriving gets 408 and the upload is abandoned', async () => {
    const connection = await connect(presso.port);
    await connection.write(uploadHead(presso.key, 100_000, CONTENT_TYPE));
    // More than the minimum rate's share at once, then nothing: the idle time-out, not the rate, ends it.
    await connection.write(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n${'a'.repeat(5000)}`,
    );
    assertTimedOut(
      await guard(connection.closed, 30_000, 'idle time-out'),
      /stalled for more than 2 seconds/,
    );
  });

  test('a body trickled below the minimum rate gets 408', async () => {
    const connection = await connect(presso.port);
    await connection.write(uploadHead(presso.key, 100_000, CONTENT_TYPE));
    await connection.write(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`,
    );
    // About 100 bytes a second against a minimum of 2000: never idle, always too slow. (A test process
    // starved for a whole window would look idle instead; either way the body is cut off.)
    void trickle(connection, 'abcdefghij', 100);
    assertTimedOut(
      await guard(connection.closed, 30_000, 'rate time-out'),
      /slower than 2000 bytes per second|stalled/,
    );
  });

  test('uploads at a normal pace still work under these limits', async () => {
    const response = await presso.upload(corpus.chelsea);
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    assert.equal(result.input.format, 'png');
  });
});

describe('connection caps', () => {
  let presso: TestPresso;
  const open: RawConnection[] = [];
  before(async () => {
    presso = await startTestPresso({ PRESSO_MAX_CONNECTIONS: '3', PRESSO_MAX_CONNECTIONS_PER_ADDRESS: '2' });
  });
  after(async () => {
    for (const connection of open) connection.destroy();
    await presso?.stop();
  });

  async function request(connection: RawConnection): Promise<number> {
    await connection.write(
      `GET /1.0/account HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${presso.key}\r\n\r\n`,
    );
    return (await guard(connection.response(), 30_000, 'answer')).status;
  }

  test('connections over the per-address cap, then over the total cap, are closed on accept', async () => {
    // Two from 127.0.0.1 take that address's share; a third from it is closed before its TLS handshake.
    open.push(await connect(presso.port), await connect(presso.port));
    const third = await connect(presso.port);
    assert.equal(third.established, false, 'the third connection from one address is refused');
    // Another address still gets in, up to the total of three.
    open.push(await connect(presso.port, { localAddress: '127.0.0.2' }));
    const fourth = await connect(presso.port, { localAddress: '127.0.0.3' });
    assert.equal(fourth.established, false, 'the fourth connection in all is refused');
    for (const connection of open) assert.ok(connection.established);
    // The admitted connections were not disturbed.
    for (const connection of open) assert.equal(await request(connection), 200);
  });
});

describe('uploads in progress per key', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso({ PRESSO_MAX_UPLOADS_PER_KEY: '1' });
  });
  after(() => presso?.stop());

  test('a second upload with the same key while one is in progress is 429; another key is not held back', async () => {
    const png = await readFile(corpus.palettePng);
    const body = multipart(BOUNDARY, [['file', png, 'held.png']]);
    const held = await connect(presso.port);
    await held.write(uploadHead(presso.key, body.length, CONTENT_TYPE));
    await held.write(body.subarray(0, 100));

    // The held upload reaches its route shortly; until then a second one may still get the slot.
    let refused: Record<string, unknown> | undefined;
    for (let attempt = 0; attempt < 100 && !refused; attempt++) {
      const response = await presso.upload(png);
      if (response.status === 429) refused = await assertErrorBody(response, 429);
      else await response.arrayBuffer();
    }
    assert.ok(refused, 'a second upload was refused');
    assert.match(String(refused.message), /At most 1 uploads may be in progress per API key/);

    const other = await presso.createAccount('other-key');
    const response = await presso.request('/1.0/upload', {
      method: 'POST',
      body: (() => {
        const form = new FormData();
        form.append('file', new Blob([png]), 'other.png');
        return form;
      })(),
      auth: `Bearer ${other.key}`,
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();

    await held.write(body.subarray(100));
    assert.equal((await guard(held.response(), 60_000, 'held upload')).status, 200);
    held.destroy();
    const after = await presso.upload(png);
    assert.equal(after.status, 200, 'the slot is free again');
    await after.arrayBuffer();
  });
});

describe('an upload refused early', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso({
      PRESSO_MAX_INPUT_BYTES: '100kB',
      PRESSO_ASYNC_THRESHOLD_BYTES: '100kB',
    });
  });
  after(() => presso?.stop());

  test('is answered to a client that sends its whole body first, and the connection stays usable', async () => {
    const body = multipart(BOUNDARY, [['file', Buffer.alloc(3 * 1024 * 1024, 7), 'big.bin']]);
    const connection = await connect(presso.port);
    // The client reads nothing until its body is out, as most HTTP clients do.
    connection.socket.pause();
    await connection.write(uploadHead(presso.key, body.length, CONTENT_TYPE));
    for (let offset = 0; offset < body.length; offset += 64 * 1024) {
      await connection.write(body.subarray(offset, offset + 64 * 1024));
    }
    connection.socket.resume();
    const response = await guard(connection.response(), 30_000, '413 answer');
    assert.equal(response.status, 413);
    assert.match(JSON.parse(response.body).message, /larger than the maximum of 100000 bytes/);

    const consumed = connection.received().length;
    await connection.write(
      `GET /1.0/account HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${presso.key}\r\n\r\n`,
    );
    const next = await guard(
      (async () => {
        for (;;) {
          const parsed = parseResponse(connection.received().subarray(consumed));
          if (parsed) return parsed;
          if (connection.socket.destroyed) throw new Error('closed');
          await sleep(20);
        }
      })(),
      30_000,
      'next answer',
    );
    assert.equal(next.status, 200);
    connection.destroy();
  });

  test('has its body drained only up to the cap; past it the connection is closed', async () => {
    const connection = await connect(presso.port);
    const total = DRAIN_CAP_BYTES * 2;
    await connection.write(uploadHead(presso.key, total, CONTENT_TYPE));
    await connection.write(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`,
    );
    const chunk = Buffer.alloc(256 * 1024, 7);
    let sent = 0;
    let failed = false;
    while (sent < total && !failed) {
      await connection.write(chunk).then(
        () => {
          sent += chunk.length;
        },
        () => {
          failed = true;
        },
      );
      if (connection.socket.destroyed) failed = true;
    }
    assert.ok(failed, `the server kept reading all ${total} bytes`);
    const response = parseResponse(await guard(connection.closed, 30_000, 'close'));
    assert.equal(response?.status, 413, 'the answer arrived before the close');
  });
});
