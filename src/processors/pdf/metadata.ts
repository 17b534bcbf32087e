/**
 * `"metadata": true` for a PDF: page count and sizes, version, the document information (title, author,
 * producer, creator), encryption, fonts (embedded or not), image count, linearisation and tagging. All
 * read by Poppler from the (decrypted) input.
 */
import { imagePages, type PdfToolRun, pdfInfo, pdfTool } from '../shared/pdf-tools.ts';

/** Page sizes listed at most for this many pages (pdfinfo prints one line per page). */
const SIZED_PAGES = 100;

export async function describePdf(
  path: string,
  encryption: string | undefined,
  pages: number,
  run: PdfToolRun,
): Promise<Record<string, unknown>> {
  const info = await pdfInfo(path, run, { first: 1, last: Math.max(1, Math.min(pages, SIZED_PAGES)) });
  const pageSizes: { page: number; width: number; height: number }[] = [];
  for (const [key, value] of info) {
    const page = /^Page\s+(\d+) size$/.exec(key);
    const size = /^([\d.]+) x ([\d.]+) pts/.exec(value);
    if (page && size)
      pageSizes.push({ page: Number(page[1]), width: Number(size[1]), height: Number(size[2]) });
  }
  const text = (key: string) => {
    const value = info.get(key);
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    pages,
    pageSizes,
    version: text('PDF version'),
    title: text('Title'),
    author: text('Author'),
    producer: text('Producer'),
    creator: text('Creator'),
    encrypted: encryption !== undefined,
    ...(encryption === undefined ? {} : { encryption }),
    fonts: await fonts(path, run),
    images: (await imagePages(path, run)).images,
    linearized: info.get('Optimized') === 'yes',
    tagged: info.get('Tagged') === 'yes',
  };
}

/** `pdffonts`: name, type and whether the font program is embedded, per font. */
async function fonts(
  path: string,
  run: PdfToolRun,
): Promise<{ name: string; type: string; embedded: boolean }[]> {
  const { stdout } = await pdfTool('pdffonts', [path], run, { captureStdout: true });
  const lines = stdout.split('\n');
  const ruler = lines[1] ?? '';
  // Columns are fixed-width: the ruler's dash runs give each column's span.
  const spans = [...ruler.matchAll(/-+/g)].map((m) => [m.index, m.index + m[0].length] as const);
  const cell = (line: string, column: number) => {
    const span = spans[column];
    return span === undefined ? '' : line.slice(span[0], span[1]).trim();
  };
  return lines
    .slice(2)
    .filter((line) => line.trim() !== '')
    .map((line) => ({ name: cell(line, 0), type: cell(line, 1), embedded: cell(line, 3) === 'yes' }));
}
