/**
 * The same request on the same input gives the same bytes, however busy the machine is. The quality
 * search used to stop after 4 s of wall time, so a loaded machine tried fewer qualities and kept a larger
 * output (a 22 % larger WebP in an outside audit). Here each output is produced once on a quiet machine
 * and once with both cores saturated by busy-looping processes, and the bytes must be identical.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { corpus } from '../../support/corpus.ts';
import { useScratch } from '../../support/scratch.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

const scratch = useScratch('presso-determinism-');
after(removeWorkDirs);

/** One busy-looping process per core (plus one), stopped by the returned function. */
function loadTheMachine(): () => void {
  const spinners: ChildProcess[] = [];
  for (let i = 0; i <= availableParallelism(); i++) {
    spinners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
  return () => {
    for (const spinner of spinners) spinner.kill('SIGKILL');
  };
}

async function digest(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

describe('image processor: deterministic output', () => {
  it('gives identical bytes for identical requests, on a quiet and on a saturated machine', async () => {
    // A small real photo keeps the test quick; the search runs its full course of trials on it. 160 px wide:
    // the busy loops burn both cores for as long as the loaded encodes take, so every pixel costs ~3 times
    // (the four requests took 1.3 CPU-s here, at 256 px 2.7).
    const input = join(scratch(), 'photo.jpg');
    await sharp(corpus.canonPhoto).resize(160).jpeg({ quality: 95 }).toFile(input);
    const requests = [
      { format: 'jpeg', compression: 'high' },
      { format: 'webp', compression: 'medium' },
      { format: 'avif', compression: 'ultra' },
      { format: 'png', compression: 'high' },
    ];
    const quiet: string[] = [];
    for (const image of requests) quiet.push(await digest((await runImage(input, image)).path));
    const stop = loadTheMachine();
    try {
      for (const [i, image] of requests.entries()) {
        const loaded = await digest((await runImage(input, image)).path);
        assert.equal(loaded, quiet[i], `${image.format} at ${image.compression} changed under load`);
      }
    } finally {
      stop();
    }
  });
});
