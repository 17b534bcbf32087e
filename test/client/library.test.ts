/**
 * @presso/client against a started server over HTTPS (its self-signed certificate trusted through `ca`):
 * every method, with real files, and the typed errors.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import {
  isAcknowledgement,
  NodePressoClient,
  PressoApiError,
  PressoAuthenticationError,
  PressoJobFailedError,
  PressoValidationError,
  verifyWebhook,
} from '@presso/client';
import { corpus } from '../support/corpus.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { type S3Server, startS3rver } from '../support/store-servers.ts';
import { until } from '../support/until.ts';

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

describe('@presso/client library', () => {
  let presso: TestPresso;
  let client: NodePressoClient;
  let source: Receiver;
  let s3: S3Server;
  let scratch: string;

  before(async () => {
    presso = await startTestPresso({
      PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32',
      PRESSO_WEBHOOK_RETRY_SCHEDULE: '1s',
    });
    client = new NodePressoClient({ baseUrl: presso.url, apiKey: presso.key, ca: presso.presso.tls!.cert });
    const chelsea = await readFile(corpus.chelsea);
    source = await startReceiver((req, res) => {
      if (req.url.startsWith('/hook')) return void res.writeHead(204).end();
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': chelsea.length }).end(chelsea);
    });
    s3 = await startS3rver(['out']);
    scratch = await mkdtemp(join(tmpdir(), 'presso-client-'));
  });
  after(async () => {
    await client?.close();
    await presso?.stop();
    await Promise.all([source?.close(), s3?.close(), rm(scratch, { recursive: true, force: true })]);
  });

  test('upload from a path, bytes, a Blob, a Node stream and a web stream: the same input every time', async () => {
    const bytes = await readFile(corpus.chelsea);
    const params = { image: { format: 'webp' as const, resize: { width: 200 } } };
    const answers = [
      await client.upload(corpus.chelsea, params),
      await client.upload(bytes, params, { name: 'chelsea.png' }),
      await client.upload(new Blob([bytes]), params, { name: 'chelsea.png' }),
      await client.upload(createReadStream(corpus.chelsea), params, { name: 'chelsea.png' }),
      await client.upload(
        Readable.toWeb(createReadStream(corpus.chelsea)) as ReadableStream<Uint8Array>,
        params,
        {
          name: 'chelsea.png',
        },
      ),
    ];
    for (const answer of answers) {
      assert.ok(!isAcknowledgement(answer), 'a small image answers synchronously');
      const result = answer as Exclude<typeof answer, { status: string }>;
      assert.equal(result.input.name, 'chelsea.png');
      assert.equal(result.input.sha1, sha1(bytes));
      assert.equal(result.input.size, bytes.length);
      assert.equal(result.output.format, 'webp');
    }
  });

  test('fetch, then download to a directory: the bytes match output.sha1 and size', async () => {
    const result = await client.fetch(`${source.origin}/pics/chelsea.png`, { image: { format: 'webp' } });
    assert.ok(!isAcknowledgement(result));
    const saved = await client.download(result, scratch);
    const written = await readFile(saved.path);
    assert.equal(saved.path, join(scratch, result.output.name));
    assert.equal(sha1(written), result.output.sha1);
    assert.equal(written.length, result.output.size);
    // Refused: a result whose sha1 is not the file's leaves nothing behind.
    const wrong = { ...result, output: { ...result.output, sha1: '0'.repeat(40) } };
    await assert.rejects(client.download(wrong, join(scratch, 'wrong.webp')), {
      name: 'PressoIntegrityError',
    });
    await assert.rejects(readFile(join(scratch, 'wrong.webp')), { code: 'ENOENT' });
    const blob = await client.downloadBlob(result);
    assert.equal(blob.size, result.output.size);
  });

  test('async: upload acknowledges, job() shows the record, wait() ends completed; compress does both', async () => {
    // The palette PNG: real, and cheap to convert (~0.1 CPU-s; astronaut.png to AVIF was ~0.6).
    const ack = await client.upload(corpus.palettePng, { async: true, image: { format: 'webp' } });
    assert.ok(isAcknowledgement(ack));
    assert.equal(ack.status, 'enqueued');
    const record = await client.job(ack.id);
    assert.equal(record.id, ack.id);
    const seen: string[] = [];
    const done = await client.wait(ack, { onProgress: (r) => seen.push(r.status) });
    assert.equal(done.status, 'completed');
    assert.equal(done.output.format, 'webp');
    assert.equal(seen.at(-1), 'completed');
    assert.equal((await client.job(ack.id)).status, 'completed');
    const listed = await client.jobs({ limit: '5' });
    assert.ok(listed.jobs.some((job) => job.id === ack.id));

    const compressed = await client.compress(corpus.palettePng, { async: true, image: { format: 'avif' } });
    assert.equal(compressed.status, 'completed');
    assert.equal(compressed.output.format, 'avif');
    const fetched = await client.compress({ url: `${source.origin}/a.png` }, { image: { format: 'webp' } });
    assert.equal(fetched.input.sha1, sha1(await readFile(corpus.chelsea)));
  });

  test('a job that fails: wait throws PressoJobFailedError carrying the record', async () => {
    const ack = await client.upload(corpus.truncatedJpeg, { async: true });
    assert.ok(isAcknowledgement(ack));
    const error = await client.wait(ack).then(
      () => assert.fail('the truncated JPEG must fail'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PressoJobFailedError);
    assert.equal(error.record.status, 'failed');
    assert.equal(error.record.success, false);
    assert.ok(error.record.message && error.record.message.length > 0);
  });

  test('account() verifies the key; a wrong key is PressoAuthenticationError with the error body', async () => {
    const account = await client.account();
    assert.equal(account.id, presso.account.id);
    assert.ok(account.usage.requests > 0);
    assert.equal(client.transport.rateLimit?.limit, account.rateLimit.limit);
    const stranger = new NodePressoClient({
      baseUrl: presso.url,
      apiKey: 'nope',
      ca: presso.presso.tls!.cert,
    });
    const error = await stranger.account().catch((e: unknown) => e);
    await stranger.close();
    assert.ok(error instanceof PressoAuthenticationError);
    assert.equal(error.status, 401);
    assert.match(error.id, /^[0-9a-f-]{36}$/);
    assert.match(error.message, /invalid or has been revoked/);
  });

  test('invalid parameters are PressoValidationError with errors[] per field', async () => {
    const error = await client
      .upload(corpus.chelsea, { image: { resize: { mode: 'auto' } } } as never)
      .catch((e: unknown) => e);
    assert.ok(error instanceof PressoValidationError);
    assert.ok(error instanceof PressoApiError);
    assert.equal(error.status, 422);
    assert.equal(error.body.success, false);
    assert.ok(
      error.errors.some((e) => e.field === 'image.resize'),
      JSON.stringify(error.errors),
    );
  });

  test('connectors: add (probe write into s3rver), list, test, remove', async () => {
    const created = await client.connectors.add({
      kind: 's3',
      name: 'client test',
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', endpoint: s3.endpoint },
      bucket: 'out',
      region: 'us-east-1',
    });
    assert.equal(created.kind, 's3');
    assert.ok((await client.connectors.list()).some((c) => c.id === created.id));
    assert.deepEqual(await client.connectors.test(created.id, { bucket: 'out', region: 'us-east-1' }), {
      ok: true,
    });
    await client.connectors.remove(created.id);
    assert.ok(!(await client.connectors.list()).some((c) => c.id === created.id));
    await assert.rejects(client.connectors.remove(created.id), { status: 404 });
  });

  test('webhooks: a signed delivery verifies with verifyWebhook, is listed, and replays', async () => {
    // The palette PNG: a real image whose search at the default level is ~0.1 CPU-s (chelsea's: ~1.2).
    const ack = await client.upload(corpus.palettePng, { webhook: { url: `${source.origin}/hook` } });
    assert.ok(isAcknowledgement(ack), 'a webhook makes the job asynchronous');
    await client.wait(ack);
    const hooks = await source.waitFor(source.requests.filter((r) => !r.url.startsWith('/hook')).length + 1);
    const hook = hooks.filter((r) => r.url.startsWith('/hook')).at(-1)!;
    const payload = await verifyWebhook<{ id: string }>(
      hook.body.toString(),
      hook.headers,
      presso.account.webhookSecret,
    );
    assert.equal(payload.id, ack.id);
    const page = await client.webhooks.list({ job: ack.id });
    assert.equal(page.deliveries.length, 1);
    const delivery = page.deliveries[0]!;
    assert.equal(delivery.id, hook.headers['webhook-id']);
    await until(
      async () => (await client.webhooks.list({ job: ack.id })).deliveries[0]?.state === 'succeeded',
      'the delivery listed as succeeded',
      100,
    );
    const replay = await client.webhooks.replay(delivery.id);
    assert.deepEqual(replay, { id: delivery.id, state: 'pending' });
  });
});
