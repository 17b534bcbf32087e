import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { detectFile, isSvgText } from '../../src/media/detect.ts';
import { corpus } from '../support/corpus.ts';

describe('detectFile', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'presso-detect-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function scratch(name: string, content: string | Buffer): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, content);
    return path;
  }

  const realFiles: [string, string, string, string][] = [
    ['a phone JPEG', corpus.gpsPhoto, 'image', 'jpeg'],
    ['a PNG', corpus.astronaut, 'image', 'png'],
    ['an animated GIF', corpus.animatedGif, 'image', 'gif'],
    ['a PDF', corpus.pdf, 'pdf', 'pdf'],
    ['an MP4', corpus.mp4, 'video', 'mp4'],
    ['an Ogg with Theora video', corpus.ogv, 'video', 'ogv'],
    ['an Ogg with Vorbis audio', corpus.oggAudio, 'audio', 'ogg'],
    ['an MP3', corpus.mp3, 'audio', 'mp3'],
    ['a WAV', corpus.wav, 'audio', 'wav'],
    ['a DOCX (a zip inside)', corpus.docx, 'document', 'docx'],
    ['an ODT', corpus.odt, 'document', 'odt'],
  ];
  for (const [what, path, kind, format] of realFiles) {
    it(`detects ${what}`, async () => {
      const found = await detectFile(path);
      assert.equal(found?.kind, kind);
      assert.equal(found?.format, format);
    });
  }

  it('gives the MIME type of our format table', async () => {
    assert.deepEqual(await detectFile(corpus.gpsPhoto), {
      kind: 'image',
      format: 'jpeg',
      mime: 'image/jpeg',
    });
  });

  it('detects a zip made on the fly, whatever its name says', async () => {
    const inner = await scratch('a.txt', 'hello zip\n');
    const zipPath = join(dir, 'archive.png');
    execFileSync('zip', ['-q', '-j', zipPath, inner]);
    assert.deepEqual(await detectFile(zipPath), { kind: 'archive', format: 'zip', mime: 'application/zip' });
  });

  it('detects images sharp writes (webp, avif, tiff)', async () => {
    const source = sharp(corpus.chelsea).resize(64);
    for (const format of ['webp', 'avif', 'tiff'] as const) {
      const path = join(dir, `x-${format}`);
      await source.clone().toFormat(format).toFile(path);
      assert.equal((await detectFile(path))?.format, format);
    }
  });

  it('detects an SVG with BOM, XML declaration, comment and doctype', async () => {
    const svg =
      '\uFEFF<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n<!-- Created with Inkscape -->\n' +
      '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' +
      '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    const path = await scratch('drawing.txt', svg);
    assert.deepEqual(await detectFile(path), { kind: 'image', format: 'svg', mime: 'image/svg+xml' });
  });

  it('detects a bare SVG', async () => {
    const path = await scratch('bare', '<svg viewBox="0 0 1 1"></svg>');
    assert.equal((await detectFile(path))?.format, 'svg');
  });

  it('does not take other XML or HTML for SVG', async () => {
    assert.equal(
      await detectFile(await scratch('doc.xml', '<?xml version="1.0"?><root><svg/></root>')),
      undefined,
    );
    assert.equal(
      await detectFile(await scratch('page.html', '<!DOCTYPE html><html><svg></svg></html>')),
      undefined,
    );
    assert.equal(isSvgText('<svgfoo/>'), false);
  });

  it('returns undefined for garbage, empty files and formats no processor handles', async () => {
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919 + 13) % 251));
    assert.equal(await detectFile(await scratch('garbage.jpg', garbage)), undefined);
    assert.equal(await detectFile(await scratch('empty.png', '')), undefined);
    assert.equal(await detectFile(await scratch('notes.txt', 'just some text\n')), undefined);
    assert.equal(await detectFile(corpus.xcf), undefined);
  });
});
