/**
 * Writes small real PDFs for tests: pages of Helvetica text and JPEG photos (DCTDecode, the JPEG's own
 * bytes), with a correct cross-reference table, so every reader opens them. Also the malformed shapes the
 * hostile-input tests need (a page tree that loops, raw objects written as given).
 */
import { writeFile } from 'node:fs/promises';

export interface PdfImage {
  /** A baseline JPEG file's bytes. */
  jpeg: Buffer;
  width: number;
  height: number;
  /** Placement on the page in points. */
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PdfPage {
  lines: string[];
  images?: PdfImage[];
}

/** Objects as raw bodies (`<< ... >>`, or a stream with its dictionary); object 1 must be the catalog. */
export function assemblePdf(objects: (string | Buffer)[]): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.5\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(offset);
    const chunk = Buffer.concat([
      Buffer.from(`${index + 1} 0 obj\n`, 'latin1'),
      Buffer.isBuffer(body) ? body : Buffer.from(body, 'latin1'),
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [
    'xref',
    `0 ${objects.length + 1}`,
    '0000000000 65535 f ',
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n `),
    'trailer',
    `<< /Size ${objects.length + 1} /Root 1 0 R >>`,
    'startxref',
    String(offset),
    '%%EOF',
    '',
  ].join('\n');
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}

function stream(dictionary: string, data: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(`<< ${dictionary} /Length ${data.length} >>\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream', 'latin1'),
  ]);
}

const escapeText = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);

/** A Letter-size PDF (612×792 pt) with the given pages; the font is Helvetica, not embedded. */
export function buildPdf(pages: PdfPage[], info: { title?: string; author?: string } = {}): Buffer {
  // 1 catalog, 2 pages, 3 font, 4 info, then per page: page, content, images.
  const objects: (string | Buffer)[] = ['', '', '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'];
  const infoEntries = [
    info.title === undefined ? '' : `/Title (${escapeText(info.title)})`,
    info.author === undefined ? '' : `/Author (${escapeText(info.author)})`,
    '/Producer (presso test pdf-writer)',
  ].join(' ');
  objects.push(`<< ${infoEntries} >>`);
  const kids: number[] = [];
  for (const page of pages) {
    const pageNumber = objects.length + 1;
    kids.push(pageNumber);
    objects.push(''); // the page, filled below
    const contentNumber = objects.length + 1;
    objects.push('');
    const xobjects: string[] = [];
    const drawing: string[] = [];
    (page.images ?? []).forEach((image, i) => {
      const number = objects.length + 1;
      objects.push(
        stream(
          `/Type /XObject /Subtype /Image /Width ${image.width} /Height ${image.height} ` +
            '/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode',
          image.jpeg,
        ),
      );
      xobjects.push(`/Im${i} ${number} 0 R`);
      drawing.push(`q ${image.w} 0 0 ${image.h} ${image.x} ${image.y} cm /Im${i} Do Q`);
    });
    const text = page.lines
      .map((line, i) => `BT /F1 12 Tf 72 ${720 - i * 16} Td (${escapeText(line)}) Tj ET`)
      .join('\n');
    objects[contentNumber - 1] = stream('', Buffer.from(`${drawing.join('\n')}\n${text}`, 'latin1'));
    objects[pageNumber - 1] =
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${contentNumber} 0 R ` +
      `/Resources << /Font << /F1 3 0 R >> /XObject << ${xobjects.join(' ')} >> >> >>`;
  }
  objects[0] = '<< /Type /Catalog /Pages 2 0 R >>';
  objects[1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const pdf = assemblePdf(objects);
  // The info dictionary is object 4: point the trailer at it.
  return Buffer.from(
    pdf.toString('latin1').replace('/Root 1 0 R >>', '/Root 1 0 R /Info 4 0 R >>'),
    'latin1',
  );
}

export async function writePdf(path: string, pages: PdfPage[], info?: { title?: string; author?: string }) {
  await writeFile(path, buildPdf(pages, info));
}
