/**
 * One upload in a child process of its own, so its peak RSS is its own: `presso` writes through the store
 * (src/stores), `sdk` through the provider SDK's plain upload call with its defaults. Prints one JSON line.
 */
import { createReadStream } from 'node:fs';
import { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BlobServiceClient } from '@azure/storage-blob';
import { Storage } from '@google-cloud/storage';
import { compileAllowList } from '../../src/outbound/address-guard.ts';
import { GuardedAgents } from '../../src/outbound/guarded-agents.ts';
import type { StoreKind } from '../../src/stores/catalog.ts';
import { openStore } from '../../src/stores/open-store.ts';

const [way, kind, file, key, settingsJson] = process.argv.slice(2) as [
  string,
  StoreKind,
  string,
  string,
  string,
];
const settings = JSON.parse(settingsJson) as {
  endpoint?: string;
  connectionString?: string;
  apiEndpoint?: string;
  serviceAccount?: unknown;
};
const cpu0 = process.cpuUsage();
const t0 = performance.now();
if (way === 'presso') {
  const store = await openStore(
    kind,
    kind === 's3'
      ? { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', endpoint: settings.endpoint }
      : (settings as Record<string, unknown>),
    // The servers listen on loopback: the guard allows it here, as PRESSO_OUTBOUND_ALLOW would.
    new GuardedAgents(compileAllowList(['127.0.0.0/8']), 10_000),
  );
  await store.write(
    {
      bucket: 'out',
      region: kind === 's3' ? 'us-east-1' : undefined,
      key,
      contentType: 'application/octet-stream',
      acl: undefined,
      storageClass: undefined,
      metadata: {},
      headers: {},
      tags: {},
    },
    file,
  );
} else if (kind === 's3') {
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  await new Upload({ client, params: { Bucket: 'out', Key: key, Body: createReadStream(file) } }).done();
} else if (kind === 'azure') {
  await BlobServiceClient.fromConnectionString(settings.connectionString!)
    .getContainerClient('out')
    .getBlockBlobClient(key)
    .uploadFile(file);
} else {
  await new Storage({ apiEndpoint: settings.apiEndpoint, projectId: 'bench' })
    .bucket('out')
    .upload(file, { destination: key });
}
const cpu = process.cpuUsage(cpu0);
console.log(
  JSON.stringify({
    wallMs: performance.now() - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  }),
);
