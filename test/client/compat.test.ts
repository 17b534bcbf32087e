/**
 * Compatibility: every request example of the interface (service-interface.md) and of the README, as curl
 * commands and through @presso/client, against a started server; only the host and the key differ.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import {
  isAcknowledgement,
  NodePressoClient,
  PressoAuthenticationError,
  PressoValidationError,
} from '@presso/client';
import { corpus } from '../support/corpus.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { smallCorpus } from '../support/small-corpus.ts';

const execFileAsync = promisify(execFile);

interface CurlAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

describe('interface and README examples: curl and the library', () => {
  let presso: TestPresso;
  let client: NodePressoClient;
  let source: Receiver;
  let scratch: string;
  let ca: string;
  let photo: string;

  /** `curl --cacert CA -s -D - ARGS`: status, headers and JSON body. */
  const curl = async (...args: string[]): Promise<CurlAnswer> => {
    const { stdout } = await execFileAsync('curl', ['--cacert', ca, '-s', '-D', '-', ...args]);
    const split = stdout.indexOf('\r\n\r\n');
    const head = stdout.slice(0, split).split('\r\n');
    const headers = Object.fromEntries(
      head
        .slice(1)
        .map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
    );
    return { status: Number(head[0]!.split(' ')[1]), headers, body: JSON.parse(stdout.slice(split + 4)) };
  };

  before(async () => {
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
    scratch = await mkdtemp(join(tmpdir(), 'presso-compat-'));
    ca = join(scratch, 'cert.pem');
    await writeFile(ca, presso.presso.tls!.cert);
    // Real files, small ones: the requests are under test, not the quality searches (a PNG's at `high` is
    // ~1.2 CPU-s for chelsea.png, ~0.1 for the palette PNG; the 640x480 crop costs half the photo's).
    photo = join(scratch, 'photo.jpg');
    await writeFile(photo, await readFile(smallCorpus.canonPhoto));
    client = new NodePressoClient({ baseUrl: presso.url, apiKey: presso.key, ca: presso.presso.tls!.cert });
    const png = await readFile(corpus.palettePng);
    source = await startReceiver((req, res) => {
      // The user-info example: the service turns user:password@ into HTTP Basic on its download.
      if (req.url.startsWith('/private') && req.headers.authorization !== `Basic ${btoa('user:secret')}`)
        return void res.writeHead(401).end();
      res.writeHead(200, { 'content-type': 'image/png' }).end(png);
    });
  });
  after(async () => {
    await client?.close();
    await presso?.stop();
    await source?.close();
    await rm(scratch, { recursive: true, force: true });
  });

  test('upload with only file (Basic, key and a trailing colon): default compression, a result', async () => {
    const viaCurl = await curl('-u', `${presso.key}:`, '-F', `file=@${photo}`, `${presso.url}/1.0/upload`);
    assert.equal(viaCurl.status, 200);
    assert.equal((viaCurl.body.input as { name: string }).name, 'photo.jpg');
    for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'])
      assert.ok(viaCurl.headers[name], `${name} on every response`);
    const viaLibrary = await client.upload(photo);
    assert.ok(!isAcknowledgement(viaLibrary));
    assert.equal(
      viaLibrary.output.sha1,
      (viaCurl.body.output as { sha1: string }).sha1,
      'the same output either way',
    );
  });

  test('README: upload with data (webp, resize 800 wide, metadata)', async () => {
    const data = '{"image":{"format":"webp","resize":{"width":800}},"metadata":true}';
    const viaCurl = await curl(
      '-u',
      `${presso.key}:`,
      '-F',
      `file=@${photo}`,
      '-F',
      `data=${data}`,
      `${presso.url}/1.0/upload`,
    );
    assert.equal(viaCurl.status, 200);
    assert.equal((viaCurl.body.output as { format: string }).format, 'webp');
    const viaLibrary = await client.upload(photo, JSON.parse(data));
    assert.ok(!isAcknowledgement(viaLibrary));
    assert.equal(viaLibrary.output.format, 'webp');
    assert.ok(viaLibrary.metadata);
  });

  test('Bearer and Basic both verify a key on GET /1.0/account; a bad key is 401', async () => {
    const bearer = await curl('-H', `Authorization: Bearer ${presso.key}`, `${presso.url}/1.0/account`);
    const basic = await curl('-u', `${presso.key}:`, `${presso.url}/1.0/account`);
    assert.equal(bearer.status, 200);
    assert.equal(basic.body.id, bearer.body.id);
    const bad = await curl('-H', 'Authorization: Bearer wrong', `${presso.url}/1.0/account`);
    assert.equal(bad.status, 401);
    assert.equal(bad.body.success, false);
    assert.equal(typeof bad.body.message, 'string');
    assert.equal((await client.account()).id, bearer.body.id);
    const stranger = new NodePressoClient({
      baseUrl: presso.url,
      apiKey: 'wrong',
      ca: presso.presso.tls!.cert,
    });
    await assert.rejects(stranger.account(), PressoAuthenticationError);
    await stranger.close();
  });

  test('fetch with custom headers, and with credentials in the URL user-info', async () => {
    const body = JSON.stringify({ url: `${source.origin}/pic.png`, headers: { 'X-Custom': 'yes' } });
    const viaCurl = await curl(
      '-u',
      `${presso.key}:`,
      '-H',
      'Content-Type: application/json',
      '-d',
      body,
      `${presso.url}/1.0/fetch`,
    );
    assert.equal(viaCurl.status, 200);
    assert.equal(source.requests.at(-1)!.headers['x-custom'], 'yes');
    const viaLibrary = await client.fetch({
      url: `${source.origin}/pic.png`,
      headers: { 'X-Custom': 'lib' },
    });
    assert.ok(!isAcknowledgement(viaLibrary));
    assert.equal(source.requests.at(-1)!.headers['x-custom'], 'lib');

    const privateUrl = `http://user:secret@127.0.0.1:${source.port}/private/pic.png`;
    const withUserInfo = await curl(
      '-u',
      `${presso.key}:`,
      '-H',
      'Content-Type: application/json',
      '-d',
      JSON.stringify({ url: privateUrl }),
      `${presso.url}/1.0/fetch`,
    );
    assert.equal(withUserInfo.status, 200);
    const libraryUserInfo = await client.fetch(privateUrl);
    assert.ok(!isAcknowledgement(libraryUserInfo));
  });

  test('asynchronous request, then GET /1.0/jobs/{id} with Retry-After until completed', async () => {
    const ack = await curl(
      '-u',
      `${presso.key}:`,
      '-F',
      `file=@${photo}`,
      '-F',
      'data={"async":true}',
      `${presso.url}/1.0/upload`,
    );
    assert.equal(ack.status, 202);
    assert.equal(ack.body.status, 'enqueued');
    const first = await curl('-u', `${presso.key}:`, `${presso.url}/1.0/jobs/${ack.body.id}`);
    assert.equal(first.status, 200);
    if (first.body.status !== 'completed') assert.ok(Number(first.headers['retry-after']) >= 1);
    const done = await client.wait(ack.body.id as string);
    assert.equal(done.status, 'completed');
    const finalCurl = await curl('-u', `${presso.key}:`, `${presso.url}/1.0/jobs/${ack.body.id}`);
    assert.equal(finalCurl.body.status, 'completed');
    assert.equal((finalCurl.body.output as { sha1: string }).sha1, done.output.sha1);
  });

  test('a store object holding only id (an unknown connector: 404), resize auto without size and invalid JSON (422)', async () => {
    const noSize = '{"image":{"resize":{"mode":"auto"}}}';
    const viaCurl = await curl(
      '-u',
      `${presso.key}:`,
      '-F',
      `file=@${photo}`,
      '-F',
      `data=${noSize}`,
      `${presso.url}/1.0/upload`,
    );
    assert.equal(viaCurl.status, 422);
    assert.ok((viaCurl.body.errors as { field: string }[]).some((e) => e.field === 'image.resize'));
    await assert.rejects(client.upload(photo, JSON.parse(noSize)), (e: unknown) => {
      assert.ok(e instanceof PressoValidationError);
      return e.errors.some((f) => f.field === 'image.resize');
    });
    const storeOnlyId = await curl(
      '-u',
      `${presso.key}:`,
      '-F',
      `file=@${photo}`,
      '-F',
      'data={"store":{"id":"nope"}}',
      `${presso.url}/1.0/upload`,
    );
    // The shape is accepted; the connector is looked up by id (this account has none of that id).
    assert.equal(storeOnlyId.status, 404);
    assert.equal(storeOnlyId.body.success, false);
    await assert.rejects(client.upload(photo, { store: { id: 'nope' } } as never), {
      name: 'PressoApiError',
      status: 404,
    });
    const notJson = await curl(
      '-u',
      `${presso.key}:`,
      '-F',
      `file=@${photo}`,
      '-F',
      'data={not json',
      `${presso.url}/1.0/upload`,
    );
    assert.equal(notJson.status, 422);
    assert.match(String(notJson.body.message), /valid JSON/);
  });
});
