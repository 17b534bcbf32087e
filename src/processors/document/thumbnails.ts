/**
 * Thumbnails are previews a file manager or an open dialog shows (OOXML `docProps/thumbnail.*`, ODF
 * `Thumbnails/thumbnail.png`); no office suite draws them in the document, and both formats make them
 * optional. They are dropped with every reference to them: the package relationship and the content-type
 * override (OOXML), the manifest entries (ODF). Tens of kilobytes each (72 KB on a LibreOffice sheet
 * with a photo), often a large share of a text document. The caller skips this at `lossless`.
 */
import { posix } from 'node:path';
import { type PackageKind, resolvePart, updateReferences } from './part-references.ts';
import { attributeValue, text } from './xml-text.ts';
import type { ZipEntry } from './zip.ts';

const OOXML_THUMBNAIL_TYPE = /\/relationships\/metadata\/thumbnail["']/;
const ODF_THUMBNAIL = 'Thumbnails/thumbnail.png';

/** Removes the thumbnail parts from `entries` (in place); returns the names removed. */
export function dropThumbnails(entries: ZipEntry[], kind: PackageKind): string[] {
  const drop = kind === 'ooxml' ? ooxmlThumbnails(entries) : odfThumbnails(entries);
  if (drop.size === 0) return [];
  const removed = entries.filter((e) => drop.has(e.name)).map((e) => e.name);
  for (let i = entries.length - 1; i >= 0; i--) if (drop.has(entries[i]!.name)) entries.splice(i, 1);
  updateReferences(entries, kind, new Map(), drop);
  return removed;
}

/** The parts the package's thumbnail relationships name, and any `docProps/thumbnail.*` besides. */
function ooxmlThumbnails(entries: readonly ZipEntry[]): Set<string> {
  const drop = new Set(
    entries.filter((e) => /^docProps\/thumbnail\.[^/]+$/i.test(e.name)).map((e) => e.name),
  );
  const rels = entries.find((e) => e.name === '_rels/.rels');
  for (const tag of (rels === undefined ? '' : text(rels)).match(/<Relationship\b[^<>]*>/g) ?? []) {
    if (!OOXML_THUMBNAIL_TYPE.test(tag) || attributeValue(tag, 'TargetMode') === 'External') continue;
    const target = attributeValue(tag, 'Target');
    const part = target === undefined ? undefined : resolvePart(target, '');
    if (part !== undefined && entries.some((e) => e.name === part)) drop.add(part);
  }
  return drop;
}

/** `Thumbnails/thumbnail.png`, and the folder's own entry when nothing else is left in it. */
function odfThumbnails(entries: readonly ZipEntry[]): Set<string> {
  if (!entries.some((e) => e.name === ODF_THUMBNAIL)) return new Set();
  const folder = `${posix.dirname(ODF_THUMBNAIL)}/`;
  const others = entries.some(
    (e) => e.name.startsWith(folder) && e.name !== folder && e.name !== ODF_THUMBNAIL,
  );
  return new Set(others ? [ODF_THUMBNAIL] : [ODF_THUMBNAIL, folder]);
}
