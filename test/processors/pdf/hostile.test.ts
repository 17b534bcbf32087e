/**
 * Hostile and broken PDFs: an endless page tree, an object nested 200,000 deep, a cut file and
 * PostScript that tries to read /etc/passwd (as a PS XObject, and behind a PDF header) are refused with
 * a 422, come out without the object (the nesting) or without a byte of the file they tried to read, and
 * the service stays up.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { PressoError } from '../../../src/errors/catalog.ts';
import { ghostscript, LADDER } from '../../../src/processors/pdf/ghostscript.ts';
import { createPdfProcessor } from '../../../src/processors/pdf/pdf-processor.ts';
import { Deadline } from '../../../src/processors/shared/deadline.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { pdfFacts, pdfJob, samples, writeHostilePdfs } from './fixtures.ts';

/** A line of /etc/passwd every Debian system has. */
const PASSWD_LINE = /root:x:0:0/;

describe('PDF processor: hostile input', () => {
  const scratch = useScratch('presso-pdf-hostile-');
  const processor = createPdfProcessor(NO_TIME_PRESSURE);
  let hostile: ReturnType<typeof writeHostilePdfs>;
  before(() => {
    hostile = writeHostilePdfs(scratch());
    assert.match(readFileSync('/etc/passwd', 'utf8'), PASSWD_LINE, 'the secret the attacks look for exists');
  });

  const refused = (error: unknown) => {
    assert.ok(error instanceof PressoError, String(error));
    assert.equal(error.statusCode, 422);
    assert.doesNotMatch(error.message, /\/tmp|\/etc/, 'no server path in the public message');
    return true;
  };

  test('an endless page tree and a cut file are 422; a deeply nested object is refused or dropped', async () => {
    for (const path of [hostile.loop, hostile.truncated]) {
      await assert.rejects(processor.process(pdfJob(scratch(), path)), refused, path);
    }
    // qpdf stops at its nesting limit, drops the object and succeeds with warnings (exit 3, a success since
    // issue 21): the page comes back blank, a few KB, with no trace of the 400 KB of brackets; a level whose
    // engines cannot write it is a 422.
    for (const compression of ['high', 'lossless']) {
      const job = pdfJob(scratch(), hostile.nested, { compression });
      const result = await processor.process(job).catch((error: unknown) => {
        refused(error);
        return undefined;
      });
      if (result === undefined) continue;
      execFileSync('qpdf', ['--check', result.path], { stdio: 'pipe' });
      assert.ok(readFileSync(result.path).length < 20_000, compression);
      assert.equal(pdfFacts(result.path).pages, 1);
    }
  });

  test('PostScript that reads /etc/passwd is refused or drawn without a byte of it', async () => {
    for (const path of [hostile.psXObject, hostile.postscript]) {
      for (const params of [{ compression: 'ultra' }, { format: 'pdfa' }, { grayscale: true }]) {
        const outcome: string | undefined = await processor.process(pdfJob(scratch(), path, params)).then(
          (result) => result.path,
          (error: unknown) => {
            refused(error);
            return undefined;
          },
        );
        if (outcome === undefined) continue;
        assert.doesNotMatch(readFileSync(outcome, 'latin1'), PASSWD_LINE);
        assert.doesNotMatch(execFileSync('pdftotext', [outcome, '-'], { encoding: 'utf8' }), PASSWD_LINE);
      }
    }
  });

  test('Ghostscript run directly on them and on plain PostScript reads nothing under -dSAFER', async () => {
    const run = {
      deadline: new Deadline(60_000, 'the PDF'),
      signal: new AbortController().signal,
      workDir: scratch(),
      memoryBytes: 1024 ** 3,
    };
    for (const [i, path] of [hostile.psXObject, hostile.postscript, hostile.pureScript].entries()) {
      const output = join(scratch(), `direct-${i}.pdf`);
      await ghostscript(path, output, { images: LADDER[0]!, grayscale: false, pdfa: false }, run).catch(
        refused,
      );
      if (!existsSync(output)) continue;
      assert.doesNotMatch(readFileSync(output, 'latin1'), PASSWD_LINE);
      assert.doesNotMatch(execFileSync('pdftotext', [output, '-'], { encoding: 'utf8' }), PASSWD_LINE);
    }
  });

  test('after all that the processor still compresses a good file', async () => {
    // Lossless: qpdf's rewrite, the engine every level runs; the lossy search is the PDF tests' business.
    const result = await processor.process(pdfJob(scratch(), samples.text, { compression: 'lossless' }));
    assert.equal(pdfFacts(result.path).pages, 2);
  });
});
