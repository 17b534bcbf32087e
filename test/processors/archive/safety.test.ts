/**
 * Archive bombs and escapes, each refused with a 422 that says why, before anything is unpacked: a gzip
 * stream of 100 MB of zeros under a 64 MiB budget, a ZIP with a ratio of 1000, overlapping ZIP entries, a
 * `..` path, a symlink to /etc/passwd, a device node, and archives nested deeper than the limit in deep mode.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { createArchiveProcessor } from '../../../src/processors/archive/archive-processor.ts';
import { escapes } from '../../../src/processors/archive-tools/safety.ts';
import { runProcessor } from '../../support/media.ts';
import { useScratch } from '../../support/scratch.ts';
import { writeBombs, writeEscapes, writeOverlappingZip } from './fixtures.ts';

const scratch = useScratch('presso-archive-safety-');
const archives = createArchiveProcessor(() => undefined, { maxUnpackedBytes: 64 * 1024 ** 2 });

async function assertRefused(
  path: string,
  params: Record<string, unknown>,
  why: RegExp,
  processor = archives,
) {
  await assert.rejects(runProcessor(processor, path, params), (error: unknown) => {
    assert.ok(error instanceof PressoError, String(error));
    assert.equal(error.statusCode, 422);
    assert.match(error.message, why);
    return true;
  });
}

test('bombs are refused before unpacking: a gzip stream past the budget, a ZIP of ratio 1000', async () => {
  const bombs = writeBombs(scratch());
  await assertRefused(bombs.gzip, {}, /decompresses to more than the limit/);
  await assertRefused(bombs.zip, {}, /unpacks to \d+ bytes, more than the limit/);
  const generous = createArchiveProcessor(() => undefined);
  await assertRefused(bombs.zip, {}, /unpacks to 1\d{3} times its size \(limit 200\)/, generous);
});

test('more members than the limit are refused from the listing', async () => {
  const dir = join(scratch(), 'many');
  mkdirSync(dir);
  execFileSync('bash', ['-c', 'for i in 1 2 3 4 5; do echo $i > f$i.txt; done && zip -q many.zip f*.txt'], {
    cwd: dir,
  });
  const few = createArchiveProcessor(() => undefined, { maxMembers: 4 });
  await assertRefused(join(dir, 'many.zip'), {}, /it has 5 members, more than the limit of 4/, few);
});

test('a hard link to a path outside the folder is refused', async () => {
  const dir = join(scratch(), 'hardlink');
  mkdirSync(dir);
  execFileSync(
    'bash',
    [
      '-c',
      "echo x > a.txt && ln a.txt b.txt && bsdtar -cf link.tar -P -s ',^a.txt$,../../outside.txt,' a.txt b.txt",
    ],
    { cwd: dir },
  );
  await assertRefused(join(dir, 'link.tar'), {}, /outside the archive's folder/);
});

test('overlapping ZIP entries (members sharing compressed data) are refused', async () => {
  await assertRefused(writeOverlappingZip(scratch()), {}, /overlapping-entry archive bomb/);
});

test('members that would escape the folder are refused, and nothing is written outside it', async () => {
  const dir = join(scratch(), 'escapes');
  mkdirSync(dir);
  const hostile = writeEscapes(dir);
  await assertRefused(hostile.dotdot, { format: 'zip' }, /"..\/..\/escaped.txt" would be written outside/);
  await assertRefused(hostile.absoluteLink, { deep: true }, /"passwd-link" links outside/);
  await assertRefused(hostile.device, {}, /"\.\/null" is a device or pipe/);
  assert.equal(existsSync(join(scratch(), 'escaped.txt')), false);
  assert.equal(existsSync(join(dir, '..', '..', 'escaped.txt')), false);
});

test('deep mode refuses archives nested deeper than the limit (42.zip-style)', async () => {
  const dir = join(scratch(), 'nested');
  mkdirSync(dir);
  execFileSync(
    'bash',
    [
      '-c',
      'echo inner > a.txt && zip -q l3.zip a.txt && zip -q l2.zip l3.zip && zip -q l1.zip l2.zip && zip -q l0.zip l1.zip',
    ],
    { cwd: dir },
  );
  const shallow = createArchiveProcessor(() => undefined, { maxDepth: 2 });
  await assertRefused(join(dir, 'l0.zip'), { deep: true }, /nested more than 2 levels/, shallow);
  // Without deep mode nothing inside is opened: the same archive is simply re-packed.
  const plain = await runProcessor(shallow, join(dir, 'l0.zip'), {});
  execFileSync('unzip', ['-tq', plain.path]);
  const deepEnough = await runProcessor(
    createArchiveProcessor(() => undefined, { maxDepth: 3 }),
    join(dir, 'l0.zip'),
    { deep: true },
  );
  execFileSync('unzip', ['-tq', deepEnough.path]);
  assert.ok(readdirSync(dir).includes('l0.zip'));
});

test('escape rules: absolute, drive-qualified, climbing and NUL paths escape; inner `..` does not', () => {
  for (const path of ['/etc/passwd', 'C:/x', '../a', 'a/../../b', 'a\\..\\..\\b', 'a\0b'])
    assert.equal(escapes(path), true, path);
  for (const path of ['a', 'a/b/../c', './a', 'a..b/c']) assert.equal(escapes(path), false, path);
});
