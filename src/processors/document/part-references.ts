/**
 * Renaming and removing parts of an office package while keeping every reference to them true. A part is
 * found by name, so a picture converted from PNG to JPEG (image1.png -> image1.jpeg) must be renamed
 * everywhere it is named, or Word and LibreOffice show a broken picture:
 * - OOXML: the `Target` of each relationship (`*.rels`, relative to the part the relationships belong to,
 *   or absolute from the package root) and `[Content_Types].xml` (an `Override` by part name, and a
 *   `Default` by extension that must exist for the new extension);
 * - ODF: `META-INF/manifest.xml` (`manifest:full-path` and `manifest:media-type`) and the `xlink:href` of
 *   the XML streams (`content.xml`, `styles.xml`, sub-documents), with the element's `draw:mime-type`.
 * The XML is edited as text, attribute by attribute (xml-text.ts).
 */
import { posix } from 'node:path';
import { attributeValue, escapeXml, setAttribute, setText, text, unescapeXml } from './xml-text.ts';
import type { ZipEntry } from './zip.ts';

export type PackageKind = 'ooxml' | 'odf';

export const CONTENT_TYPES = '[Content_Types].xml';
export const MANIFEST = 'META-INF/manifest.xml';

export const MIME: Record<string, string> = { jpeg: 'image/jpeg', png: 'image/png' };

export function packageKind(entries: readonly ZipEntry[]): PackageKind | undefined {
  if (entries.some((e) => e.name === CONTENT_TYPES)) return 'ooxml';
  if (entries.some((e) => e.name === MANIFEST)) return 'odf';
  return undefined;
}

/**
 * The part an attribute value names, from the directory it is relative to; undefined for a URL (an
 * external link, which is not a part) or a path that leaves the package.
 */
export function resolvePart(value: string, baseDir: string): string | undefined {
  return partSpellings(value, baseDir)[0];
}

/**
 * The part names a reference may mean: percent-decoded (a reference is a URI) and as written (OPC zip item
 * names may themselves hold `%20`, and some writers put that name in the reference unchanged).
 */
function partSpellings(value: string, baseDir: string): string[] {
  const path = unescapeXml(value);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('#')) return [];
  const resolve = (spelling: string) => {
    const joined = spelling.startsWith('/') ? spelling.slice(1) : posix.join(baseDir, spelling);
    const normal = posix.normalize(joined);
    return normal.startsWith('../') || normal === '..' ? undefined : normal;
  };
  let decoded: string | undefined;
  try {
    decoded = resolve(decodeURI(path));
  } catch {
    decoded = undefined;
  }
  const raw = resolve(path);
  return [...new Set([decoded, raw].filter((p): p is string => p !== undefined))];
}

/**
 * A digitally signed package: OOXML keeps its signatures under `_xmlsignatures/`, ODF in
 * `META-INF/documentsignatures.xml` (and macro signatures beside it). A signature covers the parts' bytes, so
 * changing a picture would void it; re-compressing the container does not (the digests are of the content).
 */
export function isSigned(entries: readonly ZipEntry[]): boolean {
  return entries.some(
    (e) =>
      e.name.startsWith('_xmlsignatures/') ||
      e.name === 'META-INF/documentsignatures.xml' ||
      e.name === 'META-INF/macrosignatures.xml',
  );
}

/** The directory OOXML relationship targets are relative to: the source part's (`word/` for `word/_rels/x.rels`). */
function relationshipBase(relsName: string): string {
  const dir = posix.dirname(posix.dirname(relsName));
  return dir === '.' ? '' : dir;
}

/** The directory an ODF stream's hrefs are relative to: its own (a sub-document's folder, or the root). */
function streamBase(name: string): string {
  const dir = posix.dirname(name);
  return dir === '.' ? '' : dir;
}

/**
 * Replaces the extension at the end of a reference (the names differ only there), keeping its spelling;
 * a reference that spells the extension otherwise (percent-encoded) is written anew, relative to `base`.
 */
