/**
 * SSRF through connectors, through the API (app.inject, the default address guard: loopback refused): every
 * kind and every credential field a store builds its host from (endpoint, apiEndpoint, accountId, accountName,
 * the probe's region and bucket, Azure connection strings with BlobEndpoint twice or hidden behind another
 * key, EndpointSuffix and DefaultEndpointsProtocol tricks, SAS forms), names that resolve to loopback, IPv4
 * in IPv6, decimal, octal, hex and short IPv4 spellings, and redirects from an allowed server to loopback.
 * Each case points at a trap listening on every local address and asserts that the answer is a 422 on the
 * field at fault AND that no connection ever reached the trap.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compileAllowList } from '../../src/outbound/address-guard.ts';
import { GuardedAgents } from '../../src/outbound/guarded-agents.ts';
import { StoreError } from '../../src/stores/external-store.ts';
import { openStore } from '../../src/stores/open-store.ts';
import { assertErrorBody } from '../api/helpers.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import { useScratch } from '../support/scratch.ts';
import { type Counter, loopbackNames, startTrap } from './connector-traps.ts';

const S3_KEYS = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const AZURE_KEY = Buffer.alloc(64, 7).toString('base64');
const PUBLIC = 'https://93.184.216.34/acct'; // a public literal: accepted by a pattern check, never dialled here
const SERVICE_ACCOUNT = {
  client_email: 'presso@example.iam.gserviceaccount.com',
  private_key: generateKeyPairSync('rsa', { modulusLength: 1024 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString(),
};

interface Hostile {
  kind: string;
  credentials: Record<string, unknown>;
  region?: string;
  bucket?: string;
}

/** A case: the request to make for the trap's port, and the field the 422 must name. */
type Case = [name: string, make: (port: number) => Hostile, field: string];

const s3Endpoint =
  (url: (p: number) => string): ((p: number) => Hostile) =>
  (p) => ({
    kind: 's3',
    credentials: { ...S3_KEYS, endpoint: url(p) },
    region: 'us-east-1',
  });
const azureString =
  (text: (p: number) => string): ((p: number) => Hostile) =>
  (p) => ({
    kind: 'azure',
    credentials: { connectionString: text(p) },
  });
const keyed = `DefaultEndpointsProtocol=http;AccountName=acct;AccountKey=${AZURE_KEY}`;

const ENDPOINT_SPELLINGS: Case[] = [
  ...[
    'http://127.0.0.1:P',
    'https://127.0.0.1:P',
    ...loopbackNames().map((name) => `http://${name}:P`),
    'http://[::1]:P',
    'http://[::ffff:127.0.0.1]:P',
    'http://[0:0:0:0:0:ffff:7f00:1]:P',
    'http://[::]:P',
    'http://0.0.0.0:P',
    'http://2130706433:P',
    'http://0177.0.0.1:P',
    'http://0x7f.0.0.1:P',
    'http://127.1:P',
    'http://user:pw@127.0.0.1:P',
  ].map(
    (url): Case => [
      `s3 endpoint ${url}`,
      s3Endpoint((p) => url.replace('P', String(p))),
      'credentials.endpoint',
    ],
  ),
];

