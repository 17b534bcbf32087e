/**
 * Renaming and removing parts of an office package while keeping every reference to them true. A part is
 * found by name, so a picture converted from PNG to JPEG (image1.png -> image1.jpeg) must be renamed
 * everywhere it is named, or Word and LibreOffice show a broken picture:
 * - OOXML: the `Target` of each relationship (`*.rels`, relative to the part the relationships belong to,
 *   or absolute from the package root) and `[Content_Types].xml` (an `Override` by part name, and a
 *   `Default` by extension that must exist for the new extension);
 * - ODF: `META-INF/manifest.xml` (`manifest:full-path` and `manifest:media-type`) and the `xlink:href` of
 *   the XML streams (`content.xml`, `styles.xml`, sub-documents), with the element's `draw:mime-type`.
 * The XML is edited as text, attribute by attribute: re-serialising it through a DOM would reorder
 * namespaces and whitespace that nothing asked to change.
 */
import { posix } from 'node:path';
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

const AMP = /&(amp|quot|apos|lt|gt);/g;
const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' };
const unescapeXml = (text: string) => text.replace(AMP, (_, name: string) => ENTITIES[name]!);
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The part an attribute value names, from the directory it is relative to; undefined for a URL (an
 * external link, which is not a part) or a path that leaves the package.
 */
export function resolvePart(value: string, baseDir: string): string | undefined {
  let path = unescapeXml(value);
  if (/^[a-z][a-z0-9+.-]*:/i.test(path) || path.startsWith('#')) return undefined;
  try {
    path = decodeURI(path);
  } catch {
    return undefined;
  }
  const joined = path.startsWith('/') ? path.slice(1) : posix.join(baseDir, path);
  const normal = posix.normalize(joined);
  return normal.startsWith('../') || normal === '..' ? undefined : normal;
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

/** An XML part's encoding from its byte-order mark: OOXML allows UTF-16 parts beside UTF-8 ones. */
function encodingOf(data: Buffer): 'utf8' | 'utf16le' | 'utf16be' {
  if (data[0] === 0xff && data[1] === 0xfe) return 'utf16le';
  if (data[0] === 0xfe && data[1] === 0xff) return 'utf16be';
  return 'utf8';
}

export function text(entry: ZipEntry): string {
  const encoding = encodingOf(entry.data);
  if (encoding === 'utf16be') return Buffer.from(entry.data).swap16().toString('utf16le');
  return entry.data.toString(encoding);
}

/** Only an edited part is written back, in its own encoding; an untouched part keeps its bytes. */
function setText(entry: ZipEntry, before: string, after: string): void {
  if (after === before) return;
  const encoding = encodingOf(entry.data);
  if (encoding === 'utf16be') entry.data = Buffer.from(after, 'utf16le').swap16();
  else entry.data = Buffer.from(after, encoding);
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

/** Rewrites every tag matching `tag` whose `attribute` resolves (from `base`) to a renamed or removed part. */
function editTags(
  xml: string,
  tag: RegExp,
  attribute: string,
  base: string,
  edit: (tag: string, value: string, part: string) => string | undefined,
): string {
  const attributeValue = new RegExp(`\\b${attribute}="([^"]*)"`);
  return xml.replace(tag, (whole) => {
    const value = attributeValue.exec(whole)?.[1];
    const part = value === undefined ? undefined : resolvePart(value, base);
    if (value === undefined || part === undefined) return whole;
    return edit(whole, value, part) ?? whole;
  });
}

const setAttribute = (tag: string, attribute: string, value: string) =>
  tag.replace(new RegExp(`\\b${attribute}="[^"]*"`), `${attribute}="${value}"`);

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
    const updated = editTags(before, /<Relationship\b[^>]*>/g, 'Target', base, (tag, value, part) => {
      if (/\bTargetMode="External"/.test(tag)) return undefined;
      if (removed.has(part)) return '';
      const renamed = renames.get(part);
      return renamed === undefined
        ? undefined
        : setAttribute(tag, 'Target', withExtension(value, part, renamed, base));
    });
    setText(entry, before, updated);
  }
  const types = entries.find((e) => e.name === CONTENT_TYPES);
  if (types === undefined) return;
  const original = text(types);
  let xml = editTags(original, /<Override\b[^>]*>/g, 'PartName', '', (tag, value, part) => {
    if (removed.has(part)) return '';
    const renamed = renames.get(part);
    if (renamed === undefined) return undefined;
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
    const has = new RegExp(`<Default\\b[^>]*\\bExtension="${extension}"`, 'i');
    if (type !== undefined && !has.test(xml)) {
      xml = xml.replace(
        /<Types\b[^>]*>/,
        (open) => `${open}<Default Extension="${extension}" ContentType="${type}"/>`,
      );
    }
  }
  setText(types, original, xml);
}

function updateOdf(entries: ZipEntry[], renames: ReadonlyMap<string, string>, removed: ReadonlySet<string>) {
  const manifest = entries.find((e) => e.name === MANIFEST);
  if (manifest !== undefined) {
    const entryTag = /<manifest:file-entry\b[^>]*>/g;
    const original = text(manifest);
    const updated = editTags(original, entryTag, 'manifest:full-path', '', (tag, value, part) => {
      // A removed folder keeps its slash (`Thumbnails/`) through resolvePart, as its manifest entry spells it.
      if (removed.has(part)) return '';
      const renamed = renames.get(part);
      if (renamed === undefined) return undefined;
      const named = setAttribute(tag, 'manifest:full-path', withExtension(value, part, renamed, ''));
      const type = MIME[extensionFormat(renamed)];
      return type === undefined ? named : setAttribute(named, 'manifest:media-type', type);
    });
    // Removing an entry leaves its line's indentation behind; harmless, but tidy it.
    if (updated !== original) setText(manifest, original, updated.replace(/\n[ \t]+(?=\n)/g, ''));
  }
  for (const entry of entries) {
    if (!entry.name.endsWith('.xml') || entry.name.startsWith('META-INF/')) continue;
    const before = text(entry);
    if (!before.includes('xlink:href=')) continue;
    const base = streamBase(entry.name);
    const updated = editTags(
      before,
      /<[^<>!?]*\bxlink:href="[^"]*"[^<>]*>/g,
      'xlink:href',
      base,
      (tag, value, part) => {
        const renamed = renames.get(part);
        if (renamed === undefined) return undefined;
        const named = setAttribute(tag, 'xlink:href', withExtension(value, part, renamed, base));
        const type = MIME[extensionFormat(renamed)];
        // LibreOffice writes the picture's type beside the link (`draw:mime-type`, `loext:mime-type`).
        return type === undefined
          ? named
          : named.replace(/\b(\w+:mime-type)="image\/[^"]*"/g, `$1="${type}"`);
      },
    );
    setText(entry, before, updated);
  }
}

/** `jpeg` for .jpg/.jpeg, `png` for .png: the image format a part's extension names. */
export function extensionFormat(name: string): string {
  const extension = posix.extname(name).slice(1).toLowerCase();
  return extension === 'jpg' ? 'jpeg' : extension;
}
