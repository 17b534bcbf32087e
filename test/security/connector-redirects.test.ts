/**
 * Redirects do not take a connector's store past the address guard, through the API: an allowed server
 * (127.0.0.2, the only address the allow-list opens) answers every request of every kind with 301, 302, 303,
 * 307 or 308 to loopback, and the answer is a 422 with no connection at the trap. A GCS resumable upload session
 * on another origin is refused even where the guard would allow its address.
 */
import assert from 'node:assert/strict';
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
import {
  AZURE_KEYED,
  type Counter,
  type Hostile,
  S3_KEYS,
  SERVICE_ACCOUNT,
  startTrap,
} from './connector-traps.ts';

const keyed = AZURE_KEYED;

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
    const store = await openStore(
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
