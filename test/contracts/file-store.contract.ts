/**
 * Behaviour every FileStore must have (local disk now, S3 later). Source files for `putFile` are
 * real files in a temporary folder; content is compared by SHA-256.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { NotFoundError } from '../../src/errors/catalog.ts';
import type { FileStore } from '../../src/files/file-store.ts';

export interface FileStoreUnderTest {
  store: FileStore;
  /** Removes everything the store wrote. */
  cleanup(): Promise<void>;
}

export type FileStoreFactory = () => Promise<FileStoreUnderTest>;

const BAD_KEYS = [
  '',
  '/abs/key',
  '../escape',
  'a/../../b',
  'a/./b',
  'a//b',
  'a/',
  'nul\0byte',
  'back\\slash',
];

export function fileStoreContract(name: string, factory: FileStoreFactory): void {
  describe(`FileStore contract: ${name}`, () => {
    let subject: FileStoreUnderTest;
    let store: FileStore;
    let scratch: string;
    let counter = 0;
    // A unique root per run so a shared bucket cannot leak state between runs.
    const base = `contract-${process.pid}-${Date.now()}`;
    const key = (suffix: string) => `${base}/${suffix}`;

    /** Writes a scratch file with `bytes` and returns its path. */
    const source = async (bytes: Buffer) => {
      const path = join(scratch, `src-${counter++}`);
      await writeFile(path, bytes);
      return path;
    };

    before(async () => {
      scratch = await mkdtemp(join(tmpdir(), 'presso-fs-contract-'));
      subject = await factory();
      store = subject.store;
    });

    after(async () => {
      await subject.cleanup();
      await rm(scratch, { recursive: true, force: true });
    });

    it('round-trips bytes through putFile, read, stat and downloadTo', async () => {
      const bytes = randomBytes(300_000);
      await store.putFile(key('round/trip.bin'), await source(bytes));
      assert.equal(sha256(await readAll(await store.read(key('round/trip.bin')))), sha256(bytes));
      assert.deepEqual(await store.stat(key('round/trip.bin')), { size: bytes.length });
      const destination = join(scratch, 'downloaded');
      await store.downloadTo(key('round/trip.bin'), destination);
      assert.equal(sha256(await readFile(destination)), sha256(bytes));
    });

    it('stores an empty file', async () => {
      await store.putFile(key('empty'), await source(Buffer.alloc(0)));
      assert.deepEqual(await store.stat(key('empty')), { size: 0 });
      assert.equal((await readAll(await store.read(key('empty')))).length, 0);
    });

    it('reads inclusive byte ranges', async () => {
      const bytes = randomBytes(10_000);
      await store.putFile(key('range.bin'), await source(bytes));
      const cases: Array<[number, number]> = [
        [0, 0],
        [10, 19],
        [0, 9_999],
        [9_995, 9_999],
        [4_096, 8_191],
      ];
      for (const [start, end] of cases) {
        const got = await readAll(await store.read(key('range.bin'), { start, end }));
        assert.deepEqual(got, bytes.subarray(start, end + 1), `range ${start}-${end}`);
      }
      // An end past the file stops at its last byte, as HTTP range semantics do.
      const tail = await readAll(await store.read(key('range.bin'), { start: 9_990, end: 20_000 }));
      assert.deepEqual(tail, bytes.subarray(9_990));
    });

    it('rejects an inverted or negative range', async () => {
      await store.putFile(key('badrange'), await source(Buffer.from('hello')));
      await assert.rejects(store.read(key('badrange'), { start: 3, end: 2 }));
      await assert.rejects(store.read(key('badrange'), { start: -1, end: 2 }));
    });

    it('overwrites an existing key', async () => {
      const first = randomBytes(5_000);
      const second = randomBytes(1_234);
      await store.putFile(key('over/write'), await source(first));
      await store.putFile(key('over/write'), await source(second));
      assert.deepEqual(await store.stat(key('over/write')), { size: second.length });
      assert.equal(sha256(await readAll(await store.read(key('over/write')))), sha256(second));
    });

    it('reports a missing key: stat undefined, read and downloadTo reject with NotFoundError', async () => {
      assert.equal(await store.stat(key('missing/file')), undefined);
      await assert.rejects(store.read(key('missing/file')), NotFoundError);
      await assert.rejects(store.read(key('missing/file'), { start: 0, end: 1 }), NotFoundError);
      await assert.rejects(store.downloadTo(key('missing/file'), join(scratch, 'never')), NotFoundError);
    });

    it('a "folder" of keys is not itself a file', async () => {
      await store.putFile(key('folder/child'), await source(Buffer.from('x')));
      assert.equal(await store.stat(key('folder')), undefined);
      await assert.rejects(store.read(key('folder')), NotFoundError);
    });

    it('deletePrefix removes the subtree and nothing else', async () => {
      const bytes = Buffer.from('payload');
      for (const k of [
        'jobs/1/input',
        'jobs/1/output/a.png',
        'jobs/1/output/deep/b',
        'jobs/10/input',
        'jobs/2/input',
      ]) {
        await store.putFile(key(k), await source(bytes));
      }
      await store.deletePrefix(key('jobs/1/'));
      assert.equal(await store.stat(key('jobs/1/input')), undefined);
      assert.equal(await store.stat(key('jobs/1/output/a.png')), undefined);
      assert.equal(await store.stat(key('jobs/1/output/deep/b')), undefined);
      assert.deepEqual(await store.stat(key('jobs/10/input')), { size: bytes.length });
      assert.deepEqual(await store.stat(key('jobs/2/input')), { size: bytes.length });
      // A key can be written again under a deleted prefix.
      await store.putFile(key('jobs/1/input'), await source(bytes));
      assert.deepEqual(await store.stat(key('jobs/1/input')), { size: bytes.length });
    });

    it('deletePrefix without a trailing slash is a plain string prefix', async () => {
      const bytes = Buffer.from('p');
      for (const k of ['p/ab', 'p/abc/x', 'p/b']) await store.putFile(key(k), await source(bytes));
      await store.deletePrefix(key('p/ab'));
      assert.equal(await store.stat(key('p/ab')), undefined);
      assert.equal(await store.stat(key('p/abc/x')), undefined);
      assert.deepEqual(await store.stat(key('p/b')), { size: 1 });
    });

    it('deletePrefix of nothing resolves', async () => {
      await store.deletePrefix(key('nothing/here/'));
      await store.deletePrefix(key('nothing-at-all'));
    });

    it('rejects invalid keys everywhere', async () => {
      const path = await source(Buffer.from('x'));
      for (const bad of BAD_KEYS) {
        const label = JSON.stringify(bad);
        await assert.rejects(store.putFile(bad, path), TypeError, `putFile ${label}`);
        await assert.rejects(store.read(bad), TypeError, `read ${label}`);
        await assert.rejects(store.stat(bad), TypeError, `stat ${label}`);
        await assert.rejects(store.downloadTo(bad, join(scratch, 'x')), TypeError, `downloadTo ${label}`);
        if (store.capabilities.localPaths) assert.throws(() => store.localPath(bad), TypeError, label);
      }
      for (const bad of ['', '/', '../', '/abs/', 'a/../', 'a//']) {
        await assert.rejects(store.deletePrefix(bad), TypeError, `deletePrefix ${JSON.stringify(bad)}`);
      }
    });

    it('localPath follows the declared capability: the stored bytes, or undefined', async () => {
      if (!store.capabilities.localPaths) {
        assert.equal(store.localPath(key('any')), undefined);
        return;
      }
      const bytes = randomBytes(1_000);
      await store.putFile(key('local/path'), await source(bytes));
      const path = store.localPath(key('local/path'));
      assert.ok(path);
      assert.deepEqual(await readFile(path), bytes);
    });
  });
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
