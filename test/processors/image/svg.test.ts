import assert from 'node:assert/strict';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import sharp from 'sharp';
import { UnprocessableInputError, ValidationError } from '../../../src/errors/catalog.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import { corpus } from '../../support/corpus.ts';
import { decode, psnr } from '../../support/images.ts';
import { useScratch } from '../../support/scratch.ts';
import { removeWorkDirs, runImage } from './run-image.ts';

const scratch = useScratch('presso-svg-');
after(removeWorkDirs);

async function svgFile(name: string, text: string): Promise<string> {
  const path = join(scratch(), name);
  await writeFile(path, text);
  return path;
}

const HOSTILE =
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20" onload="alert(1)">' +
  '<script>alert(2)</script>' +
  '<style>@import url(https://evil.example/x.css); circle { stroke: url(https://evil.example/p.svg#s) }</style>' +
  '<defs><linearGradient id="g"><stop offset="0" stop-color="#00f"/></linearGradient></defs>' +
  '<a href="javascript:alert(3)"><rect width="20" height="20" fill="red" onclick="alert(4)"/></a>' +
  '<rect x="20" width="20" height="20" fill="url(#g)"/>' +
  '<circle r="1" style="fill:url(https://evil.example/p.svg#g)"/>' +
  '<image href="https://evil.example/track.png" width="1" height="1"/>' +
  '<use xlink:href="https://evil.example/sprite.svg#icon"/>' +
  '<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">hi</div></foreignObject>' +
  '</svg>';

describe('image processor: SVG', () => {
  it('removes scripts, event handlers, javascript: URLs and external references, keeping the picture', async () => {
    const path = await svgFile('hostile.svg', HOSTILE);
    const result = await runImage(path);
    assert.deepEqual([result.format, result.transformed], ['svg', true]);
    const out = await readFile(result.path, 'utf8');
    for (const banned of [
      /<script/i,
      /onload/i,
      /onclick/i,
      /javascript:/i,
      /evil\.example/,
      /foreignObject/i,
      /@import/,
    ]) {
      assert.doesNotMatch(out, banned);
    }
    assert.match(out, /fill="url\(#\w+\)"/, 'fragment references stay');
    // Still the same picture: red left half, gradient-blue right half.
    const { data, info } = await sharp(result.path).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    assert.equal(info.width, 40);
    assert.ok((data[0] ?? 0) > 200 && (data[2] ?? 0) < 50, 'left is red');
    const right = (10 * 40 + 30) * 3;
    assert.ok((data[right + 2] ?? 0) > 200 && (data[right] ?? 0) < 50, 'right is blue');
  });

  it('drops CSS escapes that spell @import and url() from the served SVG', async () => {
    const text =
      '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="20">' +
      '<style>@\\69mport "https://evil.example/a.css"; @IMPORT url(https://evil.example/b.css);' +
      ' rect { fill: u\\72l(https://evil.example/p.svg#g) } circle { stroke: URL(/*c*/https://evil.example/q) }</style>' +
      '<rect width="20" height="20" style="fill:U\\52L( &quot;https://evil.example/r&quot; );stroke:#00f"/>' +
      '<circle r="5" fill="u&#92;72l(https://evil.example/s)"/></svg>';
    const result = await runImage(await svgFile('escapes.svg', text), { compression: 'lossless' });
    const out = await readFile(result.path, 'utf8');
    assert.doesNotMatch(out, /evil\.example/);
    assert.doesNotMatch(out, /import/i);
    assert.match(out, /stroke:#00f/, 'safe declarations stay');
  });

  it('optimises a real SVG with svgo without changing how it looks', async () => {
    const original = await readFile(corpus.alphaPng);
    // A real vector: the Debian logo PNG traced as an embedded image would not be a vector; use a
    // hand-written one with editor cruft instead.
    assert.ok(original.length > 0);
    const text =
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- Generator: Some Editor 1.0 -->\n' +
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" width="100" height="100" viewBox="0 0 100 100">\n' +
      '  <metadata>lots of metadata</metadata>\n  <sodipodi:namedview pagecolor="#ffffff"/>\n' +
      '  <g>\n    <g>\n      <circle cx="50.000000" cy="50.000000" r="40.000000" style="fill:#ff0000;stroke:none"/>\n    </g>\n  </g>\n</svg>\n';
    const path = await svgFile('editor.svg', text);
    const result = await runImage(path);
    assert.ok(result.outputSize < text.length * 0.6, `${result.outputSize} of ${text.length}`);
    assert.ok((await psnr(result.path, path)) > 40);
  });

  it('rasterises at a density that makes the requested size sharp', async () => {
    const path = await svgFile(
      'small.svg',
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect x="5" width="5" height="10" fill="#000"/></svg>',
    );
    const result = await runImage(path, { format: 'png', resize: { width: 400 }, compression: 'lossless' });
    const out = await decode(result.path);
    assert.deepEqual([out.width, out.height], [400, 400]);
    // Rendered at 400 px, the edge is one pixel wide, not a 40-pixel blur of an upscaled 10-pixel image.
    const row = await sharp(result.path)
      .flatten({ background: '#fff' })
      .extract({ left: 0, top: 200, width: 400, height: 1 })
      .greyscale()
      .raw()
      .toBuffer();
    const grey = [...row].filter((v) => v > 20 && v < 235).length;
    assert.ok(grey <= 2, `${grey} blurred pixels on the edge`);
  });

  it('refuses SVGs over the size or nesting limit, and entity declarations', async () => {
    const processor = createImageProcessor({ svgMaxBytes: 2000, svgMaxDepth: 20 });
    const run = async (text: string) => {
      const path = await svgFile('limit.svg', text);
      const workDir = await mkdtemp(join(scratch(), 'w-'));
      return processor.process({
        input: {
          path,
          name: 'limit.svg',
          kind: 'image',
          format: 'svg',
          mime: 'image/svg+xml',
          size: text.length,
        },
        params: {},
        workDir,
        signal: new AbortController().signal,
        wantMetadata: false,
      });
    };
    const big = `<svg xmlns="http://www.w3.org/2000/svg">${'<rect width="1" height="1"/>'.repeat(100)}</svg>`;
    await assert.rejects(
      run(big),
      (e: unknown) => e instanceof UnprocessableInputError && /2000 bytes/.test(e.message),
    );
    const deep = `<svg xmlns="http://www.w3.org/2000/svg">${'<g>'.repeat(30)}${'</g>'.repeat(30)}</svg>`;
    await assert.rejects(
      run(deep),
      (e: unknown) => e instanceof UnprocessableInputError && /31 deep/.test(e.message),
    );
    const entities =
      '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg xmlns="http://www.w3.org/2000/svg">&a;</svg>';
    await assert.rejects(
      run(entities),
      (e: unknown) => e instanceof UnprocessableInputError && /entities/.test(e.message),
    );
    await assert.rejects(run('<svg xmlns="http://www.w3.org/2000/svg"><g></svg>'), UnprocessableInputError);
  });

  it('svg output only from SVG input, and without raster geometry', async () => {
    await assert.rejects(runImage(corpus.chelsea, { format: 'svg' }), (e: unknown) => {
      assert.ok(e instanceof ValidationError);
      assert.deepEqual(
        e.errors?.map((x) => x.field),
        ['image.format'],
      );
      return true;
    });
    const path = await svgFile('plain.svg', '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>');
    await assert.rejects(runImage(path, { format: 'svg', rotate: 90 }), ValidationError);
  });
});
