/**
 * End to end: POST /1.0/fetch downloads from a local source through the guarded client and converts with
 * the real image processor. Headers, credentials, redirects, the guard and the errors are in
 * test/http/fetch.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { corpus } from '../support/corpus.ts';
import { fetchCatAsWebp, startPngSource } from '../support/fetch-source.ts';
import { decode, ssim } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import type { Receiver } from '../support/receiver.ts';
import { download } from './helpers.ts';

describe('POST /1.0/fetch', () => {
  let chelsea: Buffer;
  let source: Receiver;
  let presso: TestPresso;

  before(async () => {
    chelsea = await readFile(corpus.chelsea);
    source = await startPngSource(chelsea);
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
  });
  after(async () => {
    await presso?.stop();
    await source?.close();
  });

  test('downloads with the default headers and processes the file', async () => {
    const result = await fetchCatAsWebp(presso, source, chelsea);
    assert.equal(result.output.name, 'cat.webp');
    const output = await download(presso, result);
    const decoded = await decode(output);
    assert.equal(decoded.format, 'webp');
    assert.deepEqual([decoded.width, decoded.height], [451, 300]);
    assert.ok((await ssim(output, chelsea)) > 0.9);
  });
});
