/**
 * The document processor against the Processor contract, with one real file per input format made by
 * LibreOffice (fixtures.ts). The LibreOffice re-open check is off here (document.test.ts covers it) so the
 * suite stays within a few seconds of CPU per format.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { documentModule } from '../../../src/processors/document/index.ts';
import { readZip } from '../../../src/processors/document/zip.ts';
import { processorContract } from '../../contracts/processor.contract.ts';
import { makeOfficeSamples } from './fixtures.ts';

// The contract registers one test per sample, so the samples exist before the suite is declared.
const dir = await mkdtemp(join(tmpdir(), 'presso-document-contract-'));
after(() => rm(dir, { recursive: true, force: true }));
const samples = makeOfficeSamples(dir, [
  'docx',
  'odt',
  'rtf',
  'xlsx',
  'ods',
  'pptx',
  'odp',
  'doc',
  'xls',
  'ppt',
]);
const cut = join(dir, 'cut.docx');
const docx = readFileSync(samples.docx!);
await writeFile(cut, docx.subarray(0, Math.floor(docx.length * 0.7)));

processorContract(
  documentModule,
  {
    byFormat: samples as Record<string, string>,
    corrupt: [cut],
    // The photo inside goes through the image processor's quality search: seconds of work.
    slow: { path: samples.docx!, params: { compression: 'medium' } },
    async verifyOutput(result) {
      if (!['docx', 'xlsx', 'pptx', 'odt', 'ods', 'odp'].includes(result.format)) return;
      // Every part inflates and passes its checksum; unzip agrees independently.
      readZip(readFileSync(result.path), { maxEntries: 10_000, maxUnzippedBytes: 1e9 });
      execFileSync('unzip', ['-tq', result.path], { stdio: 'pipe' });
    },
  },
  { PRESSO_DOCUMENT_VERIFY: 'false' },
);