function withExtension(value: string, from: string, to: string, base: string): string {
  const oldExt = posix.extname(from);
  const newExt = posix.extname(to);
  if (value.endsWith(oldExt)) return value.slice(0, -oldExt.length) + newExt;
  return escapeXml(encodeURI(posix.relative(base === '' ? '.' : base, to)));
}

/**
 * Rewrites every start tag matching `tag` (a linear pattern: `<Name\b[^<>]*>`) whose `attribute` names a
 * part (from `base`). `edit` gets the tag, the attribute's value and the part names it may mean, and
 * returns the new tag, '' to remove the element (with its end tag and content when it has them), or
 * undefined to leave it.
 */
function editTags(
  xml: string,
  tag: RegExp,
  attribute: string,
  base: string,
  edit: (tag: string, value: string, parts: string[]) => string | undefined,
): string {
  let out = '';
  let at = 0;
  tag.lastIndex = 0;
  for (let match = tag.exec(xml); match !== null; match = tag.exec(xml)) {
    const whole = match[0];
    const value = attributeValue(whole, attribute);
    const parts = value === undefined ? [] : partSpellings(value, base);
    const edited = value === undefined || parts.length === 0 ? undefined : edit(whole, value, parts);
    if (edited === undefined) continue;
    out += xml.slice(at, match.index) + edited;
    at = match.index + whole.length;
    if (edited === '' && !whole.endsWith('/>')) {
      // <Relationship ...></Relationship>: the end tag goes too, or the XML no longer parses.
      const name = /^<([^\s/>]+)/.exec(whole)?.[1] ?? '';
      const end = xml.indexOf(`</${name}`, at);
      const close = end < 0 ? -1 : xml.indexOf('>', end);
      if (close >= 0) at = close + 1;
      tag.lastIndex = at;
    }
  }
  return out + xml.slice(at);
}

/** The first of `parts` that `map` has, and its value. */
function lookup<T>(map: ReadonlyMap<string, T>, parts: string[]): [string, T] | undefined {
  for (const part of parts) {
    const value = map.get(part);
    if (value !== undefined) return [part, value];
  }
  return undefined;
}

const anyOf = (set: ReadonlySet<string>, parts: string[]) => parts.some((part) => set.has(part));

/**
 * Applies `renames` (old part name -> new part name; the entries are already renamed) and `removed` (parts
 * dropped from the package) to every reference: renamed targets are rewritten, references to removed
 * parts deleted (a relationship, an `Override`, a manifest entry).
 */
export function updateReferences(
  entries: ZipEntry[],
  kind: PackageKind,
  renames: ReadonlyMap<string, string>,
  removed: ReadonlySet<string> = new Set(),
): void {
  if (renames.size === 0 && removed.size === 0) return;
  if (kind === 'ooxml') updateOoxml(entries, renames, removed);
  else updateOdf(entries, renames, removed);
}

function updateOoxml(
  entries: ZipEntry[],
  renames: ReadonlyMap<string, string>,
  removed: ReadonlySet<string>,
) {
  for (const entry of entries) {
    if (!/(^|\/)_rels\/[^/]*\.rels$/.test(entry.name)) continue;
    const base = relationshipBase(entry.name);
    const before = text(entry);
    const updated = editTags(before, /<Relationship\b[^<>]*>/g, 'Target', base, (tag, value, parts) => {
      if (attributeValue(tag, 'TargetMode') === 'External') return undefined;
      if (anyOf(removed, parts)) return '';
      const found = lookup(renames, parts);
      if (found === undefined) return undefined;
      return setAttribute(tag, 'Target', withExtension(value, found[0], found[1], base));
    });
    setText(entry, before, updated);
  }
  const types = entries.find((e) => e.name === CONTENT_TYPES);
  if (types === undefined) return;
  const original = text(types);
  let xml = editTags(original, /<Override\b[^<>]*>/g, 'PartName', '', (tag, value, parts) => {
    if (anyOf(removed, parts)) return '';
    const found = lookup(renames, parts);
    if (found === undefined) return undefined;
    const [part, renamed] = found;
    const type = MIME[extensionFormat(renamed)];
    const named = setAttribute(
      tag,
      'PartName',
      `/${withExtension(value, part, renamed, '').replace(/^\//, '')}`,
    );
    return type === undefined ? named : setAttribute(named, 'ContentType', type);
  });
  // Parts without an Override take their type from the Default of their extension: one must exist.
  for (const renamed of renames.values()) {
    const extension = posix.extname(renamed).slice(1);
    const type = MIME[extensionFormat(renamed)];
    const has = [...xml.matchAll(/<Default\b[^<>]*>/g)].some(
      ([tag]) => attributeValue(tag, 'Extension')?.toLowerCase() === extension.toLowerCase(),
    );
    if (type !== undefined && !has) {
      // The end of the first `<Types ...>` start tag, found by indexOf (`/<Types\b[^>]*>/` was quadratic
      // on a part of many `<Types` without `>`).
      const open = typesTagEnd(xml);
      if (open !== -1) {
        xml = `${xml.slice(0, open)}<Default Extension="${extension}" ContentType="${type}"/>${xml.slice(open)}`;
      }
    }
  }
  setText(types, original, xml);
}

