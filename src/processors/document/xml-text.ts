/**
 * XML parts of an office package read and edited as text, attribute by attribute: re-serialising through a
 * DOM would reorder namespaces and whitespace that nothing asked to change. Parts keep their own encoding
 * (OOXML allows UTF-16 beside UTF-8), and attributes are read in either quote, with spaces around `=`.
 */
import type { ZipEntry } from './zip.ts';

const AMP = /&(amp|quot|apos|lt|gt);/g;
const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
export const unescapeXml = (text: string) => text.replace(AMP, (_, name: string) => ENTITIES[name]!);
export const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** An XML part's encoding from its byte-order mark: OOXML allows UTF-16 parts beside UTF-8 ones. */
function encodingOf(data: Buffer): 'utf8' | 'utf16le' | 'utf16be' {
  if (data[0] === 0xff && data[1] === 0xfe) return 'utf16le';
  if (data[0] === 0xfe && data[1] === 0xff) return 'utf16be';
  return 'utf8';
}

export function text(entry: ZipEntry): string {
  const encoding = encodingOf(entry.data);
  // An odd byte at the end of a UTF-16 part is no character: dropped (swap16 refuses odd lengths).
  if (encoding === 'utf16be')
    return Buffer.from(entry.data.subarray(0, entry.data.length & ~1))
      .swap16()
      .toString('utf16le');
  return entry.data.toString(encoding);
}

/** Only an edited part is written back, in its own encoding; an untouched part keeps its bytes. */
export function setText(entry: ZipEntry, before: string, after: string): void {
  if (after === before) return;
  const encoding = encodingOf(entry.data);
  if (encoding === 'utf16be') entry.data = Buffer.from(after, 'utf16le').swap16();
  else entry.data = Buffer.from(after, encoding);
}

/** `attribute="value"` or `attribute = 'value'`: any quote, optional spaces around `=` (XML allows both). */
const attributePattern = (attribute: string) => new RegExp(`\\b${attribute}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`);

/** The value of `attribute` in a start tag, whichever quotes it has. */
export function attributeValue(tag: string, attribute: string): string | undefined {
  const found = attributePattern(attribute).exec(tag);
  return found?.[1] ?? found?.[2];
}

/** The tag with `attribute` set to `value` (already escaped), in the quotes it had. */
export function setAttribute(tag: string, attribute: string, value: string): string {
  return tag.replace(attributePattern(attribute), (found) => {
    const quote = found.trimEnd().endsWith("'") ? "'" : '"';
    const written = quote === "'" ? value.replace(/'/g, '&apos;') : value;
    return `${attribute}=${quote}${written}${quote}`;
  });
}
