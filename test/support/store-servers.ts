/**
 * The object-store servers the store tests run against, started by the tests: s3rver for the S3 family
 * (S3, R2, B2 and Spaces presets point their endpoint at it), Azurite for Azure Blob Storage, and the fake
 * JSON-API server (fake-gcs.ts) for Google Cloud Storage.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import S3rver from 's3rver';
import { freePort } from './ports.ts';
import { until } from './until.ts';

export interface S3Server {
  endpoint: string;
  close(): Promise<void>;
}

export async function startS3rver(buckets: string[]): Promise<S3Server> {
  const directory = mkdtempSync(join(tmpdir(), 'presso-s3rver-'));
  const port = await freePort();
  const server = new S3rver({
    address: '127.0.0.1',
    port,
    directory,
    silent: true,
    configureBuckets: buckets.map((name) => ({ name })),
  });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Azurite's well-known development account (public in Azure's docs). */
export const AZURITE_ACCOUNT = {
  name: 'devstoreaccount1',
  key: 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==',
};

export interface AzuriteServer {
  connectionString: string;
  close(): Promise<void>;
}

export async function startAzurite(): Promise<AzuriteServer> {
  const port = await freePort();
  const bin = resolve(import.meta.dirname, '../../node_modules/.bin/azurite-blob');
  const child: ChildProcess = spawn(
    bin,
    [
      '--blobHost',
      '127.0.0.1',
      '--blobPort',
      String(port),
      '--inMemoryPersistence',
      '--disableTelemetry',
      '--skipApiVersionCheck',
      '--silent',
      '--loose',
    ],
    { stdio: 'ignore' },
  );
  await until(
    () =>
      new Promise<boolean>((ok) => {
        const socket = net.connect(port, '127.0.0.1', () => {
          socket.end();
          ok(true);
        });
        socket.on('error', () => ok(false));
      }),
    'Azurite listening',
  );
  return {
    connectionString:
      `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT.name};AccountKey=${AZURITE_ACCOUNT.key};` +
      `BlobEndpoint=http://127.0.0.1:${port}/${AZURITE_ACCOUNT.name};`,
    close: () =>
      new Promise((ok) => {
        child.once('exit', () => ok());
        child.kill('SIGTERM');
      }),
  };
}
