/**
 * POST /1.0/upload request handling through app.inject(): the data part's JSON, parameter validation
 * with one errors entry per mistake, the file part rules and the 415 answers. What the real image
 * processor makes of an upload is tested end to end in test/api/upload.test.ts.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { FormData } from 'undici';
import { assertErrorBody } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

describe('POST /1.0/upload: request handling', () => {
  let presso: TestApp;
  before(async () => {
    presso = await buildTestApp();
  });
  after(() => presso?.close());

  test('invalid JSON in data is 422 on the field data', async () => {
    const response = await presso.upload(corpus.chelsea, '{"image": ');
    const body = await assertErrorBody(response, 422);
    assert.match(String(body.message), /does not contain valid JSON/);
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['data'],
    );
  });

  test('resize auto without dimensions is 422 on image.resize', async () => {
    const response = await presso.upload(corpus.chelsea, { image: { resize: { mode: 'auto' } } });
    const body = await assertErrorBody(response, 422);
    const errors = body.errors as Array<{ field: string; message: string }>;
    assert.equal(errors.length, 1);
    assert.equal(errors[0]!.field, 'image.resize');
    assert.match(errors[0]!.message, /width or height/);
  });

  test('several bad parameters give one errors entry each', async () => {
    const response = await presso.upload(corpus.chelsea, {
      image: { compression: 'extreme', resize: { width: -5, mode: 'auto' }, format: 'bmp' },
      bogus: 1,
    });
    const body = await assertErrorBody(response, 422);
    const fields = (body.errors as Array<{ field: string; message: string }>).map((e) => e.field).sort();
    assert.ok(fields.length >= 4, JSON.stringify(body.errors));
    for (const field of ['image.compression', 'image.format', 'image.resize.width', 'bogus']) {
      assert.ok(fields.includes(field), `${field} in ${fields.join(', ')}`);
    }
    for (const error of body.errors as Array<{ message: string }>) assert.ok(error.message.length > 0);
  });

  test('a request without a file part is 422 on file', async () => {
    const form = new FormData();
    form.append('data', JSON.stringify({ image: { compression: 'high' } }));
    const response = await presso.request('/1.0/upload', { method: 'POST', body: form });
    const body = await assertErrorBody(response, 422);
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['file'],
    );
  });

  test('two file parts are 422 on file', async () => {
    const bytes = await readFile(corpus.chelsea);
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'a.png');
    form.append('file', new Blob([bytes]), 'b.png');
    const response = await presso.request('/1.0/upload', { method: 'POST', body: form });
    const body = await assertErrorBody(response, 422);
    assert.deepEqual(
      (body.errors as Array<{ field: string }>).map((e) => e.field),
      ['file'],
    );
  });

  test('a body that is not multipart is 415', async () => {
    const response = await presso.request('/1.0/upload', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await assertErrorBody(response, 415);
  });

  test('a file of no supported kind is 415', async () => {
    const response = await presso.upload(
      Buffer.from('just some text, not an image'),
      undefined,
      undefined,
      'a.txt',
    );
    await assertErrorBody(response, 415);
  });
});
