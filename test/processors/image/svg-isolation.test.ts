/**
 * SVG work cannot freeze or hold the service (audit findings): the element cap refuses a huge SVG before
 * any work; svgo and librsvg run in a child process that is killed at the deadline while the event loop
 * keeps serving; a filter bomb is refused before it is drawn.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { UnprocessableInputError } from '../../../src/errors/catalog.ts';
import {
  createImageProcessor,
  type ImageProcessorOptions,
} from '../../../src/processors/image/image-processor.ts';
import { scaledMs } from '../../support/time-scale.ts';

let scratch: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'presso-svg-isolation-'));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Outcome {
  error: unknown;
  /** Files the job left in its work directory. */
  files: string[];
  /** setInterval ticks while the job ran: zero when the event loop was blocked throughout. */
  ticks: number;
  path?: string;
}

async function runSvg(
  text: string,
  params: Record<string, unknown>,
  options: ImageProcessorOptions = {},
): Promise<Outcome> {
  const path = join(scratch, `input-${Math.random().toString(36).slice(2)}.svg`);
  await writeFile(path, text);
  const workDir = await mkdtemp(join(scratch, 'work-'));
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 10);
  let error: unknown;
  let output: string | undefined;
  try {
    const result = await createImageProcessor(options).process({
      input: {
        path,
        name: 'input.svg',
        kind: 'image',
        format: 'svg',
        mime: 'image/svg+xml',
        size: text.length,
      },
      params,
      workDir,
      signal: new AbortController().signal,
      wantMetadata: false,
    });
    output = result.path;
  } catch (caught) {
    error = caught;
  } finally {
    clearInterval(ticker);
  }
  return { error, files: await readdir(workDir), ticks, ...(output === undefined ? {} : { path: output }) };
}

function rects(count: number): string {
  const body = Array.from(
    { length: count },
    (_, i) =>
      `<rect x="${i % 1000}" y="${Math.floor(i / 1000)}" width="1.5" height="1.5" fill="#${((i * 2654435761) % 16777216).toString(16).padStart(6, '0')}"/>`,
  ).join('');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">${body}</svg>`;
}

function refusedWith(pattern: RegExp) {
  return (error: unknown) => error instanceof UnprocessableInputError && pattern.test(error.message);
}

describe('image processor: SVG work off the event loop', () => {
  it('refuses an SVG of 160,000 <rect> by the element cap before any parsing', async () => {
    const text = rects(160_000);
    assert.ok(text.length > 8_000_000 && text.length < 10 * 1024 * 1024, 'under the byte limit');
    const { error, files } = await runSvg(text, { format: 'png' });
    assert.ok(
      refusedWith(/^The SVG has 160001 elements; this server accepts at most 50000\.$/)(error),
      String(error),
    );
    assert.deepEqual(files, [], 'refused before the sanitiser ran');
  });

  it('kills svgo at the time budget while the event loop keeps running', async () => {
    // Just under a 10,000-element cap; svgo's multipass takes several seconds for this on one core.
    const { error, ticks } = await runSvg(
      rects(9_990),
      { format: 'svg' },
      { svgMaxElements: 10_000, timeBudgetMs: 1000 },
    );
    assert.ok(refusedWith(/took longer than the time budget of 1 s/)(error), String(error));
    // Blocked throughout, it would tick once at most; 5 of the 100 a quiet second gives leaves room for a
    // machine so busy that this process runs a tenth of the time.
    assert.ok(ticks >= 5, `the event loop ticked ${ticks} times while svgo ran`);
  });

  it('kills a render that runs past the time budget, without blocking the event loop', async (t) => {
    // 894 bytes: 1,000 nested <use> of a translucent circle over a 36 MP canvas take a minute to draw.
    const use = (id: string, times: number) => `<use xlink:href="#${id}"/>`.repeat(times);
    const text =
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="6000" height="6000">' +
      '<defs><circle id="c" cx="3000" cy="3000" r="4000" fill="#f00" fill-opacity="0.01"/>' +
      `<g id="a">${use('c', 10)}</g><g id="b">${use('a', 10)}</g></defs>${use('b', 10)}</svg>`;
    // The budget must cover the sanitiser (a child process: seconds to start on a busy machine, where 5 s
    // was seen to run out before the drawing began) and stay far below the drawing's minute. So it starts at
    // 3 s and doubles while it ran out before the sanitised SVG was written: a quiet machine waits 3 s for
    // the kill, a busy one as long as its sanitiser needs.
    let budgetMs = 3000;
    let outcome = await runSvg(text, { format: 'png', compression: 'lossless' }, { timeBudgetMs: budgetMs });
    while (!outcome.files.includes('sanitised.svg') && budgetMs < scaledMs(24_000)) {
      budgetMs *= 2;
      outcome = await runSvg(text, { format: 'png', compression: 'lossless' }, { timeBudgetMs: budgetMs });
    }
    const { error, ticks, files } = outcome;
    t.diagnostic(`killed at a budget of ${budgetMs} ms`);
    const budget = new RegExp(`took longer than the time budget of ${budgetMs / 1000} s`);
    assert.ok(refusedWith(budget)(error), String(error));
    assert.ok(files.includes('sanitised.svg'), 'sanitised first');
    assert.ok(ticks >= 5, `the event loop ticked ${ticks} times while the SVG was drawn`);
  });

  it('refuses a 2.7 KB filter bomb before drawing it', async () => {
    const filter =
      '<filter id="f" x="-50%" y="-50%" width="200%" height="200%">' +
      '<feTurbulence baseFrequency="0.02" numOctaves="10"/>' +
      '<feMorphology operator="dilate" radius="100"/><feMorphology operator="erode" radius="100"/>' +
      '<feGaussianBlur stdDeviation="40"/><feMorphology operator="dilate" radius="90"/></filter>';
    const shapes = Array.from(
      { length: 20 },
      (_, i) => `<rect x="${i * 90}" width="200" height="2000" fill="#0a0" filter="url(#f)"/>`,
    ).join('');
    const text = `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000">${filter}${shapes}</svg>`;
    assert.ok(text.length < 3000, `${text.length} bytes`);
    const { error, files } = await runSvg(text, { format: 'png' });
    assert.ok(
      refusedWith(/^The SVG's filters would take about \d+ s to draw at 4 MP; this server allows \d+ s\.$/)(
        error,
      ),
      String(error),
    );
    assert.ok(!files.includes('svg-rendered.png'), 'never drawn');
  });

  it('still draws modest filters', async () => {
    const text =
      '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><filter id="b"><feGaussianBlur stdDeviation="4"/></filter>' +
      '<rect x="25" y="25" width="50" height="50" fill="#000" filter="url(#b)"/></svg>';
    const { error, path } = await runSvg(text, { format: 'png', compression: 'lossless' });
    assert.equal(error, undefined);
    assert.ok(path !== undefined);
    const { data, info } = await sharp(path).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.deepEqual([info.width, info.height], [100, 100]);
    const alphaAt = (x: number, y: number) => data[(y * 100 + x) * 4 + 3] ?? 0;
    assert.equal(alphaAt(50, 50), 255, 'opaque in the middle');
    assert.ok(alphaAt(25, 50) > 40 && alphaAt(25, 50) < 220, `blurred edge, alpha ${alphaAt(25, 50)}`);
  });
});
