import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { PayloadTooLargeError, UpstreamError } from '../../src/errors/catalog.ts';
import type { TestServer } from './helpers.ts';
import { abortAfter, client, isUpstream, scratchFiles, serve } from './helpers.ts';

const destination = scratchFiles();

describe('upstream failures', () => {
  let server: TestServer;
  // Answers that complete get a generous limit (a busy machine must not turn a 404 into a time-out); only
  // the sources that never finish meet the short one.
  const outbound = client({ allowCidrs: ['127.0.0.1/32'], totalTimeoutMs: 60_000 });
  const impatient = client({ allowCidrs: ['127.0.0.1/32'], totalTimeoutMs: 400 });
  before(async () => {
    server = await serve('127.0.0.1', (req, res) => {
      const path = req.url ?? '/';
      if (path.startsWith('/missing')) {
        res.statusCode = 404;
        return res.end('nope');
      }
      if (path === '/chunked') {
        for (let i = 0; i < 10; i++) res.write(Buffer.alloc(100, i));
        return res.end();
      }
      if (path === '/declared') {
        res.setHeader('content-length', '10000');
        return res.end(Buffer.alloc(10_000));
      }
      if (path === '/endless') {
        const timer = setInterval(() => res.write(Buffer.alloc(16_384)), 1);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (path === '/exact') return res.end(Buffer.alloc(500));
      if (path === '/stall-body') {
        res.write('partial');
        return; // never ends
      }
      if (path === '/stall-headers') return; // never answers
      res.end('ok');
    });
  });
  after(async () => {
    await outbound.close();
    await impatient.close();
    await server.close();
  });

  it('names the source and status of a 404, without userinfo or query', async () => {
    await assert.rejects(
      outbound.download({
        url: `http://user:hunter2@127.0.0.1:${server.port}/missing/file.png?token=s3cr3t`,
        destinationPath: destination(),
        maxBytes: 100,
      }),
      (error: unknown) => {
        assert.ok(error instanceof UpstreamError);
        assert.equal(error.statusCode, 502);
        assert.equal(error.message, `The source ${server.origin}/missing/file.png answered 404 Not Found.`);
        return true;
      },
    );
  });

  it('stops at the byte cap and deletes the partial file', async () => {
    const path = destination();
    await assert.rejects(
      outbound.download({ url: `${server.origin}/chunked`, destinationPath: path, maxBytes: 550 }),
      PayloadTooLargeError,
    );
    assert.equal(existsSync(path), false);
  });

  it('stops reading an endless body at the cap', async () => {
    const path = destination();
    await assert.rejects(
      outbound.download({ url: `${server.origin}/endless`, destinationPath: path, maxBytes: 200_000 }),
      PayloadTooLargeError,
    );
    assert.equal(existsSync(path), false);
  });

  it('fails early on a Content-Length above the cap', async () => {
    const path = destination();
    await assert.rejects(
      outbound.download({ url: `${server.origin}/declared`, destinationPath: path, maxBytes: 9_999 }),
      PayloadTooLargeError,
    );
    assert.equal(existsSync(path), false);
  });

  it('accepts a body of exactly maxBytes', async () => {
    const result = await outbound.download({
      url: `${server.origin}/exact`,
      destinationPath: destination(),
      maxBytes: 500,
    });
    assert.equal(result.size, 500);
  });

  it('times out when no answer comes', async () => {
    await assert.rejects(
      impatient.download({
        url: `${server.origin}/stall-headers`,
        destinationPath: destination(),
        maxBytes: 100,
      }),
      isUpstream(/\/stall-headers did not answer in full within 0\.4 seconds/),
    );
  });

  it('times out a stalled body and deletes the partial file', async () => {
    const path = destination();
    await assert.rejects(
      impatient.download({ url: `${server.origin}/stall-body`, destinationPath: path, maxBytes: 100 }),
      isUpstream(/did not answer in full/),
    );
    assert.equal(existsSync(path), false);
  });

  it('rejects with the caller reason when the caller aborts', async () => {
    const reason = new Error('job cancelled');
    await assert.rejects(
      outbound.download({
        url: `${server.origin}/stall-headers`,
        destinationPath: destination(),
        maxBytes: 100,
        signal: abortAfter(50, reason),
      }),
      (error: unknown) => error === reason,
    );
  });

  it('names the host when the connection is refused', async () => {
    const closed = await serve('127.0.0.1', (_req, res) => res.end());
    await closed.close();
    await assert.rejects(
      outbound.download({ url: `${closed.origin}/a`, destinationPath: destination(), maxBytes: 100 }),
      isUpstream(/127\.0\.0\.1 refused the connection/),
    );
  });

  it('names the host when it does not resolve', async () => {
    await assert.rejects(
      outbound.download({
        url: 'http://no-such-host.invalid/x',
        destinationPath: destination(),
        maxBytes: 100,
      }),
      isUpstream(/no-such-host\.invalid could not be resolved/),
    );
  });
});
