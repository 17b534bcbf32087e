/**
 * presso-client's other destinations and commands, as a user runs them against a started server: a folder
 * compressed `--in-place` (outputs replace inputs, a rerun with --resume does nothing), to an S3 bucket
 * (s3rver) through a connector made, tested and removed with `connectors add/test/list/remove`, and
 * `fetch URL --out DIR` of a file a local server holds.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { corpus } from '../support/corpus.ts';
import { startTestPresso, type TestPresso } from '../support/presso.ts';
import { cliEvents, cliFiles, runCli } from '../support/presso-client-cli.ts';
import { type Receiver, startReceiver } from '../support/receiver.ts';
import { smallCorpus } from '../support/small-corpus.ts';
import { type S3Server, startS3rver } from '../support/store-servers.ts';

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

interface ManifestEntry {
  inputSha1: string;
  output?: string;
  outputSha1: string;
  bytesIn: number;
  bytesOut: number;
}

describe('presso-client: --in-place, --store, connectors, fetch', () => {
  let presso: TestPresso;
  let s3: S3Server;
  let source: Receiver;
  let scratch: string;
  let env: Record<string, string>;

  before(async () => {
    presso = await startTestPresso({ PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' });
    s3 = await startS3rver(['out']);
    const chelsea = await readFile(corpus.chelsea);
    source = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': chelsea.length }).end(chelsea);
    });
    scratch = await mkdtemp(join(tmpdir(), 'presso-cli-more-'));
    const ca = join(scratch, 'ca.pem');
    await writeFile(ca, presso.presso.tls!.cert);
    env = {
      PRESSO_URL: presso.url,
      PRESSO_API_KEY: presso.key,
      PRESSO_CA_CERT: ca,
      PRESSO_CLIENT_CONFIG: join(scratch, 'none.json'),
    };
  });
  after(async () => {
    await presso?.stop();
    await Promise.all([s3?.close(), source?.close(), rm(scratch, { recursive: true, force: true })]);
  });

  test('--in-place: each output replaces its input (a new format renames it); --resume then skips all', async () => {
    const folder = join(scratch, 'in-place');
    await mkdir(join(folder, 'nested'), { recursive: true });
    // The 640x480 crop of the camera photo: a real JPEG at a quarter of the search's cost.
    await copyFile(smallCorpus.canonPhoto, join(folder, 'photo.jpg'));
    await copyFile(corpus.chelsea, join(folder, 'nested/chelsea.png'));
    const originals = {
      'photo.jpg': await readFile(smallCorpus.canonPhoto),
      'nested/chelsea.png': await readFile(corpus.chelsea),
    };

    const run = await runCli(['compress', folder, '--in-place', '--format', 'webp', '--json'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(cliFiles(run, 'done'), ['nested/chelsea.png', 'photo.jpg']);
    const manifest = JSON.parse(await readFile(join(folder, '.presso-manifest.json'), 'utf8'))
      .files as Record<string, ManifestEntry>;
    assert.deepEqual(Object.keys(manifest).sort(), ['nested/chelsea.png', 'photo.jpg']);
    for (const [file, original] of Object.entries(originals)) {
      const entry = manifest[file]!;
      assert.equal(entry.inputSha1, sha1(original));
      assert.match(entry.output!, /\.webp$/);
      const output = await readFile(join(folder, entry.output!));
      assert.equal(sha1(output), entry.outputSha1);
      assert.equal(output.subarray(8, 12).toString('latin1'), 'WEBP');
    }
    // The inputs are gone: only the WebP outputs (and the manifest) remain, each in its input's folder.
    assert.deepEqual((await readdir(folder, { recursive: true })).sort(), [
      '.presso-manifest.json',
      'nested',
      manifest['nested/chelsea.png']!.output!,
      manifest['photo.jpg']!.output!,
    ]);

    // Same format in place: the file keeps its name and now holds the smaller output.
    const jpegFolder = join(scratch, 'in-place-jpeg');
    await mkdir(jpegFolder);
    await copyFile(smallCorpus.canonPhoto, join(jpegFolder, 'photo.jpg'));
    const jpeg = await runCli(['compress', jpegFolder, '--in-place', '--json'], env);
    assert.equal(jpeg.code, 0, jpeg.stderr);
    const replaced = await readFile(join(jpegFolder, 'photo.jpg'));
    assert.ok(replaced.length < originals['photo.jpg'].length);
    assert.notEqual(sha1(replaced), sha1(originals['photo.jpg']));
    assert.deepEqual(await readdir(jpegFolder), ['.presso-manifest.json', 'photo.jpg'].sort());

    const again = await runCli(['compress', jpegFolder, '--in-place', '--resume', '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(cliFiles(again, 'skipped'), ['photo.jpg']);
    assert.deepEqual(cliFiles(again, 'done'), []);
    assert.equal(sha1(await readFile(join(jpegFolder, 'photo.jpg'))), sha1(replaced), 'not compressed twice');
  });

  test('connectors add/list/test, compress --store CONNECTOR:BUCKET/PATH into s3rver, connectors remove', async () => {
    const added = await runCli(
      [
        'connectors',
        'add',
        '--data',
        JSON.stringify({
          kind: 's3',
          name: 'cli bucket',
          credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', endpoint: s3.endpoint },
          bucket: 'out',
          region: 'us-east-1',
        }),
      ],
      env,
    );
    assert.equal(added.code, 0, added.stderr);
    const connector = JSON.parse(added.stdout) as { id: string; kind: string; name: string };
    assert.equal(connector.kind, 's3');
    assert.ok(!added.stdout.includes('S3RVER'), 'the secret is not echoed back');

    const listed = await runCli(['connectors', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok((JSON.parse(listed.stdout) as { id: string }[]).some((c) => c.id === connector.id));
    const tested = await runCli(
      ['connectors', 'test', connector.id, '--bucket', 'out', '--region', 'us-east-1'],
      env,
    );
    assert.equal(tested.code, 0, `${tested.stderr}${tested.stdout}`);
    assert.deepEqual(JSON.parse(tested.stdout), { ok: true });

    const folder = join(scratch, 'to-store');
    await mkdir(join(folder, 'nested'), { recursive: true });
    await copyFile(smallCorpus.canonPhoto, join(folder, 'photo.jpg'));
    await copyFile(corpus.chelsea, join(folder, 'nested/chelsea.png'));
    const stored = await runCli(
      [
        'compress',
        folder,
        '--store',
        `${connector.id}:out/batch/2026`,
        '--region',
        'us-east-1',
        '--format',
        'webp',
        '--json',
      ],
      env,
    );
    assert.equal(stored.code, 0, `${stored.stderr}${stored.stdout}`);
    assert.deepEqual(cliFiles(stored, 'done'), ['nested/chelsea.png', 'photo.jpg']);
    const manifest = JSON.parse(await readFile(join(folder, '.presso-manifest.json'), 'utf8'))
      .files as Record<string, ManifestEntry>;
    assert.equal(manifest['photo.jpg']!.output, undefined, 'nothing was downloaded');
    assert.deepEqual((await readdir(folder, { recursive: true })).sort(), [
      '.presso-manifest.json',
      'nested',
      'nested/chelsea.png',
      'photo.jpg',
    ]);

    const bucket = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    try {
      const objects = await bucket.send(new ListObjectsV2Command({ Bucket: 'out', Prefix: 'batch/' }));
      const keys = (objects.Contents ?? []).map((o) => o.Key!).sort();
      assert.equal(keys.length, 2, keys.join(', '));
      // Each output keeps its file's place below the prefix.
      assert.match(keys[0]!, /^batch\/2026\/nested\/[^/]+\.webp$/);
      assert.match(keys[1]!, /^batch\/2026\/[^/]+\.webp$/);
      const bodies = await Promise.all(
        keys.map(async (key) => {
          const object = await bucket.send(new GetObjectCommand({ Bucket: 'out', Key: key }));
          return sha1(await object.Body!.transformToByteArray());
        }),
      );
      assert.deepEqual(
        bodies,
        [manifest['nested/chelsea.png']!.outputSha1, manifest['photo.jpg']!.outputSha1],
        'the bucket holds the outputs the server reported',
      );
    } finally {
      bucket.destroy();
    }

    const removed = await runCli(['connectors', 'remove', connector.id], env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.deepEqual(JSON.parse(removed.stdout), { removed: connector.id });
    const after = await runCli(['connectors', 'list'], env);
    assert.ok(!(JSON.parse(after.stdout) as { id: string }[]).some((c) => c.id === connector.id));
    const again = await runCli(['connectors', 'remove', connector.id], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /presso-client: 404 /);
    // A store with no such connector fails the file, named, with exit 1.
    const missing = await runCli(
      ['compress', folder, '--store', `${connector.id}:out`, '--region', 'us-east-1', '--json'],
      env,
    );
    assert.equal(missing.code, 1);
    assert.deepEqual(cliFiles(missing, 'failed'), ['nested/chelsea.png', 'photo.jpg']);
    assert.ok(cliEvents(missing).some((e) => e.event === 'summary' && e.done === 0));
  });

  test('fetch URL --out DIR: the service fetches the file, the CLI prints the result and saves the output', async () => {
    const out = join(scratch, 'fetched');
    await mkdir(out);
    const run = await runCli(['fetch', `${source.origin}/cat.png`, '--format', 'webp', '--out', out], env);
    assert.equal(run.code, 0, run.stderr);
    const result = JSON.parse(run.stdout) as {
      status: string;
      input: { sha1: string };
      output: { name: string; sha1: string; format: string };
    };
    assert.equal(result.status, 'completed');
    assert.equal(result.input.sha1, sha1(await readFile(corpus.chelsea)));
    assert.equal(result.output.format, 'webp');
    assert.ok(source.requests.some((r) => r.url === '/cat.png'));
    const saved = await readFile(join(out, result.output.name));
    assert.equal(sha1(saved), result.output.sha1);
  });
});
