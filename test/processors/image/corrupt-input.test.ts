/**
 * A corrupt input is refused with a message that says what is wrong and never shows a server path
 * (libvips names the file it read: "/srv/…/work/<job>/input.avif: bad seek to 9079").
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { UnprocessableInputError } from '../../../src/errors/catalog.ts';
import { corpus } from '../../support/corpus.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'presso-corrupt-'));
});
after(async () => {
  await removeWorkDirs();
  await rm(scratch, { recursive: true, force: true });
});

/** Keeps the first 400 bytes (the boxes that say what the file is) and overwrites the rest. */
async function scrambled(path: string): Promise<string> {
  const bytes = await readFile(path);
  const out = `${path}.scrambled${path.slice(path.lastIndexOf('.'))}`;
  await writeFile(out, Buffer.concat([bytes.subarray(0, 400), Buffer.alloc(bytes.length - 400, 0x55)]));
  return out;
}

async function truncated(path: string): Promise<string> {
  const bytes = await readFile(path);
  const out = `${path}.truncated${path.slice(path.lastIndexOf('.'))}`;
  await writeFile(out, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  return out;
}

function refusedWithoutPath(error: unknown): boolean {
  assert.ok(error instanceof UnprocessableInputError, String(error));
  assert.match(error.message, /corrupt|could not process/);
  assert.ok(!error.message.includes(tmpdir()), `no work directory in: ${error.message}`);
  assert.doesNotMatch(error.message, /(^|[\s:'"(=])\//, `no absolute path in: ${error.message}`);
  return true;
}

describe('image processor: corrupt HEIC and AVIF', () => {
  it('names no server path for a corrupt AVIF', async () => {
    const avif = join(scratch, 'photo.avif');
    await sharp(corpus.chelsea).avif().toFile(avif);
    await assert.rejects(runImage(await truncated(avif), { format: 'png' }), refusedWithoutPath);
    await assert.rejects(runImage(await scrambled(avif), { format: 'png' }), refusedWithoutPath);
  });

  it('names no server path for a corrupt HEVC HEIC', async () => {
    const jpeg = join(scratch, 'photo.jpg');
    await sharp(corpus.chelsea).jpeg().toFile(jpeg);
    const heic = join(scratch, 'photo.heic');
    execFileSync('heif-enc', ['-q', '60', jpeg, '-o', heic]);
    await assert.rejects(runImage(await truncated(heic), { format: 'png' }), refusedWithoutPath);
    await assert.rejects(runImage(await scrambled(heic), { format: 'png' }), refusedWithoutPath);
  });
});
