/**
 * An XML part read for a check that must see the characters LibreOffice's parser sees. OOXML allows UTF-8
 * and UTF-16 and ODF requires UTF-8, while the parser honours whatever the XML declaration names (UTF-7,
 * EBCDIC, UTF-32...), in which `<draw:image xlink:href=...>` is not written in ASCII and a scan of the
 * bytes as UTF-8 would not find it. So a part is read as UTF-16 when a byte-order mark says so, else as
 * UTF-8, and refused when its bytes or its declaration say anything else.
 */
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { setText, text } from './xml-text.ts';
import type { ZipEntry } from './zip.ts';

const refused = (entry: ZipEntry, why: string) =>
  new UnprocessableInputError(
    `The document's part ${entry.name} ${why}; office documents use UTF-8 or UTF-16.`,
  );

/** The part's text; refused when it is neither UTF-16 with a byte-order mark nor UTF-8. */
export function readXmlPart(entry: ZipEntry): string {
  const { data } = entry;
  const utf16 = (data[0] === 0xff && data[1] === 0xfe) || (data[0] === 0xfe && data[1] === 0xff);
  if (!utf16) {
    let first = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf ? 3 : 0;
    while (first < data.length && [0x20, 0x09, 0x0d, 0x0a].includes(data[first]!)) first++;
    // UTF-16 or UTF-32 without a mark, EBCDIC: the first character is not an ASCII '<'.
    if (first < data.length && data[first] !== 0x3c) throw refused(entry, 'does not start with ASCII markup');
    if (data.includes(0)) throw refused(entry, 'holds NUL bytes without a UTF-16 byte-order mark');
  }
  const xml = text(entry);
  const declared = declaredEncoding(xml.startsWith('\ufeff') ? xml.slice(1) : xml);
  if (declared !== undefined) {
    const name = declared.toLowerCase();
    const fits = utf16 ? name.startsWith('utf-16') : name === 'utf-8' || name === 'utf8';
    if (!fits) throw refused(entry, `declares the encoding ${declared}`);
  }
  return xml;
}

/** The `encoding` of a leading XML declaration, if it names one. */
function declaredEncoding(xml: string): string | undefined {
  if (!xml.startsWith('<?xml')) return undefined;
  const end = xml.indexOf('?>');
  const declaration = xml.slice(0, end < 0 ? 0 : end);
  const at = declaration.indexOf('encoding');
  if (at < 0) return undefined;
  let from = at + 'encoding'.length;
  while ([' ', '\t', '\r', '\n', '='].includes(declaration[from] ?? '')) from++;
  const quote = declaration[from];
  if (quote !== '"' && quote !== "'") return declaration.slice(from);
  const close = declaration.indexOf(quote, from + 1);
  return declaration.slice(from + 1, close < 0 ? undefined : close);
}

/** Writes `xml` back into the part in the encoding it was read in. */
export function setXmlPart(entry: ZipEntry, xml: string): void {
  setText(entry, text(entry), xml);
}

/** `xml` without the given [start, end) ranges; a range inside an earlier one is already gone. */
export function removeRanges(xml: string, ranges: readonly (readonly [number, number])[]): string {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end] of sorted) {
    if (end <= at) continue;
    out += xml.slice(at, Math.max(at, start));
    at = end;
  }
  return out + xml.slice(at);
}
