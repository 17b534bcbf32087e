/**
 * Finding 4 of issue 21: every request removes what it wrote, whatever way it ends. An upload or a fetch
 * that stalls, is cut, is refused or is interrupted by a shutdown leaves no file and no folder of its own in
 * the work folder or the file store, and the server holds no file descriptor into them. The server runs in
 * this process (so /proc/self/fd is its descriptor table); clients are raw sockets over TLS.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  diskUsage,
  entries,
  leftoversOf,
  nextWrittenId,
  openDescriptors,
  settledLeftoversOf,
} from '../support/leftovers.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import {
  connect,
  guard,
  multipart,
  parseResponse,
  type RawConnection,
  uploadHead,
} from '../support/raw-http.ts';
import type { Receiver } from '../support/receiver.ts';
import { startReceiver } from '../support/receiver.ts';
import { until } from '../support/until.ts';

const BOUNDARY = 'presso-leftover-boundary';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const FILE_PART_HEAD = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n\r\n`;
const MAX_INPUT_BYTES = 1_000_000;

/** Opens an upload that announces `length` bytes and sends `sent` bytes of its file; resolves once the server writes it. */
async function startUpload(
  presso: TestPresso,
  options: { length?: number; sent?: number } = {},
): Promise<{ connection: RawConnection; id: string }> {
  const { length = 500_000, sent = 100_000 } = options;
  const connection = await connect(presso.port);
  await connection.write(uploadHead(presso.key, length, CONTENT_TYPE));
  await connection.write(FILE_PART_HEAD + 'a'.repeat(sent));
  return { connection, id: await writtenId(presso) };
}

/** Ids seen on disk so far: a leftover of an earlier request is not taken for the next one. */
const seen = new Set<string>();

/** The id of the next request whose file appears in the work folder. */
async function writtenId(presso: TestPresso): Promise<string> {
  const id = await guard(nextWrittenId(presso.dataDir, seen), 60_000, 'a file reaching the disk');
  seen.add(id);
  return id;
}

function statusOf(received: Buffer): number | undefined {
  return parseResponse(received)?.status;
}

