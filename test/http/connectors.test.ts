/**
 * Connectors and `store` through the app (app.inject): a connector per kind is created against its real
 * protocol server (probe write and delete), listed with a masked hint and never its credentials; an upload
 * and a fetch with `store` land the object (read back with the provider's SDK: bytes and SHA-1) and answer
 * its URL; kind rules are one 422 with an entry per field; another account's connector is 404 on store.id;
 * a failing probe is 422 with the reason; a deleted connector cannot be used.
 */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { BlobServiceClient } from '@azure/storage-blob';
import { assertErrorBody, type CompletedResult } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { type FakeGcs, startFakeGcs } from '../support/fake-gcs.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import { type Receiver, serveBytes, startReceiver } from '../support/receiver.ts';
import { type AzuriteServer, type S3Server, startAzurite, startS3rver } from '../support/store-servers.ts';

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

describe('connectors and store', () => {
  let presso: TestApp;
  let s3: S3Server;
  let azurite: AzuriteServer;
  let gcs: FakeGcs;
  let source: Receiver;
  let photo: Buffer;
  const connectors: Record<string, string> = {};

  before(async () => {
    [s3, azurite, gcs] = await Promise.all([startS3rver(['out']), startAzurite(), startFakeGcs(['out'])]);
    await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient('out').create();
    photo = await readFile(corpus.palettePng);
    source = await startReceiver(serveBytes(photo, 'image/png'));
    presso = await buildTestApp({ env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' }, process: copyInput });
  });
  after(async () => {
    await presso?.close();
    await Promise.all([s3?.close(), azurite?.close(), gcs?.close(), source?.close()]);
  });

  const credentials = (kind: string): Record<string, unknown> => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    return {
      s3: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', endpoint: s3.endpoint },
      r2: { accountId: 'acct', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', endpoint: s3.endpoint },
      b2: { keyId: 'S3RVER', applicationKey: 'S3RVER', endpoint: s3.endpoint },
      spaces: { key: 'S3RVER', secret: 'S3RVER', endpoint: s3.endpoint },
      azure: { connectionString: azurite.connectionString },
      gcs: {
        serviceAccount: {
          client_email: 'presso@example.iam.gserviceaccount.com',
          private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        },
        apiEndpoint: gcs.url,
      },
    }[kind]!;
  };
  const REGION: Record<string, string | undefined> = { s3: 'us-east-1', b2: 'us-west-002', spaces: 'ams3' };
  const KINDS = ['s3', 'r2', 'b2', 'spaces', 'azure', 'gcs'];

  const post = (path: string, body: unknown, key = presso.key) =>
    presso.request(path, {
      method: 'POST',
      auth: `Bearer ${key}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  test('a connector of each kind is created after a probe, and listed without its credentials', async () => {
    for (const kind of KINDS) {
      const response = await post('/1.0/connectors', {
        kind,
        credentials: credentials(kind),
        bucket: 'out',
        region: REGION[kind],
      });
      assert.equal(response.status, 201, `${kind}: ${await response.clone().text()}`);
      const created = (await response.json()) as { id: string; kind: string; hint: string };
      assert.equal(created.kind, kind);
      connectors[kind] = created.id;
    }
    const listed = await presso.request('/1.0/connectors');
    const text = await listed.text();
    assert.equal(JSON.parse(text).connectors.length, KINDS.length);
    for (const secret of ['S3RVER', 'PRIVATE KEY', 'AccountKey'])
      assert.ok(!text.includes(secret), `${secret} never returned`);
    // A key id of 8 characters or fewer is masked whole; account names and service e-mails are not secrets.
    const hints = Object.fromEntries(
      JSON.parse(text).connectors.map((c: { kind: string; hint: string }) => [c.kind, c.hint]),
    );
    assert.equal(hints.s3, '…');
    assert.equal(hints.azure, 'devstoreaccount1');
  });

  test('upload and fetch with store land the object in each kind and answer its URL', async () => {
    for (const kind of KINDS) {
      const store = {
        id: connectors[kind],
        bucket: 'out',
        region: REGION[kind],
        path: `${kind}/`,
        metadata: { job: 'test' },
      };
      const uploaded = await presso.upload(photo, { store });
      assert.equal(uploaded.status, 200, `${kind}: ${await uploaded.clone().text()}`);
      const result = (await uploaded.json()) as CompletedResult;
      assert.match(result.url, new RegExp(`out/${kind}/`), `${kind} URL ${result.url}`);
      const key = `${kind}/${result.output.name}`;
      const stored = await readBack(kind, key);
      assert.equal(sha1(stored), result.output.sha1, `${kind}: bytes`);
      const fetched = await presso.fetchJson({
        url: `${source.origin}/named.png`,
        store: { ...store, path: `${kind}/fetched.png` },
      });
      assert.equal(fetched.status, 200, `${kind} fetch: ${await fetched.clone().text()}`);
      assert.equal(sha1(await readBack(kind, `${kind}/fetched.png`)), sha1(photo));
    }
  });

  async function readBack(kind: string, key: string): Promise<Buffer> {
    if (kind === 'azure') {
      return BlobServiceClient.fromConnectionString(azurite.connectionString)
        .getContainerClient('out')
        .getBlobClient(key)
        .downloadToBuffer();
    }
    if (kind === 'gcs') return gcs.objects.get(`out/${key}`)!.data;
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const body = await client.send(new GetObjectCommand({ Bucket: 'out', Key: key }));
    const bytes = Buffer.from(await body.Body!.transformToByteArray());
    client.destroy();
    return bytes;
  }

  test("the kind's rules: one 422 with an entry per bad store field", async () => {
    const r2 = await presso.upload(photo, {
      store: {
        id: connectors.r2,
        bucket: 'out',
        region: 'auto',
        class: 'glacier',
        tags: { a: 'b' },
        headers: { Expires: 'x', 'Cache-Control': 'no-cache' },
        acl: 'public-read-write',
      },
    });
    const body = await assertErrorBody(r2, 422);
    const fields = (body.errors as { field: string }[]).map((e) => e.field).sort();
    assert.deepEqual(fields, [
      'store.acl',
      'store.class',
      'store.headers.Expires',
      'store.region',
      'store.tags',
    ]);
    const b2 = await assertErrorBody(
      await presso.upload(photo, { store: { id: connectors.b2, bucket: 'out', region: 'us-east-1' } }),
      422,
    );
    assert.match(JSON.stringify(b2.errors), /store\.region.*us-west-000/);
    const s3Missing = await assertErrorBody(
      await presso.upload(photo, { store: { id: connectors.s3, bucket: 'out' } }),
      422,
    );
    assert.deepEqual(
      (s3Missing.errors as { field: string }[]).map((e) => e.field),
      ['store.region'],
    );
    const azure = await assertErrorBody(
      await presso.upload(photo, { store: { id: connectors.azure, bucket: 'out', container: 'other' } }),
      422,
    );
    assert.deepEqual(
      (azure.errors as { field: string }[]).map((e) => e.field),
      ['store.container'],
    );
  });

  test("another account's connector is 404 on store.id; a failing probe is 422 with the reason", async () => {
    const other = await presso.createAccount('other');
    const response = await presso.upload(
      photo,
      { store: { id: connectors.s3, bucket: 'out', region: 'us-east-1' } },
      `Bearer ${other.key}`,
    );
    const body = await assertErrorBody(response, 404);
    assert.match(String(body.message), /store\.id/);
    const wrongKey = azurite.connectionString.replace(
      /AccountKey=[^;]+/,
      `AccountKey=${Buffer.alloc(64, 1).toString('base64')}`,
    );
    const refused = await post('/1.0/connectors', {
      kind: 'azure',
      credentials: { connectionString: wrongKey },
      bucket: 'out',
    });
    const credentialsError = await assertErrorBody(refused, 422);
    assert.match(
      JSON.stringify(credentialsError.errors),
      /"field":"credentials".*Azure Blob Storage store refused the credentials/,
    );
    const missing = await post('/1.0/connectors', {
      kind: 's3',
      credentials: credentials('s3'),
      bucket: 'no-such-bucket',
      region: 'us-east-1',
    });
    const probe = await assertErrorBody(missing, 422);
    assert.match(JSON.stringify(probe.errors), /"field":"bucket".*Amazon S3 store has no such bucket/);
  });

  test('a write the store refuses is 502 naming the store and the cause; an async job fails the same way', async () => {
    const store = { id: connectors.s3, bucket: 'gone-bucket', region: 'us-east-1' };
    const sync = await assertErrorBody(await presso.upload(photo, { store }), 502);
    assert.match(String(sync.message), /The Amazon S3 store has no such bucket/);
    assert.doesNotMatch(String(sync.message), /S3RVER/);
    const ack = (await (await presso.upload(photo, { store, async: true })).json()) as { id: string };
    const failed = (await presso.waitForJob(ack.id)) as { status: string; message?: string };
    assert.equal(failed.status, 'failed');
    assert.match(String(failed.message), /Amazon S3 store has no such bucket/);
  });

  test('a deleted connector is gone: 204, then 404 on use and on delete', async () => {
    const created = (await (
      await post('/1.0/connectors', {
        kind: 'spaces',
        credentials: credentials('spaces'),
        bucket: 'out',
        region: 'ams3',
      })
    ).json()) as { id: string };
    assert.equal(
      (await post(`/1.0/connectors/${created.id}/test`, { bucket: 'out', region: 'ams3' })).status,
      200,
    );
    assert.equal((await presso.request(`/1.0/connectors/${created.id}`, { method: 'DELETE' })).status, 204);
    assert.equal((await presso.request(`/1.0/connectors/${created.id}`, { method: 'DELETE' })).status, 404);
    await assertErrorBody(
      await presso.upload(photo, { store: { id: created.id, bucket: 'out', region: 'ams3' } }),
      404,
    );
  });
});
