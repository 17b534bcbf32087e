/**
 * Issue 21, finding 7 (the PDF part): `pdf.password` never appears on a tool's command line, where any
 * process on the host reads it (`/proc/<pid>/cmdline`), nor in a file of the job's folder while its tools
 * run. Every PDF tool (qpdf, Ghostscript, Poppler) is replaced on PATH by a wrapper that records its
 * arguments and looks for the password in the folder it runs in, then runs the real tool; an encrypted PDF
 * with a random password goes through the API at a lossy level with metadata, so every tool runs. Before,
 * the password sat in `<job>/password` until the job ended (the wrappers found it there).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createImageProcessor } from '../../src/processors/image/image-processor.ts';
import { createPdfProcessor } from '../../src/processors/pdf/pdf-processor.ts';
import { type CompletedResult, download } from '../api/helpers.ts';
import { pdfFacts, samples } from '../processors/pdf/fixtures.ts';
import { buildTestApp, type TestApp } from '../support/http-app.ts';

const TOOLS = ['qpdf', 'gs', 'pdfinfo', 'pdftoppm', 'pdfimages', 'pdffonts'];

describe('pdf.password reaches no command line and no file (issue 21, finding 7)', () => {
  let presso: TestApp;
  let bin: string;
  const path = process.env.PATH;
  const password = `pw-${randomUUID()}`;
  before(async () => {
    presso = await buildTestApp({ processors: [createPdfProcessor({ images: createImageProcessor() })] });
    bin = join(presso.dataDir, 'wrappers');
    mkdirSync(bin);
    for (const tool of TOOLS) {
      const wrapper = join(bin, tool);
      // NUL-separated arguments, one call a line; a hit when the password is in any file of the tool's folder.
      writeFileSync(
        wrapper,
        '#!/bin/sh\n' +
          `printf '%s\\0' "${tool}" "$@" >> '${bin}/calls'; printf '\\n' >> '${bin}/calls'\n` +
          `if grep -rqaF -- '${password}' . 2>/dev/null; then echo "${tool}: $(grep -rlaF -- '${password}' .)" >> '${bin}/found'; fi\n` +
          `exec /usr/bin/${tool} "$@"\n`,
      );
      chmodSync(wrapper, 0o755);
    }
  });
  after(async () => {
    process.env.PATH = path;
    await presso?.close();
  });

  test('an encrypted PDF is processed with every tool, none seeing the password in its arguments or folder', async () => {
    const encrypted = join(presso.dataDir, 'encrypted.pdf');
    // Made before the wrappers are on PATH (this call's own command line is the test's business).
    execFileSync('qpdf', ['--encrypt', password, `${password}-owner`, '256', '--', samples.text, encrypted]);
    process.env.PATH = `${bin}:${path}`;
    try {
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
    } finally {
      process.env.PATH = path;
    }
    const calls = readFileSync(join(bin, 'calls'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => line.split('\0').filter((arg) => arg !== ''));
    const ran = new Set(calls.map(([tool]) => tool));
    for (const tool of ['qpdf', 'gs', 'pdfinfo', 'pdftoppm', 'pdffonts'])
      assert.ok(ran.has(tool), `${tool} never ran`);
    const exposed = calls.filter((call) => call.some((arg) => arg.includes(password)));
    assert.deepEqual(exposed, [], 'a command line holds the password');
    const found = existsSync(join(bin, 'found')) ? readFileSync(join(bin, 'found'), 'utf8') : '';
    assert.equal(found, '', 'a file in the job folder holds the password while tools run');
    assert.ok(
      calls.some((call) => call.includes('--password-file=-')),
      'qpdf was not given the password on stdin',
    );
  });
});
