/**
 * The reference rewriting on the XML spellings the suites write, part by part, for the cases the
 * LibreOffice-made fixtures do not reach: a PowerPoint slide's `../media/` target, an absolute target, an
 * external link with the same name, a content-types file without a `Default` for the new extension (Word
 * writes only the extensions it uses), `loext:mime-type`, and a manifest that lists the `Thumbnails/` folder.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { resolvePart, updateReferences } from '../../../src/processors/document/part-references.ts';
import { dropThumbnails } from '../../../src/processors/document/thumbnails.ts';
import type { ZipEntry } from '../../../src/processors/document/zip.ts';
import { scaledMs } from '../../support/time-scale.ts';

const part = (name: string, text: string): ZipEntry => ({
  name,
  data: Buffer.from(text),
  time: 0,
  date: 0x21,
});
const textOf = (entries: ZipEntry[], name: string) =>
  entries.find((e) => e.name === name)!.data.toString('utf8');

describe('part references', () => {
  test('resolvePart: relative, parent, absolute, encoded; URLs and escapes from the package are not parts', () => {
    assert.equal(resolvePart('media/image1.png', 'word'), 'word/media/image1.png');
    assert.equal(resolvePart('../media/image1.png', 'ppt/slides'), 'ppt/media/image1.png');
    assert.equal(resolvePart('/ppt/media/a%20b.png', 'ppt/slides'), 'ppt/media/a b.png');
    assert.equal(resolvePart('Pictures/x.png', ''), 'Pictures/x.png');
    assert.equal(resolvePart('https://example.com/x.png', ''), undefined);
    assert.equal(resolvePart('../../x.png', 'word'), undefined);
  });

  test('OOXML: slide relationships, absolute targets, overrides and a missing Default', () => {
    const entries = [
      part(
        '[Content_Types].xml',
        '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
          '<Default Extension="png" ContentType="image/png"/><Default Extension="xml" ContentType="application/xml"/>' +
          '<Override PartName="/ppt/media/image2.png" ContentType="image/png"/></Types>',
      ),
      part(
        'ppt/slides/_rels/slide1.xml.rels',
        '<Relationships><Relationship Id="rId2" Type="…/image" Target="../media/image1.png"/>' +
          '<Relationship Id="rId3" Type="…/image" Target="/ppt/media/image2.png"/>' +
          '<Relationship Id="rId4" Type="…/hyperlink" Target="media/image1.png" TargetMode="External"/>' +
          '<Relationship Id="rId5" Type="…/image" Target="../media/image3.png"/></Relationships>',
      ),
      part('ppt/media/image1.jpeg', ''),
      part('ppt/media/image2.jpeg', ''),
      part('ppt/media/image3.png', ''),
    ];
    // A UTF-16 part (OOXML allows it) is read and written back in UTF-16.
    const utf16 =
      '\ufeff<Relationships><Relationship Id="rId1" Type="…/image" Target="../media/image1.png"/></Relationships>';
    entries.push({ ...part('ppt/slides/_rels/slide2.xml.rels', ''), data: Buffer.from(utf16, 'utf16le') });
    const renames = new Map([
      ['ppt/media/image1.png', 'ppt/media/image1.jpeg'],
      ['ppt/media/image2.png', 'ppt/media/image2.jpeg'],
    ]);
    updateReferences(entries, 'ooxml', renames);
    const rels = textOf(entries, 'ppt/slides/_rels/slide1.xml.rels');
    assert.match(rels, /Id="rId2" Type="…\/image" Target="\.\.\/media\/image1\.jpeg"/);
    assert.match(rels, /Target="\/ppt\/media\/image2\.jpeg"/);
    assert.match(rels, /Target="media\/image1\.png" TargetMode="External"/, 'an external link is no part');
    assert.match(rels, /Target="\.\.\/media\/image3\.png"/, 'a picture not converted keeps its name');
    const slide2 = entries.find((e) => e.name === 'ppt/slides/_rels/slide2.xml.rels')!.data;
    assert.equal(slide2.toString('utf16le'), utf16.replace('image1.png', 'image1.jpeg'));
    const types = textOf(entries, '[Content_Types].xml');
    assert.match(types, /<Default Extension="jpeg" ContentType="image\/jpeg"\/>/);
    assert.equal(types.match(/Extension="jpeg"/g)?.length, 1);
    assert.match(types, /<Override PartName="\/ppt\/media\/image2\.jpeg" ContentType="image\/jpeg"\/>/);
    assert.match(types, /<Default Extension="png"/, 'other Defaults stay');
  });

  test('ODF: manifest path and type, href and both mime-type spellings, in content and styles', () => {
    const old = 'Pictures/100000.png';
    const renamed = 'Pictures/100000.jpg';
    const image = (prefix: string) =>
      `<draw:image xlink:href="${old}" xlink:type="simple" ${prefix}:mime-type="image/png"/>`;
    const entries = [
      part('mimetype', 'application/vnd.oasis.opendocument.presentation'),
      part(
        'META-INF/manifest.xml',
        '<manifest:manifest>\n <manifest:file-entry manifest:full-path="/" manifest:media-type="x"/>\n' +
          ` <manifest:file-entry manifest:full-path="${old}" manifest:media-type="image/png"/>\n</manifest:manifest>`,
      ),
      part('content.xml', `<office:document-content>${image('draw')}</office:document-content>`),
      part('styles.xml', `<office:document-styles>${image('loext')}</office:document-styles>`),
      part(renamed, ''),
    ];
    updateReferences(entries, 'odf', new Map([[old, renamed]]));
    assert.match(
      textOf(entries, 'META-INF/manifest.xml'),
      /manifest:full-path="Pictures\/100000\.jpg" manifest:media-type="image\/jpeg"/,
    );
    for (const [name, prefix] of [
      ['content.xml', 'draw'],
      ['styles.xml', 'loext'],
    ] as const) {
      const text = textOf(entries, name);
      assert.ok(text.includes(`xlink:href="${renamed}"`), text);
      assert.ok(text.includes(`${prefix}:mime-type="image/jpeg"`), text);
    }
  });

  test('ODF thumbnails: the part, the folder entry and both manifest lines go; nothing else', () => {
    const entries = [
      part('mimetype', 'application/vnd.oasis.opendocument.text'),
      part('Thumbnails/', ''),
      part('Thumbnails/thumbnail.png', 'png'),
      part(
        'META-INF/manifest.xml',
        '<manifest:manifest>\n <manifest:file-entry manifest:full-path="/" manifest:media-type="x"/>\n' +
          ' <manifest:file-entry manifest:full-path="Thumbnails/" manifest:media-type=""/>\n' +
          ' <manifest:file-entry manifest:full-path="Thumbnails/thumbnail.png" manifest:media-type="image/png"/>\n' +
          ' <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>\n' +
          '</manifest:manifest>',
      ),
      part('content.xml', '<office:document-content/>'),
    ];
    assert.deepEqual(dropThumbnails(entries, 'odf'), ['Thumbnails/', 'Thumbnails/thumbnail.png']);
    assert.deepEqual(
      entries.map((e) => e.name),
      ['mimetype', 'META-INF/manifest.xml', 'content.xml'],
    );
    const manifest = textOf(entries, 'META-INF/manifest.xml');
    assert.doesNotMatch(manifest, /Thumbnails/);
    assert.match(manifest, /full-path="content\.xml"/);
    assert.doesNotMatch(manifest, /\n\s*\n/, 'no blank line left behind');
  });

  test('any quotes and spaces around "=", a "$" in a name, and an element with an end tag removed whole', () => {
    const entries = [
      part(
        '[Content_Types].xml',
        "<Types><Default Extension='jpeg' ContentType='image/jpeg'/>" +
          "<Override PartName = '/word/media/a$&amp;b.png' ContentType='image/png'></Override>" +
          '<Override PartName="/docProps/thumbnail.jpeg" ContentType="image/jpeg"></Override></Types>',
      ),
      part(
        'word/_rels/document.xml.rels',
        "<Relationships><Relationship Id='rId1' Type='…/image' Target = 'media/a$&amp;b.png'/>" +
          '<Relationship Id="rId2" Type="…/image" Target="media/US$$1.png"></Relationship></Relationships>',
      ),
      part(
        '_rels/.rels',
        '<Relationships><Relationship Id="rId9" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/thumbnail" Target="docProps/thumbnail.jpeg"></Relationship>' +
          '<Relationship Id="rId1" Type="…/officeDocument" Target="word/document.xml"/></Relationships>',
      ),
      part('docProps/thumbnail.jpeg', 'jpeg'),
    ];
    updateReferences(
      entries,
      'ooxml',
      new Map([
        ['word/media/a$&b.png', 'word/media/a$&b.jpeg'],
        ['word/media/US$$1.png', 'word/media/US$$1.jpeg'],
      ]),
    );
    const rels = textOf(entries, 'word/_rels/document.xml.rels');
    assert.ok(rels.includes("Target='media/a$&amp;b.jpeg'"), rels);
    assert.ok(rels.includes('Target="media/US$$1.jpeg"'), rels);
    const types = textOf(entries, '[Content_Types].xml');
    assert.ok(types.includes("PartName='/word/media/a$&amp;b.jpeg' ContentType='image/jpeg'"), types);
    assert.deepEqual(dropThumbnails(entries, 'ooxml'), ['docProps/thumbnail.jpeg']);
    assert.equal(
      textOf(entries, '_rels/.rels'),
      '<Relationships><Relationship Id="rId1" Type="…/officeDocument" Target="word/document.xml"/></Relationships>',
    );
    assert.equal(
      textOf(entries, '[Content_Types].xml'),
      "<Types><Default Extension='jpeg' ContentType='image/jpeg'/>" +
        "<Override PartName='/word/media/a$&amp;b.jpeg' ContentType='image/jpeg'></Override></Types>",
    );
  });

  test('OOXML: a part whose zip name holds "%20" is found from a target that spells it so', () => {
    const entries = [
      part(
        '[Content_Types].xml',
        '<Types><Override PartName="/word/media/a%20b.png" ContentType="image/png"/></Types>',
      ),
      part(
        'word/_rels/document.xml.rels',
        '<Relationships><Relationship Id="rId1" Target="media/a%20b.png"/></Relationships>',
      ),
    ];
    updateReferences(entries, 'ooxml', new Map([['word/media/a%20b.png', 'word/media/a%20b.jpeg']]));
    assert.match(textOf(entries, 'word/_rels/document.xml.rels'), /Target="media\/a%20b\.jpeg"/);
    assert.match(
      textOf(entries, '[Content_Types].xml'),
      /PartName="\/word\/media\/a%20b\.jpeg" ContentType="image\/jpeg"/,
    );
  });

  test('ODF: a link in a tag whose earlier attributes hold "!" or "?" is rewritten', () => {
    const entries = [
      part('META-INF/manifest.xml', '<manifest:manifest/>'),
      part(
        'styles.xml',
        '<office:styles><draw:fill-image draw:name="Logo_21_" draw:display-name="Logo!?" xlink:href="Pictures/logo.png" xlink:type="simple"/></office:styles>',
      ),
    ];
    updateReferences(entries, 'odf', new Map([['Pictures/logo.png', 'Pictures/logo.jpg']]));
    assert.match(textOf(entries, 'styles.xml'), /xlink:href="Pictures\/logo\.jpg"/);
  });

  test('a UTF-16BE part of odd length is read without its stray byte', () => {
    const xml = '\ufeff<Relationships><Relationship Id="rId1" Target="media/image1.png"/></Relationships>';
    const data = Buffer.concat([Buffer.from(xml, 'utf16le').swap16(), Buffer.from([0x20])]);
    const entries = [
      part('[Content_Types].xml', '<Types/>'),
      { ...part('word/_rels/document.xml.rels', ''), data },
    ];
    updateReferences(entries, 'ooxml', new Map([['word/media/image1.png', 'word/media/image1.jpeg']]));
    const written = Buffer.from(entries[1]!.data).swap16().toString('utf16le');
    assert.match(written, /Target="media\/image1\.jpeg"/);
  });

  // Run in a child process: a regular expression that backtracks blocks its thread, so only a process
  // limit can stop it. The limit is a last-resort hang guard, not a timing assertion: the scan is linear
  // (milliseconds), the quadratic pattern it replaced took minutes on this input.
  test('an XML stream of unclosed tags full of links is scanned once', () => {
    const module = new URL('../../../src/processors/document/part-references.ts', import.meta.url).href;
    const script = `
      import { updateReferences } from ${JSON.stringify(module)};
      const hostile = '<a ' + 'xlink:href="x" '.repeat(150000);
      const entries = [
        { name: 'META-INF/manifest.xml', data: Buffer.from('<manifest:manifest/>'), time: 0, date: 0x21 },
        { name: 'content.xml', data: Buffer.from(hostile), time: 0, date: 0x21 },
      ];
      updateReferences(entries, 'odf', new Map([['Pictures/logo.png', 'Pictures/logo.jpg']]));
      process.stdout.write(String(entries[1].data.toString() === hostile));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: scaledMs(120_000),
    });
    assert.equal(child.signal, null, 'the scan did not finish');
    assert.equal(child.stdout, 'true', child.stderr);
  });
});
