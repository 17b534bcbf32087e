/** The S3 file store against the shared FileStore contract, on s3rver (an S3 server started by the test). */
import { after, before } from 'node:test';
import { S3FileStore } from '../../src/files/s3-file-store.ts';
import { fileStoreContract } from '../contracts/file-store.contract.ts';
import { type S3Server, startS3rver } from '../support/store-servers.ts';

let server: S3Server;
before(async () => {
  server = await startS3rver(['presso-files']);
});
after(() => server.close());

fileStoreContract('S3FileStore', async () => {
  const store = new S3FileStore({
    bucket: 'presso-files',
    prefix: 'deployment/',
    client: {
      endpoint: server.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    },
  });
  return { store, cleanup: async () => store.close() };
});
