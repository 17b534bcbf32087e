/** The bundle processor against the Processor contract, with the small test site. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { bundleModule } from '../../../src/processors/bundle/index.ts';
import { processorContract } from '../../contracts/processor.contract.ts';
import { writeSite } from './site.ts';

// The contract registers one test per sample, so the samples exist before the suite is declared.
const dir = await mkdtemp(join(tmpdir(), 'presso-bundle-contract-'));
after(() => rm(dir, { recursive: true, force: true }));
const { zip } = await writeSite(dir);
const cut = join(dir, 'cut.zip');
await writeFile(cut, readFileSync(zip).subarray(0, 30_000));

processorContract(bundleModule, {
  byFormat: { bundle: zip },
  corrupt: [cut],
  // Every picture of the site goes through the image search: long enough to be aborted.
  slow: { path: zip, params: { compression: 'medium', images: { format: 'avif' } } },
  async verifyOutput(result) {
    execFileSync('unzip', ['-tq', result.path], { stdio: 'pipe' });
  },
});
