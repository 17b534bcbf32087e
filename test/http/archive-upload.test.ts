/**
 * Archives through POST /1.0/upload with the real archive processor (app.inject): a deep ZIP comes back
 * smaller with its names, a converted archive is named after its new format, bombs and escapes are 422
 * with the reason and the server keeps serving, and a bad `archive` parameter is 422 on its field.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createArchiveProcessor } from '../../src/processors/archive/archive-processor.ts';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { assertErrorBody, type CompletedResult, download } from '../api/helpers.ts';
import { writeArchives, writeBombs, writeEscapes } from '../processors/archive/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

describe('POST /1.0/upload: an archive', () => {
  let presso: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'presso-archive-upload-'));
  const samples = writeArchives(dir);
  before(async () => {
    const images = createImageProcessor();
    presso = await buildTestApp({
      processors: [images, createArchiveProcessor((kind) => (kind === 'image' ? images : undefined))],
    });
  });
  after(async () => {
    await presso?.close();
    execFileSync('rm', ['-rf', dir]);
  });

  test('deep ZIP: smaller, every name kept, readable by unzip', async () => {
    const response = await presso.upload(samples.zip, { archive: { deep: true }, metadata: true });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult & { metadata?: { files: number } };
    assert.equal(result.input.format, 'zip');
    assert.equal(result.output.format, 'zip');
    assert.ok(result.output.size < result.input.size * 0.8, `${result.output.size} of ${result.input.size}`);
    assert.equal(result.metadata?.files, 4);
    const path = join(dir, 'out.zip');
    writeFileSync(path, await download(presso, result));
    execFileSync('unzip', ['-tq', path]);
    const names = execFileSync('unzip', ['-Z1', path]).toString().split('\n').filter(Boolean).sort();
    assert.deepEqual(names, [
      'docs/',
      'docs/photo.png',
      'docs/private.txt',
      'docs/readme.md',
      'link-to-notes',
      'notes.txt',
    ]);
  });

  test('a tar.gz converted to tar.xz is named .tar.xz', async () => {
    const response = await presso.upload(samples['tar.gz'], { archive: { format: 'tar.xz' } });
    assert.equal(response.status, 200);
    const result = (await response.json()) as CompletedResult;
    assert.equal(result.output.format, 'tar.xz');
    assert.match(result.output.name, /^tree\.tar\.xz$/);
    const path = join(dir, 'out.tar.xz');
    writeFileSync(path, await download(presso, result));
    execFileSync('tar', ['-tJf', path]);
  });

  test('a bomb and an escaping member are 422 with the reason; the server keeps serving, its memory bounded', async () => {
    const bombs = writeBombs(dir);
    const rssBefore = process.memoryUsage().rss;
    const bomb = await assertErrorBody(await presso.upload(bombs.zip, {}), 422);
    assert.match(String(bomb.message), /refused before unpacking: it unpacks to 1\d{3} times its size/);
    const escapes = writeEscapes(dir);
    const escaped = await assertErrorBody(await presso.upload(escapes.dotdot, {}), 422);
    assert.match(String(escaped.message), /would be written outside the archive's folder/);
    const next = await presso.upload(samples.tar, {});
    assert.equal(next.status, 200);
    // The 100 MB bombs were refused from their listings (and by child processes' file-size limits): the
    // service's own memory did not take them in.
    const grown = process.memoryUsage().rss - rssBefore;
    assert.ok(grown < 64 * 1024 ** 2, `RSS grew by ${Math.round(grown / 1024 ** 2)} MB`);
  });

  test('bad archive parameters are 422 on their fields', async () => {
    const body = await assertErrorBody(
      await presso.upload(samples.zip, { archive: { format: 'rar', deep: 'yes' } }),
      422,
    );
    const fields = (body.errors as Array<{ field: string }>).map((e) => e.field).sort();
    assert.deepEqual(fields, ['archive.deep', 'archive.format']);
  });
});