const HOST_FIELDS: Case[] = [
  [
    'r2 endpoint',
    (p) => ({
      kind: 'r2',
      credentials: { accountId: 'acct', ...S3_KEYS, endpoint: `http://localhost:${p}` },
    }),
    'credentials.endpoint',
  ],
  [
    'r2 accountId holding host:port/',
    (p) => ({ kind: 'r2', credentials: { accountId: `127.0.0.1:${p}/x`, ...S3_KEYS } }),
    'credentials.accountId',
  ],
  [
    'r2 accountId holding user@host',
    (p) => ({ kind: 'r2', credentials: { accountId: `x@127.0.0.1:${p}/`, ...S3_KEYS } }),
    'credentials.accountId',
  ],
  [
    'b2 endpoint',
    (p) => ({
      kind: 'b2',
      credentials: { keyId: 'k', applicationKey: 'a', endpoint: `http://localhost:${p}` },
      region: 'us-west-002',
    }),
    'credentials.endpoint',
  ],
  [
    'b2 region holding user@host',
    (p) => ({ kind: 'b2', credentials: { keyId: 'k', applicationKey: 'a' }, region: `x@127.0.0.1:${p}/` }),
    'region',
  ],
  [
    'spaces endpoint',
    (p) => ({
      kind: 'spaces',
      credentials: { key: 'k', secret: 's', endpoint: `http://localhost:${p}` },
      region: 'ams3',
    }),
    'credentials.endpoint',
  ],
  [
    'spaces region holding host:port/',
    (p) => ({ kind: 'spaces', credentials: { key: 'k', secret: 's' }, region: `127.0.0.1:${p}/x` }),
    'region',
  ],
  [
    's3 region holding host:port/',
    (p) => ({ kind: 's3', credentials: S3_KEYS, region: `127.0.0.1:${p}/x` }),
    'region',
  ],
  [
    's3 bucket holding host:port',
    (p) => ({ kind: 's3', credentials: S3_KEYS, region: 'us-east-1', bucket: `127.0.0.1:${p}` }),
    'bucket',
  ],
  [
    'gcs apiEndpoint (service account)',
    (p) => ({
      kind: 'gcs',
      credentials: { serviceAccount: SERVICE_ACCOUNT, apiEndpoint: `http://localhost:${p}` },
    }),
    'credentials.apiEndpoint',
  ],
  [
    'gcs endpoint (HMAC keys)',
    (p) => ({
      kind: 'gcs',
      credentials: { hmacAccessId: 'GOOG1EXAMPLE', hmacSecret: 's', endpoint: `http://[::1]:${p}` },
    }),
    'credentials.endpoint',
  ],
  [
    'azure accountName holding host:port/ (account key)',
    (p) => ({ kind: 'azure', credentials: { accountName: `127.0.0.1:${p}/x`, accountKey: AZURE_KEY } }),
    'credentials.accountName',
  ],
  [
    'azure accountName holding user@host (SAS)',
    (p) => ({
      kind: 'azure',
      credentials: { accountName: `x@127.0.0.1:${p}/`, sasToken: 'sv=2022-11-02&sig=abc' },
    }),
    'credentials.accountName',
  ],
  [
    'azure sasToken with a fragment',
    (p) => ({ kind: 'azure', credentials: { accountName: 'acct', sasToken: `sv=1#@127.0.0.1:${p}` } }),
    'credentials.sasToken',
  ],
];

const CONNECTION_STRINGS: Case[] = [
  [
    'BlobEndpoint on loopback',
    azureString((p) => `${keyed};BlobEndpoint=http://127.0.0.1:${p}/acct`),
    'credentials.connectionString',
  ],
  [
    'BlobEndpoint twice',
    azureString((p) => `${keyed};BlobEndpoint=http://127.0.0.1:${p}/acct;BlobEndpoint=${PUBLIC}`),
    'credentials.connectionString',
  ],
  [
    'BlobEndpoint behind another key (XBlobEndpoint=public)',
    azureString((p) => `${keyed};XBlobEndpoint=${PUBLIC};BlobEndpoint=http://127.0.0.1:${p}/acct`),
    'credentials.connectionString',
  ],
  [
    'SAS string, BlobEndpoint behind another key',
    azureString(
      (p) =>
        `QueueBlobEndpoint=${PUBLIC};BlobEndpoint=http://localhost:${p}/acct;SharedAccessSignature=sv=2022-11-02&sig=abc`,
    ),
    'credentials.connectionString',
  ],
  [
    'EndpointSuffix holding user@host',
    azureString((p) => `${keyed};EndpointSuffix=x@127.0.0.1:${p}`),
    'credentials.connectionString',
  ],
  [
    'EndpointSuffix holding host:port/path',
    azureString((p) => `${keyed};EndpointSuffix=127.0.0.1:${p}/x`),
    'credentials.connectionString',
  ],
  [
    'EndpointSuffix with a port (finding 11)',
    azureString((p) => `${keyed};EndpointSuffix=core.windows.net:${p}`),
    'credentials.connectionString',
  ],
  [
    'DefaultEndpointsProtocol other than http(s)',
    azureString(() => `DefaultEndpointsProtocol=ftp;AccountName=acct;AccountKey=${AZURE_KEY}`),
    'credentials.connectionString',
  ],
  [
    'a key that starts like another (AccountNameX)',
    azureString(
      () => `DefaultEndpointsProtocol=https;AccountNameX=1;AccountName=acct;AccountKey=${AZURE_KEY}`,
    ),
    'credentials.connectionString',
  ],
  [
    'UseDevelopmentStorage (the SDK dials 127.0.0.1:10000)',
    azureString(() => 'UseDevelopmentStorage=true'),
    'credentials.connectionString',
  ],
];

describe('connector endpoints: every kind and field that steers a host is checked where the SDK connects', () => {
  let presso: TestApp;
  let trap: Counter;
  before(async () => {
    trap = await startTrap();
    presso = await buildTestApp({ process: copyInput });
  });
  after(async () => {
    await presso?.close();
    await trap?.close();
  });

  const create = (hostile: Hostile) =>
    presso.request('/1.0/connectors', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ bucket: 'out', ...hostile }),
    });

  for (const [name, make, field] of [...ENDPOINT_SPELLINGS, ...HOST_FIELDS, ...CONNECTION_STRINGS]) {
    test(`${name}: 422 on ${field}, no connection`, async () => {
      const before = trap.accepted;
      const body = await assertErrorBody(await create(make(trap.port)), 422);
      const errors = body.errors as { field: string; message: string }[];
      assert.deepEqual(
        errors.map((e) => e.field),
        [field],
        JSON.stringify(errors),
      );
      assert.equal(trap.accepted, before, 'a connection reached the loopback listener');
    });
  }
});

