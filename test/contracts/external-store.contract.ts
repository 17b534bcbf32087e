/**
 * Behaviour every ExternalStore must have, against a real protocol server: a write lands the exact bytes
 * (SHA-1) with the content type, cache headers and metadata (and tags and class where the kind has them),
 * a file larger than one part streams as a multipart/block/resumable upload, the URL names the object, the
 * probe writes and removes its object, and a missing bucket fails with a StoreError that says so.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { compileAllowList } from '../../src/outbound/address-guard.ts';
import { GuardedAgents } from '../../src/outbound/guarded-agents.ts';
import { type ExternalStore, StoreError, type StoreTarget } from '../../src/stores/external-store.ts';
import type { StoreModule } from '../../src/stores/store-module.ts';
import { compile } from '../../src/validation/schema-validator.ts';
import { useScratch } from '../support/scratch.ts';

export interface StoredObject {
  bytes: Buffer;
  contentType: string | undefined;
  cacheControl: string | undefined;
  contentDisposition: string | undefined;
  metadata: Record<string, string>;
  tags?: Record<string, string>;
  storageClass?: string;
  /** The ACL the server recorded, where it reports one (the GCS test server; s3rver and Azurite do not). */
  acl?: string;
}

/** A real protocol server of the kind's API, and what to open the kind's store on it with. */
export interface StoreServer {
  /** A connector's credentials for this server (they must pass the module's credential schema). */
  credentials: Record<string, unknown>;
  bucket: string;
  region: string | undefined;
  /** Reads the object back with the provider's own SDK; undefined when it does not exist. */
  readBack(key: string): Promise<StoredObject | undefined>;
  /** Keys currently in the bucket (to see that the probe cleaned up). */
  keys(): Promise<string[]>;
  /** The value to write and expect back, where the server reports the ACL it got. */
  reportedAcl?: string;
}

/** What the suite works with: the store opened by the module, and what its rules say it can hold. */
interface StoreUnderTest extends StoreServer {
  store: ExternalStore;
  capabilities: { tags: boolean; storageClass: boolean; acl?: string };
}

/** The stores connect through guarded agents that allow loopback, where the test servers listen. */
const loopbackAgents = () => new GuardedAgents(compileAllowList(['127.0.0.0/8']), 10_000);

/** The kinds (and variants) the suite ran against, for the check that every kind of the catalog has. */
export const contractRuns = new Set<string>();

const sha1 = (bytes: Buffer) => createHash('sha1').update(bytes).digest('hex');

/**
 * Runs the suite on the store a kind's module opens (`variant` names a second credential form, such as GCS's
 * HMAC keys through the S3 store). The tags and storage class it checks are the ones the module's rules allow.
 */
export function externalStoreContract(
  module: StoreModule,
  variant: string | undefined,
  setup: () => Promise<StoreServer & { close(): Promise<void> }>,
): void {
  const name = variant ?? module.kind;
  contractRuns.add(module.kind);
  describe(`ExternalStore contract: ${name}`, () => {
    const scratch = useScratch(`presso-store-${name}-`);
    let subject: (StoreUnderTest & { close(): Promise<void> }) | undefined;
    const get = async () => {
      if (subject === undefined) {
        const server = await setup();
        const store = await module.open(server.credentials, loopbackAgents());
        const { tags, classes } = module.rules;
        const capabilities = {
          tags,
          storageClass: classes !== undefined,
          ...(server.reportedAcl === undefined ? {} : { acl: server.reportedAcl }),
        };
        subject = { ...server, store, capabilities };
      }
      return subject;
    };

    it("takes credentials its module's schema accepts, and opens a store of its kind", async () => {
      const s = await get();
      const validate = compile(module.credentials);
      assert.ok(validate(s.credentials), JSON.stringify(validate.errors));
      assert.equal(s.store.kind, module.kind);
      if (module.rules.region === 'required') assert.ok(s.region !== undefined, 'the kind needs a region');
    });
    const target = (s: StoreUnderTest, key: string, extra: Partial<StoreTarget> = {}): StoreTarget => ({
      bucket: s.bucket,
      region: s.region,
      key,
      contentType: 'image/webp',
      acl: undefined,
      storageClass: undefined,
      metadata: {},
      headers: {},
      tags: {},
      ...extra,
    });

    it('writes the exact bytes with content type, headers and metadata, and returns the object URL', async () => {
      const s = await get();
      const file = join(scratch(), 'small.webp');
      writeFileSync(file, randomBytes(50_000));
      const { url } = await s.store.write(
        target(s, 'exports/photo one.webp', {
          metadata: { origin: 'presso-test' },
          headers: {
            'Cache-Control': 'max-age=3600',
            'Content-Disposition': 'inline; filename="photo.webp"',
          },
          ...(s.capabilities.tags ? { tags: { project: 'alpha' } } : {}),
          ...(s.capabilities.storageClass ? { storageClass: 'STANDARD_IA' } : {}),
          ...(s.capabilities.acl === undefined ? {} : { acl: s.capabilities.acl }),
        }),
        file,
      );
      assert.match(url, new RegExp(`${s.bucket}.*exports/photo%20one\\.webp$`));
      const stored = await s.readBack('exports/photo one.webp');
      assert.ok(stored, 'object exists');
      assert.equal(sha1(stored.bytes), sha1(readFileSync(file)));
      assert.equal(stored.contentType, 'image/webp');
      assert.equal(stored.cacheControl, 'max-age=3600');
      assert.equal(stored.contentDisposition, 'inline; filename="photo.webp"');
      assert.equal(stored.metadata.origin, 'presso-test');
      if (s.capabilities.tags) assert.deepEqual(stored.tags, { project: 'alpha' });
      if (s.capabilities.storageClass) assert.equal(stored.storageClass, 'STANDARD_IA');
      if (s.capabilities.acl !== undefined) assert.equal(stored.acl, s.capabilities.acl);
    });

    it('streams a file larger than one part (multipart, blocks or resumable chunks)', async () => {
      const s = await get();
      const file = join(scratch(), 'large.bin');
      writeFileSync(file, randomBytes(20 * 1024 * 1024 + 12345));
      await s.store.write(target(s, 'large.bin', { contentType: 'application/octet-stream' }), file);
      const stored = await s.readBack('large.bin');
      assert.equal(stored?.bytes.length, 20 * 1024 * 1024 + 12345);
      assert.equal(sha1(stored!.bytes), sha1(readFileSync(file)));
    });

    it('probes a bucket by writing and deleting an object, and leaves nothing behind', async () => {
      const s = await get();
      const before = await s.keys();
      await s.store.probe(s.bucket, s.region);
      assert.deepEqual((await s.keys()).sort(), before.sort());
    });

    it('fails on a missing bucket with a StoreError naming the store and the reason', async () => {
      const s = await get();
      const file = join(scratch(), 'tiny.txt');
      writeFileSync(file, 'x');
      for (const attempt of [
        () => s.store.probe('no-such-bucket-presso', s.region),
        () => s.store.write({ ...target(s, 'x.txt'), bucket: 'no-such-bucket-presso' }, file),
      ]) {
        await assert.rejects(attempt(), (error: unknown) => {
          assert.ok(error instanceof StoreError, String(error));
          assert.equal(error.reason, 'bucket');
          assert.match(error.message, /store has no such bucket/);
          return true;
        });
      }
    });

    it('closes its server', async () => {
      await subject?.close();
    });
  });
}
