/**
 * `convertAll`: the documents of one job converted by a single LibreOffice start (the re-open check of a
 * re-packed document lays out the original and the re-packed one so, one start instead of two). Each output
 * is its own document's (page counts differ), a document LibreOffice cannot open is undefined without
 * losing the others, and only one profile (one start) is made in the job's folder.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { convertAll, type OfficeRun } from '../../../src/processors/document/libreoffice.ts';
import { writeZip } from '../../../src/processors/document/zip.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { docx } from '../../security/office-link-documents.ts';
import { useScratch } from '../../support/scratch.ts';
import { scaledMs } from '../../support/time-scale.ts';

const scratch = useScratch('presso-convert-all-');

const pageBreak = '<w:p><w:r><w:br w:type="page"/></w:r><w:r><w:t>Next page.</w:t></w:r></w:p>';

function folders(dir: string, name: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name === name)
    .map((entry) => join(entry.parentPath, entry.name));
}

test('several documents, one LibreOffice start: each its own PDF, an unreadable one undefined', async () => {
  const dir = scratch();
  const paths = {
    one: join(dir, 'one.docx'),
    three: join(dir, 'three.docx'),
    broken: join(dir, 'broken.docx'),
  };
  writeFileSync(paths.one, docx('', ''));
  writeFileSync(paths.three, docx(pageBreak + pageBreak, ''));
  // A well-formed ZIP (it passes the processor's own reader) without a Word document in it: LibreOffice
  // cannot load it, and goes on to the next file of the same start.
  writeFileSync(
    paths.broken,
    writeZip([{ name: 'notes.txt', data: Buffer.from('no document'), time: 0, date: 33 }]),
  );
  const workDir = join(dir, 'job');
  mkdirSync(workDir);
  const run: OfficeRun = {
    deadline: new Deadline(scaledMs(120_000), 'the document'),
    signal: new AbortController().signal,
    workDir,
    jobDir: workDir,
    inputs: Object.values(paths),
    memoryBytes: 2 * 1024 ** 3,
    zip: { maxEntries: 1000, maxUnzippedBytes: 1e8 },
  };
  const [one, broken, three] = await convertAll([paths.one, paths.broken, paths.three], 'docx', 'pdf', run);
  const pages = (pdf: string | undefined) =>
    Number(/^Pages:\s+(\d+)/m.exec(execFileSync('pdfinfo', [pdf!], { encoding: 'utf8' }))?.[1]);
  assert.deepEqual([pages(one), broken, pages(three)], [1, undefined, 3]);
  assert.equal(folders(workDir, 'profile').length, 1, 'one LibreOffice start');
});
