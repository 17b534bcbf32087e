/**
 * Hostile office documents for the link tests, written part by part: each links (by URL, path or relative
 * climb) to files planted outside the job, in every way an office suite links content. The packages are
 * stored, not deflated, so a compression without conversion makes them smaller and keeps its output.
 */
import { readZip, writeZip, type ZipEntry } from '../../src/processors/document/zip.ts';

const part = (name: string, text: string | Buffer): ZipEntry => ({
  name,
  data: typeof text === 'string' ? Buffer.from(text) : text,
  time: 0,
  date: 0x21,
});

/** writeZip with stored entries: level 0 never beats storing, so every part is stored. */
const zip = (entries: ZipEntry[]) => writeZip(entries, 0);

const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships';
export const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const W_NS =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  `xmlns:r="${REL}" ` +
  'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ' +
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ' +
  'xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture" ' +
  'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" ' +
  'xmlns:xi="http://www.w3.org/2001/XInclude"';

/** `<Relationship>` elements as a relationships part. */
export const relationships = (items: string) =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="${RELS}">${items}</Relationships>`;

export const relationship = (id: string, type: string, target: string, external = true) =>
  `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"${external ? ' TargetMode="External"' : ''}/>`;

/** A DrawingML picture whose blip is `attribute` (`r:link="rId5"`), inline in a Word paragraph. */
export const wordPicture = (attribute: string) =>
  '<w:p><w:r><w:drawing><wp:inline><wp:extent cx="1828800" cy="1828800"/><wp:docPr id="1" name="P"/>' +
  '<a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic>' +
  '<pic:nvPicPr><pic:cNvPr id="1" name="p.png"/><pic:cNvPicPr/></pic:nvPicPr>' +
  `<pic:blipFill><a:blip ${attribute}/><a:stretch><a:fillRect/></a:stretch></pic:blipFill>` +
  '<pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="1828800" cy="1828800"/></a:xfrm>' +
  '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic>' +
  '</wp:inline></w:drawing></w:r></w:p>';

/**
 * A DOCX whose body is a visible sentence then `body`; `rels` are the document part's relationships,
 * `settings` the settings part and its relationships, `extra` more parts (pictures).
 */
export function docx(
  body: string,
  rels: string,
  settings?: { xml: string; rels: string },
  extra: ZipEntry[] = [],
): Buffer {
  const types =
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/>' +
    '<Override PartName="/word/document.xml" ' +
    'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
    (settings
      ? '<Override PartName="/word/settings.xml" ' +
        'ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>'
      : '') +
    '</Types>';
  const settingsRel = settings ? relationship('rIdSettings', 'settings', 'settings.xml', false) : '';
  const entries = [
    part('[Content_Types].xml', types),
    part('_rels/.rels', relationships(relationship('rId1', 'officeDocument', 'word/document.xml', false))),
    part(
      'word/document.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ${W_NS}><w:body>` +
        `<w:p><w:r><w:t>Visible body text.</w:t></w:r></w:p>${body}</w:body></w:document>`,
    ),
    part('word/_rels/document.xml.rels', relationships(rels + settingsRel)),
  ];
  if (settings) {
    entries.push(
      part(
        'word/settings.xml',
        `<?xml version="1.0" encoding="UTF-8"?>\n<w:settings ${W_NS}>${settings.xml}</w:settings>`,
      ),
      part('word/_rels/settings.xml.rels', relationships(settings.rels)),
    );
  }
  return zip([...entries, ...extra]);
}

const ODF_NS = [
  'office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"',
  'text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"',
  'xlink="http://www.w3.org/1999/xlink"',
  'svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'of="urn:oasis:names:tc:opendocument:xmlns:of:1.2"',
  'presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"',
  'meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"',
  'xi="http://www.w3.org/2001/XInclude"',
]
  .map((ns) => `xmlns:${ns}`)
  .join(' ');

const ODF_MIME = {
  odt: 'application/vnd.oasis.opendocument.text',
  ods: 'application/vnd.oasis.opendocument.spreadsheet',
  odp: 'application/vnd.oasis.opendocument.presentation',
};
const ODF_BODY = { odt: 'text', ods: 'spreadsheet', odp: 'presentation' };

export interface OdfParts {
  automatic?: string;
  /** The inside of `office:document-styles`. */
  styles?: string;
  /** The inside of `office:meta`. */
  meta?: string;
  /** More parts (pictures), listed in the manifest. */
  extra?: ZipEntry[];
}

