/**
 * Edits to an office document's parts that other parts refer to: a thumbnail dropped, a picture renamed
 * when its format changes. OOXML names parts in relationship files (`_rels/*.rels`, targets relative to
 * the source part's folder) and declares their types in `[Content_Types].xml`; ODF lists every part in
 * `META-INF/manifest.xml` and refers to pictures by path from `content.xml` and `styles.xml`. The edits
 * are textual on those XML parts: the references are plain attribute values.
 */
import type { ZipEntry } from './zip.ts';

/** Document thumbnails: previews a file manager may show, never part of the content. */
const THUMBNAIL = /^(docProps\/thumbnail\.(jpe?g|png|wmf|emf)|Thumbnails\/thumbnail\.png)$/i;

const MEDIA_TYPES: Record<string, string> = { jpeg: 'image/jpeg', jpg: 'image/jpeg', png: 'image/png' };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const isXml = (entry: ZipEntry) => /\.(xml|rels)$/i.test(entry.name);

/** Removes the thumbnail parts and every reference to them; returns how many were dropped. */
export function dropThumbnails(entries: ZipEntry[]): number {
  const dropped = entries.filter((e) => THUMBNAIL.test(e.name)).map((e) => e.name);
  if (dropped.length === 0) return 0;
  for (const name of dropped)
    entries.splice(
      entries.findIndex((e) => e.name === name),
      1,
    );
  for (const entry of entries) {
    if (!isXml(entry)) continue;
    let text = entry.data.toString('utf8');
    const before = text;
    for (const name of dropped) {
      const path = escapeRegExp(name);
      // A relationship, a content-type override or a manifest entry naming the thumbnail, whole.
      text = text
        .replace(new RegExp(`<Relationship\\b[^>]*Target="/?${path}"[^>]*/>`, 'g'), '')
        .replace(new RegExp(`<Override\\b[^>]*PartName="/${path}"[^>]*/>`, 'g'), '')
        .replace(new RegExp(`<manifest:file-entry\\b[^>]*manifest:full-path="${path}"[^>]*/>`, 'g'), '');
    }
    // ODF lists the folder too; it is empty now.
    text = text.replace(/<manifest:file-entry\b[^>]*manifest:full-path="Thumbnails\/"[^>]*\/>/g, '');
    if (text !== before) entry.data = Buffer.from(text, 'utf8');
  }
  return dropped.length;
}

/**
 * Renames parts (`word/media/image1.png` → `word/media/image1.jpeg`) and every reference to them: a
 * relationship target or an ODF link names a picture by its folder and file name (`media/image1.png`,
 * `Pictures/1000….png`), which is unique within the document. The new extension gets its content type.
 */
export function renameParts(entries: ZipEntry[], renames: Map<string, string>): void {
  if (renames.size === 0) return;
  for (const entry of entries) {
    const renamed = renames.get(entry.name);
    if (renamed !== undefined) entry.name = renamed;
  }
  const pairs = [...renames].map(([from, to]) => [tail(from), tail(to)] as const);
  for (const entry of entries) {
    if (!isXml(entry)) continue;
    let text = entry.data.toString('utf8');
    const before = text;
    for (const [from, to] of pairs) {
      // Only whole references: after a quote or a slash, up to the closing quote.
      text = text.replace(new RegExp(`(["/])${escapeRegExp(from)}"`, 'g'), `$1${to}"`);
    }
    if (entry.name === 'META-INF/manifest.xml') text = fixManifestTypes(text, [...renames.values()]);
    if (entry.name === '[Content_Types].xml') text = addDefaultTypes(text, [...renames.values()]);
    if (text !== before) entry.data = Buffer.from(text, 'utf8');
  }
}

/** The last folder and the file name: `word/media/image1.png` → `media/image1.png`. */
function tail(name: string): string {
  return name.split('/').slice(-2).join('/');
}

function extensionOf(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1).toLowerCase();
}

/** ODF: each renamed picture's manifest entry gets the media type of its new format. */
function fixManifestTypes(text: string, names: string[]): string {
  for (const name of names) {
    const type = MEDIA_TYPES[extensionOf(name)];
    if (type === undefined) continue;
    const entry = new RegExp(
      `<manifest:file-entry\\b[^>]*manifest:full-path="${escapeRegExp(name)}"[^>]*/>`,
      'g',
    );
    text = text.replace(entry, (element) =>
      element.replace(/manifest:media-type="[^"]*"/, `manifest:media-type="${type}"`),
    );
  }
  return text;
}

/** OOXML: a `Default` content type for each new extension the package did not declare yet. */
function addDefaultTypes(text: string, names: string[]): string {
  for (const extension of new Set(names.map(extensionOf))) {
    const type = MEDIA_TYPES[extension];
    if (type === undefined || new RegExp(`<Default\\b[^>]*Extension="${extension}"`, 'i').test(text))
      continue;
    text = text.replace(
      /<Types\b[^>]*>/,
      (open) => `${open}<Default Extension="${extension}" ContentType="${type}"/>`,
    );
  }
  return text;
}
