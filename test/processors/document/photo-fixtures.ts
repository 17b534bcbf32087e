/**
 * Office documents of every ZIP format with the Canon corpus photo (its 640×480 crop) embedded, made by LibreOffice: DOCX and
 * ODT from the HTML page of fixtures.ts, ODS/XLSX from a flat spreadsheet (`.fods`) and ODP/PPTX from a
 * flat presentation (`.fodp`), each holding the photo as base64 `office:binary-data` (Calc and Impress
 * import no HTML pictures). The first page is drawn the way a reader sees it: LibreOffice to PDF, then
 * `pdftoppm -r 72`. A DOCX thumbnail is added the way Word writes one (LibreOffice writes none to OOXML).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import sharp from 'sharp';
import { readZip, type ZipEntry } from '../../../src/processors/document/zip.ts';
import { decodeRgb } from '../../../src/processors/shared/metric/pixels.ts';
import type { RgbImage } from '../../../src/processors/shared/metric/ssimulacra2.ts';
import { smallCorpus } from '../../support/small-corpus.ts';
import { photoPage, sofficeAll, sofficeEach } from './fixtures.ts';

export const PHOTO_FORMATS = ['docx', 'odt', 'xlsx', 'ods', 'pptx', 'odp'] as const;
export type PhotoFormat = (typeof PHOTO_FORMATS)[number];

/** storeToURL's export filter of each format made from a flat spreadsheet or presentation. */
const EXPORT_FILTERS: Partial<Record<PhotoFormat, string>> = {
  xlsx: 'Calc MS Excel 2007 XML',
  ods: 'calc8',
  pptx: 'Impress MS PowerPoint 2007 XML',
  odp: 'impress8',
};

export const ZIP_LIMITS = { maxEntries: 1000, maxUnzippedBytes: 1e9 };

const NAMESPACES =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ' +
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ' +
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink" office:version="1.2"';

/** A draw:frame holding `picture` inline, 12 × 9 cm (the photo's 4:3). */
const photoFrame = (picture: Buffer, x: string, y: string) =>
  `<draw:frame draw:name="Photo" svg:x="${x}" svg:y="${y}" svg:width="12cm" svg:height="9cm">` +
  `<draw:image><office:binary-data>${picture.toString('base64')}</office:binary-data></draw:image></draw:frame>`;

function flatSheet(dir: string, picture: Buffer): string {
  const path = join(dir, 'photo-sheet.fods');
  writeFileSync(
    path,
    `<?xml version="1.0" encoding="UTF-8"?><office:document ${NAMESPACES} ` +
      'office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet>' +
      `<table:table table:name="Sheet1"><table:shapes>${photoFrame(picture, '1cm', '2cm')}</table:shapes>` +
      '<table:table-row><table:table-cell office:value-type="string"><text:p>Presso quick brown</text:p>' +
      '</table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document>',
  );
  return path;
}

function flatSlides(dir: string, picture: Buffer): string {
  const path = join(dir, 'photo-slides.fodp');
  writeFileSync(
    path,
    `<?xml version="1.0" encoding="UTF-8"?><office:document ${NAMESPACES} ` +
      'office:mimetype="application/vnd.oasis.opendocument.presentation"><office:body><office:presentation>' +
      '<draw:page draw:name="Slide1"><draw:frame svg:x="2cm" svg:y="1cm" svg:width="20cm" svg:height="2cm">' +
      `<draw:text-box><text:p>Presso quick brown</text:p></draw:text-box></draw:frame>${photoFrame(picture, '4cm', '4cm')}` +
      '</draw:page></office:presentation></office:body></office:document>',
  );
  return path;
}

/**
 * The Canon photo as an opaque PNG (a photo saved as PNG: the case `images.format: jpeg` is for): its
 * 640×480 crop (small-corpus.ts), as the page draws it 600 px wide; the image search costs by the pixel.
 */
export async function photoAsPng(): Promise<Buffer> {
  return sharp(smallCorpus.canonPhoto).png().toBuffer();
}

/** One document per format in `dir`, each with `picture` (JPEG or PNG bytes) on its first page. */
export function makePhotoDocuments(
  dir: string,
  formats: readonly PhotoFormat[],
  picture: Buffer = readFileSync(smallCorpus.canonPhoto),
): Record<PhotoFormat, string> {
  return makePhotoDocumentSets(dir, formats, [picture])[0]!;
}

/**
 * The documents of makePhotoDocuments for each of `pictures`: DOCX and ODT with one LibreOffice start per
 * format (sofficeAll), the spreadsheets and presentations all with one (sofficeEach), instead of one start
 * per document.
 */