/** An OpenDocument package whose body is `body` (inside `office:text`, `office:spreadsheet`, ...). */
export function odf(kind: keyof typeof ODF_MIME, body: string, parts: OdfParts = {}): Buffer {
  const streams: [string, string][] = [
    [
      'content.xml',
      `<office:document-content ${ODF_NS} office:version="1.3"><office:automatic-styles>${parts.automatic ?? ''}` +
        `</office:automatic-styles><office:body><office:${ODF_BODY[kind]}>${body}</office:${ODF_BODY[kind]}>` +
        '</office:body></office:document-content>',
    ],
  ];
  if (parts.styles !== undefined)
    streams.push([
      'styles.xml',
      `<office:document-styles ${ODF_NS} office:version="1.3">${parts.styles}</office:document-styles>`,
    ]);
  if (parts.meta !== undefined)
    streams.push([
      'meta.xml',
      `<office:document-meta ${ODF_NS} office:version="1.3"><office:meta>${parts.meta}</office:meta></office:document-meta>`,
    ]);
  const extra = parts.extra ?? [];
  const manifest = [...streams.map(([name]) => name), ...extra.map((e) => e.name)]
    .map((name) => `<manifest:file-entry manifest:full-path="${name}" manifest:media-type="text/xml"/>`)
    .join('');
  return zip([
    part('mimetype', ODF_MIME[kind]),
    ...streams.map(([name, xml]) => part(name, `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`)),
    part(
      'META-INF/manifest.xml',
      '<?xml version="1.0" encoding="UTF-8"?>\n<manifest:manifest ' +
        'xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
        `<manifest:file-entry manifest:full-path="/" manifest:media-type="${ODF_MIME[kind]}"/>${manifest}` +
        '</manifest:manifest>',
    ),
    ...extra,
  ]);
}

/** A 5 cm frame in a paragraph holding `inner` (a `draw:image`, `draw:object`, ...). */
export const odfFrame = (inner: string) =>
  `<text:p><draw:frame text:anchor-type="paragraph" svg:width="5cm" svg:height="5cm">${inner}</draw:frame></text:p>`;

/** An ODT whose one picture is linked to `url`, not embedded (LibreOffice loads such links on open). */
export const odtLinking = (url: string) =>
  odf(
    'odt',
    odfFrame(
      `<draw:image xlink:href="${url}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/>`,
    ),
  );

/** A minimal workbook: one sheet with a cell, `sheetRels` its relationships, `extra` more parts. */
export function xlsx(sheetExtra: string, sheetRels: string, extra: ZipEntry[] = [], overrides = ''): Buffer {
  const main = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
  return zip([
    part(
      '[Content_Types].xml',
      '<?xml version="1.0" encoding="UTF-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        `${overrides}</Types>`,
    ),
    part('_rels/.rels', relationships(relationship('rId1', 'officeDocument', 'xl/workbook.xml', false))),
    part(
      'xl/workbook.xml',
      `<?xml version="1.0" encoding="UTF-8"?>\n<workbook xmlns="${main}" xmlns:r="${REL}"><sheets>` +
        '<sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>',
    ),
    part(
      'xl/_rels/workbook.xml.rels',
      relationships(relationship('rId1', 'worksheet', 'worksheets/sheet1.xml', false)),
    ),
    part(
      'xl/worksheets/sheet1.xml',
      `<?xml version="1.0" encoding="UTF-8"?>\n<worksheet xmlns="${main}" xmlns:r="${REL}"><sheetData>` +
        `<row r="1"><c r="A1" t="inlineStr"><is><t>Visible cell</t></is></c></row></sheetData>${sheetExtra}</worksheet>`,
    ),
    part('xl/worksheets/_rels/sheet1.xml.rels', relationships(sheetRels)),
    ...extra,
  ]);
}

/** A part, for the `extra` of the builders. */
export { part };

/** `base` (a package) with its parts edited: `edit` gets each part's text by name and returns the new text. */
export function editPackage(base: Buffer, edits: Record<string, (text: string) => string>): Buffer {
  const entries = readZip(base, { maxEntries: 10_000, maxUnzippedBytes: 1024 ** 3 });
  for (const [name, edit] of Object.entries(edits)) {
    const found = entries.find((e) => e.name === name);
    if (found) found.data = Buffer.from(edit(found.data.toString('utf8')));
    else entries.push(part(name, edit('')));
  }
  return zip(entries);
}

/** An RTF whose body is a visible sentence then `body`. */
export const rtf = (body: string) =>
  Buffer.from(
    `{\\rtf1\\ansi\\deff0{\\fonttbl{\\f0 Times;}}\\pard Visible body text.\\par ${body}\\par}`,
    'latin1',
  );

