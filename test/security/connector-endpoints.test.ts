/**
 * SSRF through connectors, through the API (app.inject, the default address guard: loopback refused): every
 * kind and every credential field a store builds its host from (endpoint, apiEndpoint, accountId, accountName,
 * the probe's region and bucket, Azure connection strings with BlobEndpoint twice or hidden behind another
 * key, EndpointSuffix and DefaultEndpointsProtocol tricks, SAS forms), names that resolve to loopback, IPv4
 * in IPv6, decimal, octal, hex and short IPv4 spellings (redirects: connector-redirects.test.ts).
 * Each case points at a trap listening on every local address and asserts that the answer is a 422 on the
 * field at fault AND that no connection ever reached the trap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertErrorBody } from '../api/helpers.ts';
import { buildTestApp, copyInput, type TestApp } from '../support/http-app.ts';
import {
  AZURE_KEY,
  AZURE_KEYED,
  type Counter,
  type Hostile,
  loopbackNames,
  S3_KEYS,
  SERVICE_ACCOUNT,
  startTrap,
} from './connector-traps.ts';

const PUBLIC = 'https://93.184.216.34/acct'; // a public literal: accepted by a pattern check, never dialled here

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
const keyed = AZURE_KEYED;

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
