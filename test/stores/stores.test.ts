/**
 * The ExternalStore contract against real protocol servers started here: the S3-compatible store with each
 * of its presets (S3, R2, B2, Spaces) on s3rver, Azure on Azurite, and Google Cloud Storage on the JSON-API
 * test server. Objects are read back with each provider's own SDK. The stores connect through guarded agents
 * that allow loopback, where the servers listen.
 */

import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { test } from 'node:test';
import {
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { BlobServiceClient } from '@azure/storage-blob';
import { Storage } from '@google-cloud/storage';
import { STORE_KINDS, storeModuleOf } from '../../src/stores/catalog.ts';
import { contractRuns, externalStoreContract } from '../contracts/external-store.contract.ts';
import { startFakeGcs } from '../support/fake-gcs.ts';
import { startAzurite, startS3rver } from '../support/store-servers.ts';

const S3_CREDENTIALS: Record<string, Record<string, string>> = {
  'gcs-hmac': { hmacAccessId: 'S3RVER', hmacSecret: 'S3RVER' },
  s3: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  r2: { accountId: 'test-account', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  b2: { keyId: 'S3RVER', applicationKey: 'S3RVER' },
  spaces: { key: 'S3RVER', secret: 'S3RVER' },
};

const REGIONS: Record<string, string | undefined> = {
  s3: 'eu-west-1',
  r2: undefined,
  b2: 'eu-central-003',
  spaces: 'ams3',
};

// GCS with HMAC keys goes through its S3-compatible XML API: the S3 store with the GCS preset.
for (const name of ['s3', 'r2', 'b2', 'spaces', 'gcs-hmac'] as const) {
  const kind = name === 'gcs-hmac' ? 'gcs' : name;
  externalStoreContract(storeModuleOf(kind), name === kind ? undefined : name, async () => {
    const server = await startS3rver(['out']);
    const client = new S3Client({
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    return {
      credentials: { ...S3_CREDENTIALS[name], endpoint: server.endpoint },
      bucket: 'out',
      region: REGIONS[name],
      async readBack(key) {
        try {
          const head = await client.send(new HeadObjectCommand({ Bucket: 'out', Key: key }));
          const body = await client.send(new GetObjectCommand({ Bucket: 'out', Key: key }));
          const tagging = await client.send(new GetObjectTaggingCommand({ Bucket: 'out', Key: key }));
          return {
            bytes: Buffer.from(await body.Body!.transformToByteArray()),
            contentType: head.ContentType,
            cacheControl: head.CacheControl,
            contentDisposition: head.ContentDisposition,
            metadata: head.Metadata ?? {},
            tags: Object.fromEntries((tagging.TagSet ?? []).map((t) => [t.Key, t.Value])),
            storageClass: head.StorageClass ?? 'STANDARD',
          };
        } catch {
          return undefined;
        }
      },
      async keys() {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: 'out' }));
        return (listed.Contents ?? []).map((o) => o.Key ?? '');
      },
      async close() {
        client.destroy();
        await server.close();
      },
    };
  });
}

externalStoreContract(storeModuleOf('azure'), undefined, async () => {
  const server = await startAzurite();
  const service = BlobServiceClient.fromConnectionString(server.connectionString);
  await service.getContainerClient('out').create();
  return {
    credentials: { connectionString: server.connectionString },
    bucket: 'out',
    region: undefined,
    async readBack(key) {
      const blob = service.getContainerClient('out').getBlobClient(key);
      if (!(await blob.exists())) return undefined;
      const properties = await blob.getProperties();
      return {
        bytes: await blob.downloadToBuffer(),
        contentType: properties.contentType,
        cacheControl: properties.cacheControl,
        contentDisposition: properties.contentDisposition,
        metadata: properties.metadata ?? {},
      };
    },
    async keys() {
      const keys: string[] = [];
      for await (const blob of service.getContainerClient('out').listBlobsFlat()) keys.push(blob.name);
      return keys;
    },
    close: () => server.close(),
  };
});

externalStoreContract(storeModuleOf('gcs'), undefined, async () => {
  const server = await startFakeGcs(['out']);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const serviceAccount = {
    client_email: 'presso-test@example.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    project_id: 'presso-test',
  };
  const reader = new Storage({ apiEndpoint: server.url, projectId: 'presso-test' });
  return {
    credentials: { serviceAccount, apiEndpoint: server.url },
    bucket: 'out',
    region: undefined,
    reportedAcl: 'publicRead',
    async readBack(key) {
      const file = reader.bucket('out').file(key);
      const [exists] = await file.exists();
      if (!exists) return undefined;
      const [metadata] = await file.getMetadata();
      const [bytes] = await file.download();
      return {
        bytes,
        contentType: metadata.contentType,
        cacheControl: metadata.cacheControl,
        contentDisposition: metadata.contentDisposition,
        metadata: (metadata.metadata ?? {}) as Record<string, string>,
        acl: server.objects.get(`out/${key}`)?.predefinedAcl,
      };
    },
    async keys() {
      return [...server.objects.values()].map((o) => o.name);
    },
    close: () => server.close(),
  };
});

test('every store kind of the catalog runs the contract', () => {
  assert.deepEqual([...contractRuns].sort(), [...STORE_KINDS].sort());
});
