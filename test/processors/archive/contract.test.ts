/** The archive processor against the Processor contract, with an archive of every detected input format. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { archiveModule } from '../../../src/processors/archive/index.ts';
import { processorContract } from '../../contracts/processor.contract.ts';
import { writeArchives } from './fixtures.ts';

// The contract registers one test per sample, so the samples exist before the suite is declared.
const dir = await mkdtemp(join(tmpdir(), 'presso-archive-contract-'));
after(() => rm(dir, { recursive: true, force: true }));
const samples = writeArchives(dir);
// Each cut at half its length (the tree's photo is small: fixed cuts could fall past the end).
const half = (path: string) => {
  const bytes = readFileSync(path);
  return bytes.subarray(0, bytes.length >> 1);
};
const cut = join(dir, 'cut.zip');
await writeFile(cut, half(samples.zip));
const cutXz = join(dir, 'cut.tar.xz');
await writeFile(cutXz, half(samples['tar.xz']));

processorContract(archiveModule, {
  byFormat: {
    zip: samples.zip,
    '7z': samples['7z'],
    tar: samples.tar,
    gz: samples['tar.gz'],
    bz2: samples.bz2,
    xz: samples.xz,
    zst: samples['tar.zst'],
  },
  corrupt: [cut, cutXz],
  // Deep mode runs the photo's quality search: long enough to be aborted.
  slow: { path: samples.zip, params: { deep: true, compression: 'medium' } },
  async verifyOutput(result) {
    // A single stream is tested by its own compressor; every container is listed by bsdtar.
    const stream = { gz: 'gzip', bz2: 'bzip2', xz: 'xz', zst: 'zstd' }[result.format];
    if (stream !== undefined) execFileSync(stream, ['-t', result.path], { stdio: 'pipe' });
    else execFileSync('bsdtar', ['-tf', result.path], { stdio: 'pipe' });
  },
});
