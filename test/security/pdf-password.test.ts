/**
 * Issue 21, finding 7 (the PDF part): `pdf.password` never appears on a tool's command line, where any
 * process on the host reads it (`/proc/<pid>/cmdline`), nor in a file of the job's folder while its tools
 * run. Every process the server starts is recorded, whole command line (prlimit, bubblewrap and the tool),
 * as the tool runner and Node announce them (test/support/spawn-watch.ts), and at each start the job folders are searched for the
 * password; an encrypted PDF with a random password goes through the API at a lossy level with metadata, so
 * every tool runs. Before, the password sat in `<job>/password` until the job ended.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { createPdfProcessor } from '../../src/processors/pdf/pdf-processor.ts';
import { type CompletedResult, download } from '../api/helpers.ts';
import { pdfFacts, samples } from '../processors/pdf/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';
import { type SpawnWatch, watchSpawns } from '../support/spawn-watch.ts';

/** The files under `dir` whose bytes hold `needle` (no link followed). */
function filesHolding(dir: string, needle: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    if (readFileSync(path).includes(needle)) found.push(path);
  }
  return found;
}

describe('pdf.password reaches no command line and no file (issue 21, finding 7)', () => {
  let presso: TestApp;
  const password = `pw-${randomUUID()}`;
  const calls: string[][] = [];
  const found: string[] = [];
  let spawns: SpawnWatch | undefined;
  const record = (argv: string[]) => {
    calls.push(argv);
    found.push(...filesHolding(join(presso.dataDir, 'work'), password));
  };
  before(async () => {
    presso = await buildTestApp({ processors: [createPdfProcessor({ images: createImageProcessor() })] });
  });
  after(async () => {
    spawns?.stop();
    await presso?.close();
  });

  test('an encrypted PDF is processed with every tool, none seeing the password in its arguments or folder', async () => {
    const encrypted = join(presso.dataDir, 'encrypted.pdf');
    // The test's own call (execFileSync) is not traced: only the server's processes are recorded.
    execFileSync('qpdf', ['--encrypt', password, `${password}-owner`, '256', '--', samples.text, encrypted]);
    spawns = watchSpawns(record);
    const response = await presso.upload(
      readFileSync(encrypted),
      { pdf: { compression: 'high', password }, metadata: true },
      undefined,
      'encrypted.pdf',
    );
    const result = (await response.json()) as CompletedResult & { message?: string };
    assert.equal(response.status, 200, result.message);
    const output = join(presso.dataDir, 'output.pdf');
    writeFileSync(output, await download(presso, result));
    assert.equal(pdfFacts(output).text, pdfFacts(samples.text).text);

    const ran = new Set(calls.flatMap((argv) => argv.map((arg) => basename(arg))));
    for (const tool of ['qpdf', 'gs', 'pdfinfo', 'pdftoppm', 'pdffonts'])
      assert.ok(ran.has(tool), `${tool} never ran`);
    const exposed = calls.filter((argv) => argv.some((arg) => arg.includes(password)));
    assert.deepEqual(exposed, [], 'a command line holds the password');
    assert.deepEqual(found, [], 'a file in the job folder holds the password while tools run');
    assert.ok(
      calls.some((argv) => argv.includes('--password-file=-')),
      'qpdf was not given the password on stdin',
    );
  });
});