describe('an ended request leaves nothing behind', () => {
  let presso: TestPresso;
  let source: Receiver;
  /** Fetch-source responses held open (stalled) until the test ends. */
  const stalled: http.ServerResponse[] = [];

  before(async () => {
    source = await startReceiver((req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': 1_000_000 });
      res.write(Buffer.alloc(200_000, 1));
      if (req.url.startsWith('/cut')) setTimeout(() => res.socket?.destroy(), 100);
      else stalled.push(res);
    });
    presso = await startTestPresso({
      // Long enough that no normal request from a busy test process is idle that long.
      PRESSO_BODY_IDLE_TIMEOUT: '2s',
      PRESSO_BODY_MIN_RATE: '0',
      PRESSO_MAX_INPUT_BYTES: String(MAX_INPUT_BYTES),
      PRESSO_ASYNC_THRESHOLD_BYTES: String(MAX_INPUT_BYTES),
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_FETCH_TIMEOUT: '3s',
    });
  });
  after(async () => {
    for (const res of stalled) res.socket?.destroy();
    await presso?.stop();
    await source?.close();
  });

  test('an upload that stalls is answered 408 and its partial file is removed and closed', async () => {
    const { connection, id } = await startUpload(presso);
    assert.equal(statusOf(await guard(connection.closed, 60_000, 'the 408')), 408);
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
  });

  test('an upload the client aborts mid-body leaves nothing', async () => {
    const { connection, id } = await startUpload(presso);
    connection.destroy();
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
  });

  test('an upload over the size limit is answered 413 and leaves nothing', async () => {
    const body = multipart(BOUNDARY, [['file', Buffer.alloc(MAX_INPUT_BYTES + 200_000, 7), 'big.bin']]);
    const connection = await connect(presso.port);
    await connection.write(uploadHead(presso.key, body.length, CONTENT_TYPE));
    await connection.write(body.subarray(0, 300_000));
    const id = await writtenId(presso);
    await connection.write(body.subarray(300_000));
    const response = await guard(connection.response(), 60_000, 'the 413');
    assert.equal(response.status, 413);
    connection.destroy();
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
  });

  test('a malformed multipart body (no closing boundary) is answered 400 and leaves nothing', async () => {
    // The body ends (its announced length) where its closing boundary should be; its last bytes go once
    // the server is writing the file.
    const { connection, id } = await startUpload(presso, { length: 100_100 + FILE_PART_HEAD.length });
    await connection.write('b'.repeat(100));
    const response = await guard(connection.response(), 60_000, 'the 400');
    assert.equal(response.status, 400);
    connection.destroy();
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
  });

  test('an upload refused once read (a webhook URL the guard refuses: 422) leaves nothing', async () => {
    const response = await presso.upload(Buffer.alloc(300_000, 5), {
      webhook: { url: 'http://169.254.169.254/hook' },
    });
    assert.equal(response.status, 422);
    await response.arrayBuffer();
    const id = response.headers.get('x-request-id');
    assert.ok(id);
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
  });

  test('N stalled uploads leave the disk usage and the open files where they started', async () => {
    const usage = await diskUsage(presso.dataDir);
    const before = await entries(presso.dataDir);
    const uploads = [];
    for (let i = 0; i < 8; i++) uploads.push(await startUpload(presso));
    for (const { connection } of uploads) {
      assert.equal(statusOf(await guard(connection.closed, 60_000, 'the 408')), 408);
    }
    for (const { id } of uploads) assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
    assert.deepEqual(await entries(presso.dataDir), before);
    assert.equal(await diskUsage(presso.dataDir), usage);
    assert.deepEqual(await openDescriptors(presso.dataDir), []);
  });

  test('a fetch whose download is cut fails and leaves nothing', async () => {
    const response = await presso.fetchJson({ url: `${source.origin}/cut.png`, async: true });
    assert.equal(response.status, 202);
    const { id } = (await response.json()) as { id: string };
    const job = await presso.waitForJob(id);
    assert.equal(job.status, 'failed');
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
  });

  test('a synchronous fetch whose download stalls, its waiter gone, leaves nothing once the job ends', async () => {
    const connection = await connect(presso.port);
    const body = JSON.stringify({ url: `${source.origin}/stall.png` });
    await connection.write(
      'POST /1.0/fetch HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        `Authorization: Bearer ${presso.key}\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    // The download is on disk and stalled: the waiter goes away.
    const id = await writtenId(presso);
    connection.destroy();
    const job = await presso.waitForJob(id);
    assert.equal(job.status, 'failed');
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id), []);
  });

  test('a synchronous upload whose waiter goes away keeps only its output once the job ends', async () => {
    // A few seconds of AVIF encoding: the job is still running when the client leaves.
    const photo = await sharp({
      create: {
        width: 560,
        height: 420,
        channels: 3,
        background: '#808080',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png()
      .toBuffer();
    const data = JSON.stringify({ image: { format: 'avif' } });
    const body = multipart(BOUNDARY, [
      ['file', photo, 'noise.png'],
      ['data', data],
    ]);
    const connection = await connect(presso.port);
    await connection.write(uploadHead(presso.key, body.length, CONTENT_TYPE));
    await connection.write(body);
    const id = await writtenId(presso);
    await until(
      async () =>
        ['processing', 'completed', 'failed'].includes(
          String((await presso.services.jobStore.get(id))?.status),
        ),
      'the job to start',
    );
    connection.destroy();
    const job = await presso.waitForJob(id);
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const output = (path: string) =>
      path.startsWith(`files/jobs/${id}/output`) || path === `files/jobs/${id}`;
    assert.deepEqual(await settledLeftoversOf(presso.dataDir, id, output), []);
  });
});

describe('a shutdown during an upload', () => {
  test('removes the partial upload before the server has stopped', async () => {
    const presso = await startTestPresso({ PRESSO_SHUTDOWN_GRACE: '1s' });
    try {
      const { connection, id } = await startUpload(presso);
      await presso.presso.stop();
      connection.destroy();
      assert.deepEqual(await leftoversOf(presso.dataDir, id), []);
    } finally {
      await presso.stop();
    }
  });
});
