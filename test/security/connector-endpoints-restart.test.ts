/**
 * Connector endpoints are judged at every connection, not once (finding 6), through the API. Connectors of
 * every kind are created, tested and delivered to while loopback is allow-listed (the store servers run there),
 * each behind a proxy that counts connections; every socket the SDKs open doing so (probes, single, multipart,
 * block and resumable uploads) must be one the guarded agents opened, also for hosts the service fixes
 * (Google's token endpoint, R2's). The app then restarts over the same data directory with the default guard:
 * `/test` and a delivery are a 422 naming the setting, and no connection reaches any store server.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BlobServiceClient } from '@azure/storage-blob';
import sharp from 'sharp';
import { isGuardedSocket } from '../../src/outbound/guarded-agents.ts';
import { assertErrorBody } from '../api/helpers.ts';
import { corpus } from '../support/corpus.ts';
import { type FakeGcs, startFakeGcs } from '../support/fake-gcs.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import { type AzuriteServer, type S3Server, startAzurite, startS3rver } from '../support/store-servers.ts';
import { type Counter, SERVICE_ACCOUNT, socketsOpenedBy, startCountingProxy } from './connector-traps.ts';

const REGION: Record<string, string | undefined> = { s3: 'us-east-1', b2: 'us-west-002', spaces: 'ams3' };

const portOf = (url: string) => Number(new URL(url).port);

describe('connector endpoints are checked at every connection, with the allow-list in force then', () => {
  let s3: S3Server;
  let azurite: AzuriteServer;
  let gcs: FakeGcs;
  let proxies: Counter[];
  let dataDir: string;
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  /** name → [kind, connector id, the credential field that steers its host]. */
  const created = new Map<string, [kind: string, id: string, field: string]>();
  /** The first app's API key: the account lives in the data directory and outlives the restart. */
  let key = '';

  before(async () => {
    [s3, azurite, gcs] = await Promise.all([startS3rver(['out']), startAzurite(), startFakeGcs(['out'])]);
    await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient('out').create();
    const azurePort = portOf(/BlobEndpoint=([^;]+)/.exec(azurite.connectionString)![1]!);
    proxies = await Promise.all(
      [portOf(s3.endpoint), azurePort, portOf(gcs.url)].map((port) =>
        startCountingProxy({ host: '127.0.0.1', port }),
      ),
    );
    dataDir = await mkdtemp(join(tmpdir(), 'presso-connector-restart-'));
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await Promise.all([
      s3?.close(),
      azurite?.close(),
      gcs?.close(),
      ...(proxies ?? []).map((p) => p.close()),
    ]);
    await rm(dataDir, { recursive: true, force: true });
  });

  const connectors = (): [
    name: string,
    kind: string,
    credentials: Record<string, unknown>,
    field: string,
  ][] => {
    const [s3Proxy, azureProxy, gcsProxy] = proxies.map((p) => `http://127.0.0.1:${p.port}`);
    const keys = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', endpoint: s3Proxy };
    const azure = azurite.connectionString.replace(
      /BlobEndpoint=http:\/\/[^/]+/,
      `BlobEndpoint=${azureProxy}`,
    );
    return [
      ['s3', 's3', keys, 'credentials.endpoint'],
      ['r2', 'r2', { accountId: 'acct', ...keys }, 'credentials.endpoint'],
      ['b2', 'b2', { keyId: 'S3RVER', applicationKey: 'S3RVER', endpoint: s3Proxy }, 'credentials.endpoint'],
      ['spaces', 'spaces', { key: 'S3RVER', secret: 'S3RVER', endpoint: s3Proxy }, 'credentials.endpoint'],
      [
        'gcs-hmac',
        'gcs',
        { hmacAccessId: 'S3RVER', hmacSecret: 'S3RVER', endpoint: s3Proxy },
        'credentials.endpoint',
      ],
      ['gcs', 'gcs', { serviceAccount: SERVICE_ACCOUNT, apiEndpoint: gcsProxy }, 'credentials.apiEndpoint'],
      ['azure', 'azure', { connectionString: azure }, 'credentials.connectionString'],
    ];
  };
  const post = (app: TestApp, path: string, body: unknown, key = app.key) =>
    app.request(path, {
      method: 'POST',
      auth: `Bearer ${key}`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  /** What each piece of work opened: `[what, sockets, of which guarded]`, asserted once all work is done. */
  const opened: [what: string, sockets: number, guarded: number][] = [];
  const record = (what: string, sockets: object[]) =>
    opened.push([what, sockets.length, sockets.filter((socket) => isGuardedSocket(socket)).length]);

  test('while loopback is allowed, every SDK connects only through the guard, fixed hosts included', async () => {
    first = await buildTestApp({
      dataDir,
      env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.1/32' },
      process: copyInput,
    });
    key = first.key;
    const photo = await readFile(corpus.palettePng);
    // 9.7 MB of noise that PNG cannot shrink: past S3's 8 MiB part, Azure's 4 MiB block, GCS's 8 MiB request.
    const large = await sharp(randomBytes(1800 * 1800 * 3), {
      raw: { width: 1800, height: 1800, channels: 3 },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    for (const [name, kind, credentials, field] of connectors()) {
      let status = 0;
      let id = '';
      const sockets = await socketsOpenedBy(async () => {
        const response = await post(first!, '/1.0/connectors', {
          kind,
          credentials,
          bucket: 'out',
          region: REGION[kind],
        });
        status = response.status;
        id = ((await response.json()) as { id: string }).id;
      });
      assert.equal(status, 201, name);
      record(name, sockets);
      created.set(name, [kind, id, field]);
      assert.equal(
        (await post(first, `/1.0/connectors/${id}/test`, { bucket: 'out', region: REGION[kind] })).status,
        200,
      );
      // Deliveries: a small output, and one past a part, a block and the single-request limit for the
      // SDKs' multipart, block and resumable uploads.
      for (const [size, file] of [
        ['small', photo],
        ...(['s3', 'gcs', 'azure'].includes(name) ? [['9 MB', large] as const] : []),
      ] as const) {
        let delivered = 0;
        const store = { id, bucket: 'out', region: REGION[kind], path: `${name}/` };
        const sockets = await socketsOpenedBy(async () => {
          delivered = (await first!.upload(file, { store })).status;
        });
        assert.equal(delivered, 200, `${name}: ${size} delivery`);
        record(`${name}: ${size} delivery`, sockets);
      }
    }
    // Hosts the service fixes: Google's token endpoint (no apiEndpoint), R2's account host. Unreachable here
    // or refusing these credentials, either way a 422, and what was dialled went through the guard.
    for (const [name, kind, credentials] of [
      ['gcs token request', 'gcs', { serviceAccount: SERVICE_ACCOUNT }],
      ['r2 account host', 'r2', { accountId: 'acct', accessKeyId: 'a', secretAccessKey: 'b' }],
    ] as const) {
      let status = 0;
      const sockets = await socketsOpenedBy(async () => {
        status = (await post(first!, '/1.0/connectors', { kind, credentials, bucket: 'out' })).status;
      });
      assert.equal(status, 422, name);
      record(name, sockets);
    }
    await first.close();
    first = undefined;
    // Each opened at least one socket, and every one was opened by the guarded agents.
    assert.deepEqual(
      opened.filter(([, sockets, guarded]) => sockets === 0 || guarded !== sockets),
      [],
      'pieces of work with no socket, or with sockets the guard never saw: [what, sockets, guarded]',
    );
  });

  test('after a restart without the allow-list, /test and deliveries are 422 and reach no store', async () => {
    assert.equal(created.size, 7, 'the connectors of the previous test exist');
    second = await buildTestApp({ dataDir, process: copyInput });
    const photo = await readFile(corpus.palettePng);
    const before = proxies.map((p) => p.accepted);
    for (const [name, [kind, id, field]] of created) {
      const tested = await assertErrorBody(
        await post(second, `/1.0/connectors/${id}/test`, { bucket: 'out', region: REGION[kind] }, key),
        422,
      );
      assert.deepEqual(
        (tested.errors as { field: string }[]).map((e) => e.field),
        [field],
        `${name}: ${JSON.stringify(tested.errors)}`,
      );
      assert.match(JSON.stringify(tested.errors), /not allowed \(loopback\)/, name);
      const store = { id, bucket: 'out', region: REGION[kind] };
      const delivered = await assertErrorBody(await second.upload(photo, { store }, `Bearer ${key}`), 422);
      assert.deepEqual(
        (delivered.errors as { field: string }[]).map((e) => e.field),
        ['store.id'],
        `${name}: ${JSON.stringify(delivered.errors)}`,
      );
    }
    assert.deepEqual(
      proxies.map((p) => p.accepted),
      before,
      'a connection reached a store server after the allow-list was narrowed',
    );
  });
});