function updateOdf(entries: ZipEntry[], renames: ReadonlyMap<string, string>, removed: ReadonlySet<string>) {
  const manifest = entries.find((e) => e.name === MANIFEST);
  if (manifest !== undefined) {
    const entryTag = /<manifest:file-entry\b[^<>]*>/g;
    const original = text(manifest);
    const updated = editTags(original, entryTag, 'manifest:full-path', '', (tag, value, parts) => {
      // A removed folder keeps its slash (`Thumbnails/`) through resolvePart, as its manifest entry spells it.
      if (anyOf(removed, parts)) return '';
      const found = lookup(renames, parts);
      if (found === undefined) return undefined;
      const [part, renamed] = found;
      const named = setAttribute(tag, 'manifest:full-path', withExtension(value, part, renamed, ''));
      const type = MIME[extensionFormat(renamed)];
      return type === undefined ? named : setAttribute(named, 'manifest:media-type', type);
    });
    // Removing an entry leaves its line's indentation behind; harmless, but tidy it.
    if (updated !== original) setText(manifest, original, updated.replace(/\n[ \t]+(?=\n)/g, ''));
  }
  // Removed parts (thumbnails) are named by the manifest alone; only renamed pictures are linked from the XML.
  if (renames.size === 0) return;
  for (const entry of entries) {
    if (!entry.name.endsWith('.xml') || entry.name.startsWith('META-INF/')) continue;
    const before = text(entry);
    if (!before.includes('xlink:href=')) continue;
    const base = streamBase(entry.name);
    // Every start tag (linear: a tag is scanned once, whatever the text holds); those without the
    // attribute are passed over by editTags.
    const updated = editTags(before, /<[A-Za-z_][^<>]*>/g, 'xlink:href', base, (tag, value, parts) => {
      const found = lookup(renames, parts);
      if (found === undefined) return undefined;
      const [part, renamed] = found;
      const named = setAttribute(tag, 'xlink:href', withExtension(value, part, renamed, base));
      const type = MIME[extensionFormat(renamed)];
      // LibreOffice writes the picture's type beside the link (`draw:mime-type`, `loext:mime-type`).
      return type === undefined
        ? named
        : named.replace(
            /\b(\w+:mime-type\s*=\s*)(["'])image\/[^"']*\2/g,
            (_, name, quote) => `${name}${quote}${type}${quote}`,
          );
    });
    setText(entry, before, updated);
  }
}

/** `jpeg` for .jpg/.jpeg, `png` for .png: the image format a part's extension names. */
export function extensionFormat(name: string): string {
  const extension = posix.extname(name).slice(1).toLowerCase();
  return extension === 'jpg' ? 'jpeg' : extension;
}

/** Just past the `>` of the first `<Types` start tag (what `/<Types\b[^>]*>/` matched), or -1. */
function typesTagEnd(xml: string): number {
  for (let at = xml.indexOf('<Types'); at !== -1; at = xml.indexOf('<Types', at + 1)) {
    if (/\w/.test(xml[at + 6] ?? '')) continue; // a longer name: no word boundary
    const close = xml.indexOf('>', at + 6);
    return close === -1 ? -1 : close + 1;
  }
  return -1;
}
