import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalFileStore } from '../../src/files/local-file-store.ts';
import { fileStoreContract, readAll, sha256 } from '../contracts/file-store.contract.ts';

fileStoreContract('LocalFileStore', async () => {
  const root = await mkdtemp(join(tmpdir(), 'presso-local-store-'));
  return { store: new LocalFileStore(root), cleanup: () => rm(root, { recursive: true, force: true }) };
});

describe('LocalFileStore', () => {
  let root: string;
  let scratch: string;
  let store: LocalFileStore;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'presso-local-root-'));
    scratch = await mkdtemp(join(tmpdir(), 'presso-local-src-'));
    store = new LocalFileStore(root);
  });

  after(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  it('maps keys to paths under the root and moves the source', async () => {
    const source = join(scratch, 'move-me');
    await writeFile(source, 'abc');
    await store.putFile('jobs/x/input', source);
    assert.equal(store.localPath('jobs/x/input'), join(root, 'jobs', 'x', 'input'));
    assert.equal(existsSync(source), false, 'a same-filesystem put is a move');
    assert.deepEqual(await readdir(join(root, 'jobs', 'x')), ['input'], 'no temporary files left');
  });

  it('a reader of the old file keeps its bytes while the key is overwritten', async () => {
    const first = randomBytes(2 * 1024 * 1024);
    const second = randomBytes(1024);
    await writeFile(join(scratch, 'first'), first);
    await writeFile(join(scratch, 'second'), second);
    await store.putFile('swap/file', join(scratch, 'first'));
    const reading = await store.read('swap/file');
    await store.putFile('swap/file', join(scratch, 'second'));
    // rename(2) swaps the directory entry; the open file still has every old byte.
    assert.equal(sha256(await readAll(reading)), sha256(first));
    assert.equal(sha256(await readAll(await store.read('swap/file'))), sha256(second));
  });

  it('a failed put leaves nothing under the key', async () => {
    await assert.rejects(store.putFile('failed/put', join(scratch, 'does-not-exist')), { code: 'ENOENT' });
    assert.equal(await store.stat('failed/put'), undefined);
  });

  it('copies across filesystems (EXDEV) and then removes the source', async () => {
    // /dev/shm is its own tmpfs on Linux; if TMPDIR puts the root there too, the repository's disk is the other.
    const rootDevice = (await stat(root)).dev;
    const candidates = ['/dev/shm', process.cwd()].filter((dir) => existsSync(dir));
    const devices = await Promise.all(candidates.map(async (dir) => (await stat(dir)).dev));
    const otherFs = candidates.find((_, i) => devices[i] !== rootDevice);
    assert.ok(otherFs !== undefined, `no directory on another filesystem than ${root} to test EXDEV with`);
    const dir = await mkdtemp(join(otherFs, '.presso-exdev-'));
    try {
      const bytes = randomBytes(500_000);
      const source = join(dir, 'input');
      await writeFile(source, bytes);
      await store.putFile('cross/device/file', source);
      assert.equal(existsSync(source), false);
      assert.equal(sha256(await readAll(await store.read('cross/device/file'))), sha256(bytes));
      assert.deepEqual(await readdir(join(root, 'cross', 'device')), ['file'], 'no temporary files left');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a range read stream can be abandoned without leaking the file handle', async () => {
    await writeFile(join(scratch, 'big'), randomBytes(1024 * 1024));
    await store.putFile('abandon/me', join(scratch, 'big'));
    const stream = await store.read('abandon/me', { start: 0, end: 1024 * 1024 - 1 });
    const closed = new Promise((resolve) => stream.once('close', resolve));
    stream.destroy();
    await closed;
  });
});
