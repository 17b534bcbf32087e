/** The PDF processor against the Processor contract, with the photo PDF and the forensics text PDF. */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { pdfModule } from '../../../src/processors/pdf/index.ts';
import { processorContract } from '../../contracts/processor.contract.ts';
import { writeHostilePdfs, writePhotoPdf } from './fixtures.ts';

// The contract registers one test per sample, so the samples exist before the suite is declared.
const dir = await mkdtemp(join(tmpdir(), 'presso-pdf-contract-'));
after(() => rm(dir, { recursive: true, force: true }));
const photos = await writePhotoPdf(dir);
const hostile = writeHostilePdfs(dir);

processorContract(pdfModule, {
  byFormat: { pdf: photos },
  corrupt: [hostile.truncated, hostile.loop],
  // The lossy search renders and scores pages for each Ghostscript trial: seconds of work.
  slow: { path: photos, params: { compression: 'medium' } },
  async verifyOutput(result) {
    execFileSync('qpdf', ['--check', result.path], { stdio: 'pipe' });
  },
});
