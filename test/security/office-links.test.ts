/**
 * Issue 21, finding 3: an office document whose pictures, OLE objects or media are linked to a file outside
 * it must not make the server draw that file into its output. Through the API (app.inject, the real document
 * processor and LibreOffice), against the planted files of office-link-harness.ts: no pixel of the planted
 * picture and no token of the planted text in any PDF. Before the fix every picture test failed (the ZIP
 * formats, legacy DOC, XLS and PPT) and the PPTX OLE link printed the planted text file; ODF and DOCX OLE
 * links and linked media LibreOffice 7.4 did not follow (measured), and are kept so that a change of
 * LibreOffice or of the checks cannot let them through. Also: a normal document converts as LibreOffice
 * alone converts it (its hyperlinks kept), and a compression without conversion keeps the user's own links.
 * The other link classes (templates, XInclude, sub-documents, RTF fields, spreadsheet sources) are in
 * office-link-content.test.ts.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { readZip } from '../../src/processors/document/zip.ts';
import { type CompletedResult, download } from '../api/helpers.ts';
import { sofficeAll } from '../processors/document/fixtures.ts';
import {
  docx,
  odf,
  odfFrame,
  pptxOleLink,
  pptxPicture,
  pptxVideoLink,
  relationship,
  wordPicture,
  xlsxPicture,
} from './office-link-documents.ts';
import { officeLinkHarness } from './office-link-harness.ts';

describe('office documents with pictures, objects and media linked outside them (issue 21, finding 3)', () => {
  const h = officeLinkHarness();
  const image = (id: string, type = 'image') => relationship(id, type, h.url(h.png));

  test('pictures: DOCX linked, through a hyperlink relationship and an embed of an external target', async () => {
    const body = ['r:link="rId5"', 'r:link="rId6"', 'r:embed="rId7"'].map(wordPicture).join('');
    const rels = image('rId5') + image('rId6', 'hyperlink') + image('rId7');
    assert.deepEqual(h.problems(await h.toPdf(docx(body, rels), 'pictures.docx'), 'DOCX'), []);
  });

  test('pictures: ODT by URL, path, climb, another prefix, character references; backgrounds, fills, bullets', async () => {
    const png = h.url(h.png);
    const picture = (href: string, prefix = 'xlink') =>
      odfFrame(`<draw:image xmlns:${prefix}="http://www.w3.org/1999/xlink" ${prefix}:href="${href}"/>`);
    // LibreOffice's copy is <data>/work/<job>/process/office-N/document.odt; a first `../` leaves the package.
    const climbs = [4, 5, 6].map((n) => picture(`${'../'.repeat(n)}planted.png`)).join('');
    const body =
      picture(png) +
      picture(h.png) +
      climbs +
      picture(png, 'zz') +
      picture(`&#102;ile://${h.png}`) +
      '<text:list text:style-name="L1"><text:list-item><text:p>Visible list</text:p></text:list-item></text:list>' +
      '<text:p text:style-name="P1">Visible body text.</text:p>';
    const automatic =
      '<style:style style:name="P1" style:family="paragraph"><style:paragraph-properties fo:min-height="4cm">' +
      `<style:background-image xlink:href="${png}" style:repeat="stretch"/></style:paragraph-properties></style:style>` +
      `<text:list-style style:name="L1"><text:list-level-style-image text:level="1" xlink:href="${png}">` +
      '<style:list-level-properties fo:width="2cm" fo:height="2cm"/></text:list-level-style-image></text:list-style>';
    const styles =
      `<office:styles><draw:fill-image draw:name="Img" xlink:href="${png}"/></office:styles>` +
      '<office:automatic-styles><style:page-layout style:name="pm1"><style:page-layout-properties ' +
      'fo:page-width="21cm" fo:page-height="29.7cm" draw:fill="bitmap" draw:fill-image-name="Img"/>' +
      '</style:page-layout></office:automatic-styles><office:master-styles><style:master-page ' +
      'style:name="Standard" style:page-layout-name="pm1" draw:fill="bitmap" draw:fill-image-name="Img"/>' +
      '</office:master-styles>';
    const pdf = await h.toPdf(odf('odt', body, { automatic, styles }), 'pictures.odt');
    assert.deepEqual(h.problems(pdf, 'ODT'), []);
  });

  test('pictures: XLSX drawing, PPTX slide; legacy DOC, XLS and PPT', async () => {
    const found = [
      ...h.problems(await h.toPdf(xlsxPicture(h.url(h.png)), 'pictures.xlsx'), 'XLSX', 'Visible cell'),
      ...h.problems(
        await h.toPdf(pptxPicture(h.pptxBase, h.url(h.png)), 'pictures.pptx'),
        'PPTX',
        'Visible slide',
      ),
      ...h.problems(await h.toPdf(h.legacy.doc, 'linked.doc'), 'DOC'),
      ...h.problems(await h.toPdf(h.legacy.xls, 'linked.xls'), 'XLS', 'Visible cell'),
      ...h.problems(await h.toPdf(h.legacy.ppt, 'linked.ppt'), 'PPT', 'Visible slide'),
    ];
    assert.deepEqual(found, []);
  });

  test('OLE objects: PPTX linked to a text file; ODT object and floating frame, DOCX object linked to an ODT', async () => {
    const odt = h.url(h.odt);
    const objects =
      odfFrame(`<draw:object xlink:href="${odt}"/>`) + odfFrame(`<draw:floating-frame xlink:href="${odt}"/>`);
    const word =
      '<w:p><w:r><w:object><v:shape id="s1" style="width:100pt;height:100pt"><v:imagedata r:id="rId20"/></v:shape>' +
      '<o:OLEObject Type="Link" ProgID="Word.Document.12" ShapeID="s1" r:id="rId21" UpdateMode="Always"/></w:object></w:r></w:p>';
    const found = [
      ...h.problems(
        await h.toPdf(pptxOleLink(h.pptxBase, h.url(h.txt)), 'ole.pptx'),
        'PPTX',
        'Visible slide',
      ),
      ...h.problems(await h.toPdf(odf('odt', `<text:p>Visible</text:p>${objects}`), 'ole.odt'), 'ODT'),
      ...h.problems(
        await h.toPdf(docx(word, image('rId20') + relationship('rId21', 'oleObject', odt)), 'ole.docx'),
        'DOCX',
      ),
    ];
    assert.deepEqual(found, []);
  });

  test('media: PPTX linked video, ODP plug-in', async () => {
    const odp = odf(
      'odp',
      '<draw:page draw:name="p1"><draw:frame svg:width="10cm" svg:height="2cm" svg:x="1cm" svg:y="1cm">' +
        '<draw:text-box><text:p>Visible slide</text:p></draw:text-box></draw:frame>' +
        '<draw:frame svg:width="10cm" svg:height="10cm" svg:x="1cm" svg:y="4cm">' +
        `<draw:plugin xlink:href="${h.url(h.png)}" draw:mime-type="image/png"/></draw:frame></draw:page>`,
    );
    const found = [
      ...h.problems(
        await h.toPdf(pptxVideoLink(h.pptxBase, h.url(h.png)), 'video.pptx'),
        'PPTX',
        'Visible slide',
      ),
      ...h.problems(await h.toPdf(odp, 'plugin.odp'), 'ODP', 'Visible slide'),
    ];
    assert.deepEqual(found, []);
  });

  test('normal DOCX and ODT convert as LibreOffice alone converts them: same text and pixels, links kept', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'presso-normal-'));
    try {
      const blue = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#2040c0' } })
        .png()
        .toBuffer();
      const picture = (name: string) => ({ name, data: blue, time: 0, date: 0x21 });
      const documents: [string, Buffer][] = [
        [
          'normal.docx',
          docx(
            wordPicture('r:embed="rId3"'),
            relationship('rId3', 'image', 'media/image1.png', false),
            undefined,
            [picture('word/media/image1.png')],
          ),
        ],
        [
          'normal.odt',
          odf(
            'odt',
            '<text:p>Visible <text:a xlink:type="simple" xlink:href="https://example.org/presso">link</text:a></text:p>' +
              odfFrame('<draw:image xlink:href="Pictures/blue.png"/>'),
            { extra: [picture('Pictures/blue.png')] },
          ),
        ],
      ];
      const render = (pdf: Buffer, name: string) => {
        writeFileSync(join(dir, `${name}.pdf`), pdf);
        execFileSync('pdftoppm', ['-r', '40', join(dir, `${name}.pdf`), join(dir, name)]);
        const pages = readdirSync(dir).filter((f) => f.startsWith(`${name}-`) && f.endsWith('.ppm'));
        const qdf = execFileSync('qpdf', [
          '--qdf',
          '--object-streams=disable',
          join(dir, `${name}.pdf`),
          '-',
        ]);
        return {
          text: execFileSync('pdftotext', [join(dir, `${name}.pdf`), '-'], { encoding: 'utf8' }),
          pixels: Buffer.concat(pages.sort().map((page) => readFileSync(join(dir, page)))),
          links: qdf.toString('latin1').includes('/URI (https://example.org/presso)'),
        };
      };
      // LibreOffice alone: both documents in one start.
      for (const [name, input] of documents) writeFileSync(join(dir, name), input);
      const alone = sofficeAll(
        documents.map(([name]) => join(dir, name)),
        'pdf',
        join(dir, 'alone'),
      );
      for (const [index, [name, input]] of documents.entries()) {
        const expected = render(readFileSync(alone[index]!), `a${name}`);
        const actual = render(await h.toPdf(input, name), `s${name}`);
        assert.equal(actual.text, expected.text, name);
        assert.ok(
          actual.pixels.length > 0 && actual.pixels.equals(expected.pixels),
          `${name}: drawn differently`,
        );
        assert.equal(actual.links, expected.links, `${name}: hyperlinks`);
        if (name.endsWith('.odt')) assert.ok(actual.links, 'the ODT hyperlink is in the PDF');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a compression without conversion keeps the user's own link (only LibreOffice's copy loses it)", async () => {
    const input = docx(wordPicture('r:link="rId5"'), image('rId5'));
    const response = await h.presso.upload(
      input,
      { document: { compression: 'high' } },
      undefined,
      'own.docx',
    );
    const result = (await response.json()) as CompletedResult;
    assert.equal(response.status, 200);
    const output = await download(h.presso, result);
    assert.ok(output.length < input.length, 'the re-packed document was not kept');
    const rels = readZip(output, { maxEntries: 100, maxUnzippedBytes: 1e8 }).find(
      (e) => e.name === 'word/_rels/document.xml.rels',
    );
    assert.match(rels!.data.toString('utf8'), /Target="file:\/\/[^"]+planted\.png" TargetMode="External"/);
  });
});
