/**
 * Issue 21, finding 3, the links that bring content rather than pictures: templates and linked styles,
 * XInclude and DTD entities, sub-documents and linked sections, RTF fields, spreadsheet sources (external
 * references, linked sheets and ranges, data connections). Through the API against the planted files of
 * office-link-harness.ts. Before the fix RTF INCLUDEPICTURE drew the planted picture; the other classes
 * LibreOffice 7.4 did not follow (measured: its link updates wait for a trusted location, its parsers do not
 * process XInclude nor read external entities, Calc shows Err:540 for external content), and are kept so
 * that a change of LibreOffice or of the checks cannot let them through.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertErrorBody } from '../api/helpers.ts';
import { docx, odf, part, relationship, relationships, rtf, xlsx } from './office-link-documents.ts';
import { officeLinkHarness } from './office-link-harness.ts';

describe('office documents with content linked outside them (issue 21, finding 3)', () => {
  const h = officeLinkHarness(false);

  test('linked styles and templates: DOCX attachedTemplate with linkStyles, ODT meta:template', async () => {
    const settings = {
      xml: '<w:attachedTemplate r:id="rId1"/><w:linkStyles/><w:updateFields w:val="true"/>',
      rels: relationship('rId1', 'attachedTemplate', h.url(h.odt)),
    };
    const meta = `<meta:template xlink:type="simple" xlink:actuate="onRequest" xlink:href="${h.url(h.odt)}"/>`;
    const found = [
      ...h.problems(await h.toPdf(docx('', '', settings), 'template.docx'), 'DOCX'),
      ...h.problems(await h.toPdf(odf('odt', '<text:p>Visible</text:p>', { meta }), 'template.odt'), 'ODT'),
    ];
    assert.deepEqual(found, []);
  });

  test('XInclude in ODT and DOCX parts; a DTD entity naming a file is refused (422)', async () => {
    const include = `<xi:include href="${h.url(h.txt)}" parse="text"/>`;
    const found = [
      ...h.problems(await h.toPdf(odf('odt', `<text:p>Visible ${include}</text:p>`), 'xinclude.odt'), 'ODT'),
      ...h.problems(
        await h.toPdf(docx(`<w:p><w:r><w:t>${include}</w:t></w:r></w:p>`, ''), 'xinclude.docx'),
        'DOCX',
      ),
    ];
    assert.deepEqual(found, []);
    const entity = odf('odt', '<text:p>Visible &planted;</text:p>');
    const withDtd = Buffer.from(
      entity
        .toString('latin1')
        .replace(
          '<office:document-content',
          `<!DOCTYPE x [<!ENTITY planted SYSTEM "${h.url(h.txt)}">]><office:document-content`,
        ),
      'latin1',
    );
    const response = await h.presso.upload(withDtd, { document: { format: 'pdf' } }, undefined, 'dtd.odt');
    const body = await assertErrorBody(response, 422);
    assert.ok(!String(body.message).includes(h.token));
  });

  test('sub-documents and sections: DOCX subDoc and altChunk, ODT linked sections', async () => {
    const rels =
      relationship('rId6', 'subDocument', h.url(h.odt)) +
      relationship('rId7', 'aFChunk', h.url(h.txt)) +
      relationship('rId8', 'aFChunk', h.url(h.odt));
    const word = '<w:p><w:subDoc r:id="rId6"/></w:p><w:altChunk r:id="rId7"/><w:altChunk r:id="rId8"/>';
    const section = (name: string, target: string) =>
      `<text:section text:name="${name}"><text:section-source xlink:href="${target}" text:filter-name=""/>` +
      '<text:p>cached</text:p></text:section>';
    const sections = section('S1', h.url(h.txt)) + section('S2', h.url(h.odt)) + section('S3', h.odt);
    const found = [
      ...h.problems(await h.toPdf(docx(word, rels), 'subdocuments.docx'), 'DOCX'),
      ...h.problems(await h.toPdf(odf('odt', `<text:p>Visible</text:p>${sections}`), 'sections.odt'), 'ODT'),
    ];
    assert.deepEqual(found, []);
  });

  test('RTF fields: INCLUDEPICTURE by URL and path, spelled in pieces; INCLUDETEXT', async () => {
    const field = (instruction: string) => `{\\field{\\*\\fldinst ${instruction}}{\\fldrslt cached}}`;
    const body = [
      field(`INCLUDEPICTURE "${h.url(h.png)}" \\\\d`),
      field(`INCLUDEPICTURE "${h.png}"`),
      `{\\field{\\fldinst INCLUDEPICTURE "${h.png}"}{\\fldrslt cached}}`,
      field(`{INCLUDE}{PICTURE} "${h.png}"`),
      field(`\\u73?NCLUDEPICTURE "${h.png}"`),
      field(`INCLUDETEXT "${h.txt}"`),
    ].join('\\par ');
    assert.deepEqual(h.problems(await h.toPdf(rtf(body), 'fields.rtf'), 'RTF'), []);
  });

  test('spreadsheet sources: ODS external references, linked sheet and range; XLSX external link and connections', async () => {
    const source = `'${h.url(h.txt)}'#$planted.A1`;
    const csv = 'table:filter-name="Text - txt - csv (StarCalc)" table:filter-options="44,34,76,1"';
    const ods = odf(
      'ods',
      `<table:table table:name="S"><table:table-source xlink:href="${h.url(h.txt)}" ${csv} table:mode="copy-all"/>` +
        '<table:table-row><table:table-cell><text:p>Visible cell</text:p></table:table-cell>' +
        `<table:table-cell table:formula="of:=[${source}]"/>` +
        `<table:table-cell table:formula="of:=INDIRECT(&quot;${source}&quot;)"/>` +
        `<table:table-cell table:formula="of:=COM.MICROSOFT.WEBSERVICE(&quot;${h.url(h.txt)}&quot;)"/>` +
        `<table:table-cell><table:cell-range-source table:name="planted" xlink:href="${h.url(h.txt)}" ${csv} ` +
        'table:last-column-spanned="1" table:last-row-spanned="1"/><text:p>cached</text:p></table:table-cell>' +
        '</table:table-row></table:table>',
    );
    const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
    const external = part(
      'xl/externalLinks/externalLink1.xml',
      `<externalLink xmlns="${main}" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` +
        '<externalBook r:id="rId1"><sheetNames><sheetName val="planted"/></sheetNames></externalBook></externalLink>',
    );
    const connections = part(
      'xl/connections.xml',
      `<connections xmlns="${main}"><connection id="1" name="q" type="4" refreshOnLoad="1">` +
        `<webPr url="${h.url(h.txt)}" htmlTables="1"/></connection><connection id="2" name="t" type="6" ` +
        `refreshOnLoad="1"><textPr sourceFile="${h.txt}" comma="1"/></connection></connections>`,
    );
    const workbook = xlsx(
      '',
      '',
      [
        external,
        part(
          'xl/externalLinks/_rels/externalLink1.xml.rels',
          relationships(relationship('rId1', 'externalLinkPath', h.url(h.txt))),
        ),
        connections,
      ],
      '<Override PartName="/xl/externalLinks/externalLink1.xml" ' +
        'ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>',
    );
    const found = [
      ...h.problems(await h.toPdf(ods, 'sources.ods'), 'ODS', 'Visible cell'),
      ...h.problems(await h.toPdf(workbook, 'sources.xlsx'), 'XLSX', 'Visible cell'),
    ];
    assert.deepEqual(found, []);
  });
});
