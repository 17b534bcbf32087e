/**
 * "Out of space" is recognised from the errors the real writers throw on a really full filesystem
 * (fs streams, SQLite, sharp), also when wrapped, and nothing else is mistaken for it.
 */
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import {
  InsufficientStorageError,
  UnprocessableInputError,
  UpstreamError,
  ValidationError,
} from '../../src/errors/catalog.ts';
import { isStorageFull, storageErrorOr } from '../../src/errors/storage-full.ts';
import { openDatabase } from '../../src/persistence/sqlite/database.ts';
import { mountSmallFs, type SmallFs } from '../support/small-fs.ts';

async function caught(work: () => Promise<unknown> | unknown): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the write to fail');
}

describe('isStorageFull', () => {
  let fs: SmallFs;
  before(async () => {
    fs = await mountSmallFs(4);
  });
  after(() => fs.unmount());

  test('recognises a full disk from a stream, SQLite and sharp, wrapped or not', async () => {
    const db = openDatabase(join(fs.dir, 'full.db'));
    await fs.fill();
    try {
      const stream = await caught(() =>
        pipeline(
          async function* () {
            yield Buffer.alloc(64 * 1024);
          },
          createWriteStream(join(fs.dir, 'upload')),
        ),
      );
      assert.equal((stream as NodeJS.ErrnoException).code, 'ENOSPC');
      const sqlite = await caught(() =>
        db.prepare(`INSERT INTO queue (job_id, state, available_at) VALUES ('x', 'waiting', 0)`).run(),
      );
      const image = await caught(() =>
        sharp({ create: { width: 256, height: 256, channels: 3, background: '#08f' } })
          .png()
          .toFile(join(fs.dir, 'out.png')),
      );
      for (const error of [stream, sqlite, image]) {
        assert.ok(isStorageFull(error), String(error));
        assert.ok(isStorageFull(new UpstreamError('The source could not be fetched.', error)));
        assert.ok(isStorageFull(new UnprocessableInputError('The image could not be written.', error)));
        const mapped = storageErrorOr(error);
        assert.ok(mapped instanceof InsufficientStorageError);
        assert.equal(mapped.statusCode, 507);
        assert.equal(mapped.cause, error);
      }
    } finally {
      await fs.free();
      db.close();
    }
  });

  test('leaves every other error alone', () => {
    const others = [
      Object.assign(new Error('permission denied'), { code: 'EACCES' }),
      Object.assign(new Error('database is locked'), { code: 'ERR_SQLITE_ERROR', errcode: 5 }),
      ValidationError.field('url', 'is required'),
      new UpstreamError('The source answered 507 Insufficient Storage.'),
      'a string',
      undefined,
    ];
    for (const error of others) {
      assert.equal(isStorageFull(error), false, String(error));
      assert.equal(storageErrorOr(error), error);
    }
  });
});