describe('connector endpoints: a redirect from an allowed server to loopback is not followed', () => {
  let presso: TestApp;
  let trap: Counter;
  const redirectors: Server[] = [];
  const origins = new Map<number, string>();
  before(async () => {
    trap = await startTrap();
    // 127.0.0.2 is the "public" server here: the only address the allow-list opens.
    presso = await buildTestApp({ process: copyInput, env: { PRESSO_OUTBOUND_ALLOW: '127.0.0.2/32' } });
    for (const status of [301, 302, 303, 307, 308]) {
      const server = createServer((request, response) => {
        request.resume();
        const host = request.url?.includes('name') ? 'localhost' : '127.0.0.1';
        response.writeHead(status, { location: `http://${host}:${trap.port}${request.url}` }).end();
      });
      await new Promise<void>((ok) => server.listen(0, '127.0.0.2', ok));
      redirectors.push(server);
      origins.set(status, `http://127.0.0.2:${(server.address() as AddressInfo).port}`);
    }
  });
  after(async () => {
    await presso?.close();
    for (const server of redirectors) await new Promise((ok) => server.close(ok));
    await trap?.close();
  });

  const kinds: [string, (origin: string) => Hostile][] = [
    ['s3', (origin) => ({ kind: 's3', credentials: { ...S3_KEYS, endpoint: origin }, region: 'us-east-1' })],
    [
      'gcs (service account)',
      (origin) => ({ kind: 'gcs', credentials: { serviceAccount: SERVICE_ACCOUNT, apiEndpoint: origin } }),
    ],
    [
      'gcs (HMAC)',
      (origin) => ({
        kind: 'gcs',
        credentials: { hmacAccessId: 'GOOG1EXAMPLE', hmacSecret: 's', endpoint: origin },
      }),
    ],
    [
      'azure',
      (origin) => ({
        kind: 'azure',
        credentials: { connectionString: `${keyed};BlobEndpoint=${origin}/acct` },
      }),
    ],
  ];
  for (const [kind, make] of kinds) {
    test(`${kind}: 301, 302, 303, 307 and 308 to loopback are 422 with no connection`, async () => {
      for (const [status, origin] of origins) {
        const before = trap.accepted;
        const response = await presso.request('/1.0/connectors', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ bucket: 'out', ...make(origin) }),
        });
        await assertErrorBody(response, 422);
        assert.equal(trap.accepted, before, `${kind}, ${status}: a connection reached the loopback listener`);
      }
    });
  }
});

describe('connector endpoints: a GCS upload session on another origin is refused', () => {
  const scratch = useScratch('presso-gcs-session-');

  test('even where the guard allows the address, the 9 MiB upload is not sent to the session URL', async () => {
    const trap = await startTrap();
    // The API endpoint answers the session request with a location on another origin (the trap, via localhost).
    const api = createServer((request, response) => {
      request.resume();
      request.on('end', () =>
        response.writeHead(200, { location: `http://localhost:${trap.port}/upload?upload_id=1` }).end(),
      );
    });
    await new Promise<void>((ok) => api.listen(0, '127.0.0.1', ok));
    const file = join(scratch(), 'large.bin');
    await writeFile(file, Buffer.alloc(9 * 1024 ** 2, 1));
    const agents = new GuardedAgents(compileAllowList(['127.0.0.0/8', '::1/128']), 10_000);
    const store = openStore(
      'gcs',
      {
        serviceAccount: SERVICE_ACCOUNT,
        apiEndpoint: `http://127.0.0.1:${(api.address() as AddressInfo).port}`,
      },
      agents,
    );
    try {
      await assert.rejects(
        store.write(
          {
            bucket: 'out',
            region: undefined,
            key: 'large.bin',
            contentType: 'application/octet-stream',
            acl: undefined,
            storageClass: undefined,
            metadata: {},
            headers: {},
            tags: {},
          },
          file,
        ),
        (error: unknown) =>
          error instanceof StoreError && /upload session is not on the API endpoint/.test(error.message),
      );
      assert.equal(trap.accepted, 0, 'the upload went to the session URL');
    } finally {
      agents.destroy();
      await new Promise((ok) => api.close(ok));
      await trap.close();
    }
  });
});