/** A slide of an ODP with a text box saying `words`. */
export const odpSlide = (words: string) =>
  '<draw:page draw:name="p1"><draw:frame svg:width="10cm" svg:height="2cm" svg:x="1cm" svg:y="1cm">' +
  `<draw:text-box><text:p>${words}</text:p></draw:text-box></draw:frame></draw:page>`;

/** A workbook whose drawing has a picture linked to `pictureUrl`. */
export function xlsxPicture(pictureUrl: string): Buffer {
  const drawing =
    '<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" ' +
    `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${REL}"><xdr:twoCellAnchor>` +
    '<xdr:from><xdr:col>1</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>1</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from>' +
    '<xdr:to><xdr:col>6</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>15</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to>' +
    '<xdr:pic><xdr:nvPicPr><xdr:cNvPr id="2" name="p"/><xdr:cNvPicPr/></xdr:nvPicPr><xdr:blipFill>' +
    '<a:blip r:link="rId1"/><a:stretch><a:fillRect/></a:stretch></xdr:blipFill><xdr:spPr>' +
    '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></xdr:spPr></xdr:pic><xdr:clientData/></xdr:twoCellAnchor></xdr:wsDr>';
  return xlsx(
    '<drawing r:id="rId2"/>',
    relationship('rId2', 'drawing', '../drawings/drawing1.xml', false),
    [
      part('xl/drawings/drawing1.xml', drawing),
      part('xl/drawings/_rels/drawing1.xml.rels', relationships(relationship('rId1', 'image', pictureUrl))),
    ],
    '<Override PartName="/xl/drawings/drawing1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawing+xml"/>',
  );
}

/** A LibreOffice-made PPTX with `shape` added to its first slide and `rels` to that slide's relationships. */
export const pptxWith = (base: Buffer, shape: string, rels: string) =>
  editPackage(base, {
    'ppt/slides/slide1.xml': (xml) => xml.replace('</p:spTree>', `${shape}</p:spTree>`),
    'ppt/slides/_rels/slide1.xml.rels': (xml) => xml.replace('</Relationships>', `${rels}</Relationships>`),
  });

/** A 5 000 000 EMU PresentationML frame around `inner`. */
const slideBox = '<a:xfrm><a:off x="0" y="0"/><a:ext cx="5000000" cy="5000000"/></a:xfrm>';

/** `base` with a slide picture linked to `pictureUrl`. */
export const pptxPicture = (base: Buffer, pictureUrl: string) =>
  pptxWith(
    base,
    '<p:pic><p:nvPicPr><p:cNvPr id="500" name="x"/><p:cNvPicPr/><p:nvPr/></p:nvPicPr><p:blipFill>' +
      `<a:blip r:link="rId99"/><a:stretch><a:fillRect/></a:stretch></p:blipFill><p:spPr>${slideBox}` +
      '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>',
    relationship('rId99', 'image', pictureUrl),
  );

/** `base` with an OLE object linked (and updated automatically) to `target`. */
export const pptxOleLink = (base: Buffer, target: string) =>
  pptxWith(
    base,
    '<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="502" name="o"/><p:cNvGraphicFramePr/><p:nvPr/>' +
      `</p:nvGraphicFramePr><p:xfrm><a:off x="0" y="0"/><a:ext cx="5000000" cy="5000000"/></p:xfrm><a:graphic>` +
      '<a:graphicData uri="http://schemas.openxmlformats.org/presentationml/2006/ole">' +
      '<p:oleObj name="x" r:id="rId97" progId="Word.Document.12"><p:link updateAutomatic="1"/></p:oleObj>' +
      '</a:graphicData></a:graphic></p:graphicFrame>',
    relationship('rId97', 'oleObject', target),
  );

/** `base` with a video linked to `target`. */
export const pptxVideoLink = (base: Buffer, target: string) =>
  pptxWith(
    base,
    '<p:pic><p:nvPicPr><p:cNvPr id="501" name="v"/><p:cNvPicPr/><p:nvPr><a:videoFile r:link="rId98"/></p:nvPr>' +
      `</p:nvPicPr><p:blipFill><a:blip/><a:stretch><a:fillRect/></a:stretch></p:blipFill><p:spPr>${slideBox}` +
      '<a:prstGeom prst="rect"><a:avLst/></a:prstGeom></p:spPr></p:pic>',
    relationship('rId98', 'video', target),
  );
