/**
 * Size limits on the real listener: an upload over the maximum is 413 and the connection stays usable,
 * even when more file parts follow. The other limits and fall-backs are in test/http/limits.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { FormData } from 'undici';
import { corpus } from '../support/corpus.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { assertErrorBody, type CompletedResult } from './helpers.ts';

describe('limits', () => {
  let small: TestPresso;
  let photoSize: number;

  before(async () => {
    photoSize = (await stat(corpus.canonPhoto)).size;
    // Inputs over 100 kB run asynchronously; over 400 kB they are refused.
    small = await startTestPresso({
      PRESSO_ASYNC_THRESHOLD_BYTES: '100kB',
      PRESSO_MAX_INPUT_BYTES: '400kB',
    });
  });
  after(() => small?.stop());

  test('an upload over the maximum is 413, and the connection stays usable', async () => {
    assert.ok(photoSize > 400_000);
    const response = await small.upload(corpus.canonPhoto, { image: { compression: 'high' } });
    const body = await assertErrorBody(response, 413);
    assert.match(String(body.message), /400000 bytes/);
    // The next request on the same client works.
    const next = await small.request('/1.0/account');
    assert.equal(next.status, 200);
    await next.arrayBuffer();
  });

  test('a too-large file followed by more file parts is 413, and the next requests still work', async () => {
    const form = new FormData();
    form.append('file', new Blob([await readFile(corpus.canonPhoto)]), 'big.jpg');
    form.append('extra', new Blob([await readFile(corpus.chelsea)]), 'extra.png');
    form.append('data', '{}');
    const response = await small.request('/1.0/upload', { method: 'POST', body: form });
    await assertErrorBody(response, 413);
    for (let i = 0; i < 3; i++) {
      const next = await small.upload(corpus.palettePng);
      assert.equal(next.status, 200);
      const result = (await next.json()) as CompletedResult;
      assert.equal(result.input.format, 'png');
    }
  });
});
