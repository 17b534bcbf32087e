/**
 * Odd requests get the documented error body, never a 500 or silence: malformed multipart bodies, a
 * header block over the size limit, an oversized `data` part or JSON body, an overlong URL segment; and
 * a long file name still gives a working download link. Raw sockets where a client library would
 * repair or refuse the request itself.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { corpus } from '../support/corpus.ts';
import { decode } from '../support/images.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import {
  connect,
  guard,
  multipart,
  parseResponse,
  type RawResponse,
  uploadHead,
} from '../support/raw-http.ts';
import { assertErrorBody, type CompletedResult, download, UUID } from './helpers.ts';

const BOUNDARY = 'presso-test-boundary';

function assertCatalogBody(response: RawResponse, status: number): Record<string, unknown> {
  assert.equal(response.status, status, response.body);
  assert.match(response.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
  const body = JSON.parse(response.body) as Record<string, unknown>;
  assert.equal(body.success, false);
  assert.equal(body.status, status);
  assert.match(String(body.id), UUID);
  assert.equal(response.headers['x-request-id'], body.id);
  return body;
}

describe('malformed and oversized requests', () => {
  let presso: TestPresso;
  before(async () => {
    presso = await startTestPresso();
  });
  after(() => presso?.stop());

  /** Sends one upload with a raw body and returns the answer. */
  async function rawUpload(body: Buffer | string, contentType: string): Promise<RawResponse> {
    const connection = await connect(presso.port);
    try {
      const bytes = Buffer.from(body);
      await connection.write(uploadHead(presso.key, bytes.length, contentType));
      await connection.write(bytes);
      return await guard(connection.response(), 30_000, 'upload answer');
    } finally {
      connection.destroy();
    }
  }

  const filePart = (rest: string) =>
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\n${rest}`;
  const malformed: Array<[string, string, string]> = [
    [
      'a boundary the body never uses',
      `multipart/form-data; boundary=other`,
      `${filePart('\r\nabc\r\n')}--${BOUNDARY}--\r\n`,
    ],
    ['a part cut short', `multipart/form-data; boundary=${BOUNDARY}`, filePart('\r\nabc')],
    ['no boundary parameter', 'multipart/form-data', `${filePart('\r\nabc\r\n')}--${BOUNDARY}--\r\n`],
    ['a part header without its blank line', `multipart/form-data; boundary=${BOUNDARY}`, filePart('abc')],
  ];
  for (const [what, contentType, body] of malformed) {
    test(`a multipart body with ${what} is 400 in the documented body`, async () => {
      const response = await rawUpload(body, contentType);
      const parsed = assertCatalogBody(response, 400);
      assert.match(String(parsed.message), /multipart body is malformed/);
    });
  }

  test('a data part over 1 MiB is 413 naming the data field, not invalid JSON', async () => {
    const data = JSON.stringify({ image: { note: 'x'.repeat(1.5 * 1024 * 1024) } });
    const body = multipart(BOUNDARY, [
      ['data', data],
      ['file', await readFile(corpus.palettePng), 'a.png'],
    ]);
    const response = await rawUpload(body, `multipart/form-data; boundary=${BOUNDARY}`);
    const parsed = assertCatalogBody(response, 413);
    assert.equal(parsed.message, 'The data field is larger than the maximum of 1048576 bytes.');
  });

  for (const [what, text, status] of [
    ['over 1 MiB', JSON.stringify({ image: { note: 'x'.repeat(1.5 * 1024 * 1024) } }), 413],
    ['that is not JSON', '{"image": {', 422],
  ] as const) {
    test(`a data part ${what} sent with Content-Type: application/json is ${status}`, async () => {
      const head = (name: string, extra: string) =>
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n`;
      const body = Buffer.concat([
        Buffer.from(`${head('data', '')}Content-Type: application/json\r\n\r\n${text}\r\n`),
        Buffer.from(`${head('file', '; filename="a.png"')}Content-Type: image/png\r\n\r\n`),
        await readFile(corpus.palettePng),
        Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
      ]);
      const response = await rawUpload(body, `multipart/form-data; boundary=${BOUNDARY}`);
      const parsed = assertCatalogBody(response, status);
      if (status === 413) {
        assert.equal(parsed.message, 'The data field is larger than the maximum of 1048576 bytes.');
      } else {
        assert.deepEqual(parsed.errors, [{ field: 'data', message: String(parsed.message) }]);
      }
    });
  }

  test('a data part sent with Content-Type: application/json is read as the parameters', async () => {
    const png = await readFile(corpus.palettePng);
    const head = (name: string, extra: string) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n`;
    const body = Buffer.concat([
      Buffer.from(
        `${head('data', '')}Content-Type: application/json\r\n\r\n{"image":{"resize":{"width":20}}}\r\n`,
      ),
      Buffer.from(`${head('file', '; filename="a.png"')}Content-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const response = await rawUpload(body, `multipart/form-data; boundary=${BOUNDARY}`);
    assert.equal(response.status, 200, response.body);
    const result = JSON.parse(response.body) as CompletedResult;
    const decoded = await decode(await download(presso, result));
    assert.equal(decoded.width, 20);
  });

  test('a JSON body over 1 MiB is 413 naming the body limit', async () => {
    const response = await presso.fetchJson({
      url: 'https://example.com/a.png',
      pad: 'x'.repeat(1.2 * 1024 * 1024),
    });
    const body = await assertErrorBody(response, 413);
    assert.equal(body.message, 'The request body is larger than the maximum of 1048576 bytes.');
  });

  test('a 20 KB header is answered 431 in the documented body, and the connection closes', async () => {
    const connection = await connect(presso.port);
    await connection.write(
      `GET /1.0/account HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    const received = await guard(connection.closed, 30_000, '431 answer');
    const response = parseResponse(received);
    assert.ok(response, `an answer before the close, got ${received.length} bytes`);
    const body = assertCatalogBody(response, 431);
    assert.equal(body.message, 'The request headers are too large.');
  });

  test('a path segment over the router limit is 414 in the documented body', async () => {
    const response = await presso.get(`${presso.url}/1700000000/${'a'.repeat(3000)}/x.png`);
    const body = (await response.json()) as Record<string, unknown>;
    assert.equal(response.status, 414);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.deepEqual(Object.keys(body).sort(), ['id', 'message', 'status', 'success']);
    assert.equal(body.status, 414);
    assert.equal(response.headers.get('x-request-id'), body.id);
  });

  test('a malformed percent-encoding in a path parameter is 400 in the documented body', async () => {
    const connection = await connect(presso.port);
    try {
      await connection.write(`GET /1700000000/%E0%A4%A/x.png HTTP/1.1\r\nHost: localhost\r\n\r\n`);
      const response = await guard(connection.response(), 30_000, 'bad URL answer');
      const body = assertCatalogBody(response, 400);
      assert.equal(body.message, 'The request URL is not valid.');
    } finally {
      connection.destroy();
    }
  });

  test('a 150-character file name gives a download link that answers 200 with the whole name', async () => {
    const stem = `${'long-name-'.repeat(15)}`;
    assert.equal(stem.length, 150);
    const response = await presso.upload(corpus.palettePng, undefined, undefined, `${stem}.png`);
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    assert.equal(result.input.name, `${stem}.png`);
    assert.equal(result.output.name, `${stem}.png`);
    const segment = result.url.split('/').pop()!;
    assert.ok(segment.length <= 100, segment);
    assert.ok(segment.endsWith('.png') && stem.startsWith(segment.slice(0, -4)), segment);
    const bytes = await download(presso, result);
    assert.equal(bytes.length, result.output.size);
    const again = await presso.get(result.url);
    await again.arrayBuffer();
    assert.equal(again.headers.get('x-content-type-options'), 'nosniff');
    assert.match(again.headers.get('content-disposition') ?? '', new RegExp(`filename="${stem}\\.png"`));
  });

  test('every response carries X-Content-Type-Options: nosniff, errors included', async () => {
    for (const path of ['/1.0/account', '/1.0/nothing-here', '/1.0/openapi.json']) {
      const response = await presso.request(path);
      await response.arrayBuffer();
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
    }
  });
});