export function makePhotoDocumentSets(
  dir: string,
  formats: readonly PhotoFormat[],
  pictures: readonly Buffer[],
): Record<PhotoFormat, string>[] {
  const filters: Record<PhotoFormat, [family: 'text' | 'sheet' | 'slides', filter: string]> = {
    docx: ['text', 'docx:MS Word 2007 XML'],
    odt: ['text', 'odt'],
    xlsx: ['sheet', 'xlsx'],
    ods: ['sheet', 'ods'],
    pptx: ['slides', 'pptx'],
    odp: ['slides', 'odp'],
  };
  const sets = pictures.map((picture, i) => {
    const mime = picture.subarray(0, 4).toString('hex') === '89504e47' ? 'image/png' : 'image/jpeg';
    const sourceDir = join(dir, `pictures-${i + 1}`);
    mkdirSync(sourceDir, { recursive: true });
    const sources = new Map<string, string>();
    const source = (family: 'text' | 'sheet' | 'slides') => {
      if (!sources.has(family)) {
        const make = {
          text: () => photoPage(sourceDir, picture, mime),
          sheet: () => flatSheet(sourceDir, picture),
          slides: () => flatSlides(sourceDir, picture),
        }[family];
        sources.set(family, make());
      }
      return sources.get(family)!;
    };
    return { suffix: `${mime.split('/')[1]}${pictures.length > 1 ? `-${i + 1}` : ''}`, source };
  });
  const made = sets.map(() => ({}) as Record<PhotoFormat, string>);
  // Text from HTML through `--convert-to`, one start per format; spreadsheets and slides all in one start.
  for (const format of formats.filter((f) => filters[f][0] === 'text')) {
    const suffix = sets.length > 1 ? 'all' : sets[0]!.suffix;
    const outputs = sofficeAll(
      sets.map((set) => set.source('text')),
      filters[format][1],
      join(dir, `${format}-${suffix}`),
    );
    for (const [i, output] of outputs.entries()) made[i]![format] = output;
  }
  const others = formats
    .filter((f) => filters[f][0] !== 'text')
    .flatMap((format) => sets.map((set, i) => ({ format, set, i })));
  const outputs = sofficeEach(
    others.map(({ format, set }) => ({
      input: set.source(filters[format][0]),
      exportFilter: EXPORT_FILTERS[format]!,
      extension: format,
      outDir: join(dir, `${format}-${set.suffix}`),
    })),
    dir,
  );
  for (const [n, { format, i }] of others.entries()) made[i]![format] = outputs[n]!;
  return made;
}

let renders = 0;

/** The first page as a reader sees it: LibreOffice lays it out to PDF, Poppler draws it at 72 dpi. */
export async function firstPage(path: string, dir: string): Promise<{ pages: number; pixels: RgbImage }> {
  return (await firstPages([path], dir))[0]!;
}

/** firstPage of each document, laid out to PDF by one LibreOffice start. */
export async function firstPages(
  paths: readonly string[],
  dir: string,
): Promise<{ pages: number; pixels: RgbImage }[]> {
  const out = join(dir, `render-${++renders}`);
  const pdfs = sofficeAll(paths, 'pdf', out);
  return Promise.all(
    pdfs.map(async (pdf, i) => {
      const info = execFileSync('pdfinfo', [pdf], { encoding: 'utf8' });
      const png = join(out, `page-${i + 1}`);
      execFileSync('pdftoppm', ['-r', '72', '-png', '-f', '1', '-l', '1', '-singlefile', pdf, png]);
      return { pages: Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]), pixels: await decodeRgb(`${png}.png`) };
    }),
  );
}

/** The part names of a package, and one part's text. */
export function parts(path: string): ZipEntry[] {
  return readZip(readFileSync(path), ZIP_LIMITS);
}

export const partText = (entries: readonly ZipEntry[], name: string) =>
  entries.find((e) => e.name === name)?.data.toString('utf8') ?? '';

/**
 * A copy of a DOCX with a thumbnail as Word saves one: `docProps/thumbnail.jpeg`, a package relationship
 * of the thumbnail type and a content-type override. The picture is the first page drawn small. The
 * parts are updated by Info-ZIP (default deflate level, the other parts untouched), so a re-pack still
 * has something to gain without the thumbnail, and `lossless` keeps a re-packed result to inspect.
 */
export async function withThumbnail(docx: string, page: RgbImage, out: string): Promise<string> {
  const entries = parts(docx);
  const dir = join(dirname(out), `${basename(out)}.parts`);
  mkdirSync(join(dir, '_rels'), { recursive: true });
  mkdirSync(join(dir, 'docProps'), { recursive: true });
  const { width, height, channels } = page;
  await sharp(Buffer.from(page.data), { raw: { width, height, channels } })
    .resize(256)
    .jpeg({ quality: 90 })
    .toFile(join(dir, 'docProps/thumbnail.jpeg'));
  writeFileSync(
    join(dir, '_rels/.rels'),
    partText(entries, '_rels/.rels').replace(
      '</Relationships>',
      '<Relationship Id="rIdThumb" Type="http://schemas.openxmlformats.org/package/2006/relationships/' +
        'metadata/thumbnail" Target="docProps/thumbnail.jpeg"/></Relationships>',
    ),
  );
  writeFileSync(
    join(dir, '[Content_Types].xml'),
    partText(entries, '[Content_Types].xml').replace(
      '</Types>',
      '<Override PartName="/docProps/thumbnail.jpeg" ContentType="image/jpeg"/></Types>',
    ),
  );
  copyFileSync(docx, out);
  // -nw: `[Content_Types].xml` is a name, not a wildcard.
  execFileSync(
    'zip',
    ['-q', '-nw', '-X', out, '_rels/.rels', '[Content_Types].xml', 'docProps/thumbnail.jpeg'],
    {
      cwd: dir,
    },
  );
  return out;
}
