/**
 * Every ZIP office format (DOCX, XLSX, PPTX, ODT, ODS, ODP) with the corpus photo on its first page,
 * compressed at `high`: smaller, LibreOffice lays it out to the same page count, and the first page as a
 * reader sees it (LibreOffice -> PDF -> pdftoppm at 72 dpi) scores at least the level's SSIMULACRA 2
 * target against the input's. ODS and ODP also lose LibreOffice's thumbnail.
 */
import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { before, describe, test } from 'node:test';
import { createDocumentProcessor } from '../../../src/processors/document/document-processor.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { QUALITY_TARGETS } from '../../../src/processors/image/quality/targets.ts';
import { scorePixels } from '../../../src/processors/shared/metric/score.ts';
import { DEFAULT_SETTINGS } from '../../support/host-settings.ts';
import { onceEach } from '../../support/once-each.ts';
import { useScratch } from '../../support/scratch.ts';
import { NO_TIME_PRESSURE } from '../../support/time-scale.ts';
import { documentJob } from './fixtures.ts';
import { firstPages, makePhotoDocuments, PHOTO_FORMATS, type PhotoFormat, parts } from './photo-fixtures.ts';

type Converted = { input: string; output: string; format: string };
type Page = Awaited<ReturnType<typeof firstPages>>[number];

describe('document processor on every ZIP format with a photo', () => {
  const scratch = useScratch('presso-document-formats-');
  // Every format holds the same photo: its search runs once (once-each.ts). The processor's own re-opening
  // of each result (`verify`, a LibreOffice start per format) is left to document.test.ts: the pages this
  // file draws of every input and output prove the same page count, independently.
  const processor = createDocumentProcessor(
    onceEach(createImageProcessor(NO_TIME_PRESSURE), scratch),
    { ...NO_TIME_PRESSURE, verify: false },
    DEFAULT_SETTINGS,
  );
  /**
   * Every format compressed, then every input's and output's first page drawn by one LibreOffice start
   * (12 starts before). A format whose job failed keeps its error for its own test.
   */
  let prepared: Promise<Record<PhotoFormat, { converted: Converted; before: Page; after: Page } | Error>>;
  before(() => {
    prepared = (async () => {
      const documents = makePhotoDocuments(scratch(), PHOTO_FORMATS);
      const jobs: (Converted | Error)[] = [];
      for (const format of PHOTO_FORMATS) {
        const input = documents[format];
        jobs.push(
          await processor.process(documentJob(scratch(), input, format, { compression: 'high' })).then(
            (result) => ({ input, output: result.path, format: result.format }),
            (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
          ),
        );
      }
      const done = jobs.filter((job): job is Converted => !(job instanceof Error));
      const pages = await firstPages(
        done.flatMap((job) => [job.input, job.output]),
        scratch(),
      );
      return Object.fromEntries(
        PHOTO_FORMATS.map((format, i) => {
          const job = jobs[i]!;
          if (job instanceof Error) return [format, job];
          const at = done.indexOf(job) * 2;
          return [format, { converted: job, before: pages[at]!, after: pages[at + 1]! }];
        }),
      ) as Record<PhotoFormat, { converted: Converted; before: Page; after: Page } | Error>;
    })();
    // Awaited by the tests; a failure here is each test's to report.
    prepared.catch(() => {});
  });

  for (const format of PHOTO_FORMATS) {
    test(`${format} at high: smaller, same pages, first page scores ≥ ${QUALITY_TARGETS.high}`, async (t) => {
      const outcome = (await prepared)[format];
      if (outcome instanceof Error) throw outcome;
      const { converted: result, before, after } = outcome;
      const input = result.input;
      assert.equal(result.format, format);
      assert.notEqual(result.output, input, 'the re-packed document was not kept');
      const [inBytes, outBytes] = [statSync(input).size, statSync(result.output).size];
      assert.ok(outBytes < inBytes * 0.7, `${outBytes} of ${inBytes}`);
      const names = parts(result.output).map((e) => e.name);
      assert.ok(
        names.some((n) => /^(word\/media|xl\/media|ppt\/media|Pictures)\/.+\.jpe?g$/.test(n)),
        'the photo is still there, still a JPEG',
      );
      assert.ok(!names.some((n) => /thumbnail/i.test(n)), `a thumbnail is left: ${names.join(', ')}`);
      assert.equal(after.pages, before.pages);
      assert.deepEqual(
        [after.pixels.width, after.pixels.height],
        [before.pixels.width, before.pixels.height],
      );
      const score = await scorePixels(before.pixels, after.pixels);
      t.diagnostic(`${outBytes} of ${inBytes} bytes; first page ${score.toFixed(1)}`);
      assert.ok(score >= QUALITY_TARGETS.high, `first page scored ${score.toFixed(1)}`);
    });
  }
});
