/**
 * External links taken out of the copy of an office package LibreOffice opens. LibreOffice draws a linked
 * picture from wherever its link points when it lays a document out (measured: a DOCX, XLSX or PPTX picture
 * with `TargetMode="External"` and a `file:///` target, an ODF `draw:image`, background, fill or bullet
 * image with a `file:///` URL, an absolute path or a `../` path, all rendered the file's pixels into the
 * PDF; a PPTX OLE object linked to a text file printed the file's text), so a document could make the
 * server read its own files into the output. What stays:
 * - OOXML: relationships to parts inside the package, and external hyperlinks that the part they belong to
 *   uses only as hyperlinks (LibreOffice follows a relationship whatever its declared type: a picture
 *   linked through a `hyperlink` relationship was drawn). Every other relationship whose target leaves the
 *   package (`TargetMode` other than `Internal`, a URL, a network path) is removed.
 * - ODF: an element whose link (`xlink:href` in any prefix, XInclude and XForms `href`/`src`, form image and
 *   data-source URLs, database names, DDE topics; in OOXML parts VML `src` and `o:href` and the sources of
 *   SpreadsheetML data connections) leaves the package is removed with its content; a picture,
 *   object, plug-in or floating frame goes with its `draw:frame` (an OLE link's replacement picture is the
 *   linked file drawn). Hyperlinks (`text:a`, `draw:a`) are kept: nothing reads them while laying out.
 * The document converts without the linked content. A part LibreOffice would parse in another encoding
 * than the one scanned, or with a document type declaration, is refused. The user's own output of a
 * compression keeps its links: only LibreOffice's copy, which the server renders, is edited.
 */
import { posix } from 'node:path';
import { UnprocessableInputError } from '../../errors/catalog.ts';
import { readXmlPart, removeRanges, setXmlPart } from './xml-part.ts';
import { MalformedXmlError, type XmlEvent, type XmlName, type XmlStartTag, xmlEvents } from './xml-scan.ts';
import type { ZipEntry } from './zip.ts';

const XLINK = 'http://www.w3.org/1999/xlink';
const VML = 'urn:schemas-microsoft-com:vml';
const VML_OFFICE = 'urn:schemas-microsoft-com:office:office';
/** SpreadsheetML data connections: where a query or text import would read from. */
const CONNECTION_SOURCES: Record<string, string> = { webPr: 'url', textPr: 'sourceFile', dbPr: 'connection' };
const RELATIONSHIPS = new Set([
  'http://schemas.openxmlformats.org/officeDocument/2006/relationships',
  'http://purl.oclc.org/ooxml/officeDocument/relationships',
]);
/** Elements whose relationship id is a hyperlink: WordprocessingML, SpreadsheetML and DrawingML. */
const HYPERLINK_ELEMENTS = new Set(['hyperlink', 'hlinkClick', 'hlinkHover', 'hlinkMouseOver']);
/** ODF frame content drawn from its link. */
const FRAME_CONTENT = new Set(['image', 'object', 'object-ole', 'plugin', 'floating-frame', 'applet']);

/**
 * Removes what links outside the package from `entries` (edited in place); returns how many links went.
 * `signal` stops a long scan (the job's abort or its time budget) at its next turn.
 */
export async function dropExternalLinks(entries: ZipEntry[], signal?: AbortSignal): Promise<number> {
  let dropped = 0;
  for (const entry of entries) {
    const lower = entry.name.toLowerCase();
    if (lower.endsWith('.rels')) dropped += await dropRelationships(entries, entry, signal);
    else if (lower.endsWith('.xml') && !lower.startsWith('meta-inf/'))
      dropped += await dropOdfLinks(entry, signal);
  }
  return dropped;
}

/**
 * The namespace LibreOffice reads a URI as: ODF namespaces by their sub-id whatever the committee or
 * version spelled (xmloff normalises `urn:oasis:names:tc:*:xmlns:<sub>:1.*`), XForms by its suffix.
 */
function namespaceKey(uri: string | undefined): string | undefined {
  if (uri === undefined) return undefined;
  const at = uri.indexOf(':xmlns:');
  if (uri.startsWith('urn:oasis:names:tc:') && at >= 0) {
    const sub = uri.slice(at + 7);
    return `odf:${sub.includes(':') ? sub.slice(0, sub.indexOf(':')) : sub}`;
  }
  if (uri.startsWith('http://www.w3.org/') && uri.endsWith('/xforms')) return 'xforms';
  if (uri.startsWith('http://www.w3.org/') && uri.includes('/XInclude')) return 'xinclude';
  return uri === XLINK ? 'xlink' : uri;
}

/** `name` is `local` in the ODF namespace `sub` (by URI, or by the usual prefix when the URI is unknown). */
function isOdf(name: XmlName, sub: string, local: string): boolean {
  if (name.local !== local) return false;
  return namespaceKey(name.uri) === `odf:${sub}` || name.qualified === `${sub}:${local}`;
}

/** Whether an attribute of `element` is a link LibreOffice may follow. */
function isLinkAttribute(element: XmlName, attribute: XmlName): boolean {
  const { local } = attribute;
  if (local === 'href' && (namespaceKey(attribute.uri) === 'xlink' || attribute.qualified === 'xlink:href'))
    return true;
  const elementKey = namespaceKey(element.uri);
  if (attribute.uri === undefined && (elementKey === 'xforms' || elementKey === 'xinclude'))
    return ['href', 'src', 'action', 'resource'].includes(local);
  // VML pictures by URL (LibreOffice reads them through relationships only, measured; kept out all the same).
  if (attribute.uri === undefined && element.uri === VML) return local === 'src';
  if (attribute.uri === VML_OFFICE) return local === 'href';
  if (attribute.uri === undefined && CONNECTION_SOURCES[element.local] === local) return true;
  return (
    isOdf(attribute, 'form', 'image-data') ||
    isOdf(attribute, 'form', 'datasource') ||
    isOdf(attribute, 'text', 'database-name') ||
    isOdf(attribute, 'table', 'database-name') ||
    isOdf(attribute, 'office', 'dde-topic')
  );
}

/**
 * Whether `value`, resolved from the package directory `base`, names a part of the package: no scheme or
 * drive letter, no absolute or network path, no `..` that climbs out (percent-decoded or not: a URI
 * reader may decode it). `#bookmark` references stay inside the document.
 */
export function staysInPackage(value: string, base: string): boolean {
  const trimmed = value.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return true;
  let decoded = trimmed;
  try {
    decoded = decodeURIComponent(trimmed);
  } catch {
    // A malformed escape is read as written.
  }
  return [trimmed, decoded].every((spelling) => {
    const path = spelling.replaceAll('\\', '/');
    if (path.includes(':') || path.startsWith('/')) return false;
    const normal = posix.normalize(posix.join(base === '' ? '.' : base, path));
    return normal !== '..' && !normal.startsWith('../');
  });
}

async function dropOdfLinks(entry: ZipEntry, signal: AbortSignal | undefined): Promise<number> {
  const xml = readXmlPart(entry);
  const base = posix.dirname(entry.name) === '.' ? '' : posix.dirname(entry.name);
  const open: { tag: XmlStartTag; remove: boolean }[] = [];
  const ranges: [number, number][] = [];
  let dropped = 0;
  for await (const event of checked(entry, xmlEvents(xml), signal)) {
    if (event.kind === 'end') {
      const closed = open.pop();
      if (closed?.remove) ranges.push([closed.tag.start, event.end]);
      continue;
    }
    const tag = event;
    const external =
      !(isOdf(tag.name, 'text', 'a') || isOdf(tag.name, 'draw', 'a')) &&
      tag.attributes.some(
        (attribute) => isLinkAttribute(tag.name, attribute.name) && !staysInPackage(attribute.value, base),
      );
    const parent = open.at(-1);
    let removeSelf = false;
    if (external) {
      dropped++;
      const inFrame = parent !== undefined && isOdf(parent.tag.name, 'draw', 'frame');
      if (inFrame && FRAME_CONTENT.has(tag.name.local)) parent.remove = true;
      else removeSelf = true;
    }
    if (tag.selfClosing) {
      if (removeSelf) ranges.push([tag.start, tag.end]);
    } else open.push({ tag, remove: removeSelf });
  }
  if (dropped > 0) setXmlPart(entry, removeRanges(xml, ranges));
  return dropped;
}

/** The source part a relationships part belongs to (`word/_rels/document.xml.rels` -> `word/document.xml`). */
function sourcePartName(relsName: string): string | undefined {
  const dir = posix.dirname(posix.dirname(relsName));
  const file = posix.basename(relsName).slice(0, -'.rels'.length);
  if (file === '') return undefined; // _rels/.rels: the package's own relationships
  return dir === '.' ? file : `${dir}/${file}`;
}

async function dropRelationships(
  entries: readonly ZipEntry[],
  rels: ZipEntry,
  signal: AbortSignal | undefined,
): Promise<number> {
  const xml = readXmlPart(rels);
  const base = posix.dirname(posix.dirname(rels.name));
  const candidates: { start: number; end: number; id: string; hyperlink: boolean }[] = [];
  // The candidate each open element is (or undefined), so a Relationship's end tag closes its own range.
  const open: ((typeof candidates)[number] | undefined)[] = [];
  for await (const event of checked(rels, xmlEvents(xml), signal)) {
    if (event.kind === 'end') {
      const closed = open.pop();
      if (closed !== undefined) closed.end = event.end;
      continue;
    }
    const candidate = event.name.local === 'Relationship' ? leavingRelationship(event, base) : undefined;
    if (candidate !== undefined) candidates.push(candidate);
    if (!event.selfClosing) open.push(candidate);
  }
  if (candidates.length === 0) return 0;
  const safe = await hyperlinksOnly(
    signal,
    entries,
    rels.name,
    candidates.filter((c) => c.hyperlink).map((c) => c.id),
  );
  const removed = candidates.filter((c) => !(c.hyperlink && safe.has(c.id)));
  if (removed.length > 0)
    setXmlPart(
      rels,
      removeRanges(
        xml,
        removed.map((c) => [c.start, c.end]),
      ),
    );
  return removed.length;
}

/** The relationship as a range to remove when its target leaves the package; undefined when it stays. */
function leavingRelationship(
  tag: XmlStartTag,
  base: string,
): { start: number; end: number; id: string; hyperlink: boolean } | undefined {
  const attribute = (name: string) => tag.attributes.find((a) => a.name.local === name)?.value;
  const mode = attribute('TargetMode')?.trim();
  const target = attribute('Target') ?? '';
  // An internal target is a part name: absolute from the package root, or relative to the source's folder.
  const absolute = target.startsWith('/');
  const internal = staysInPackage(absolute ? target.slice(1) : target, absolute || base === '.' ? '' : base);
  if ((mode === undefined || mode === 'Internal') && internal) return undefined;
  const type = attribute('Type') ?? '';
  return {
    start: tag.start,
    end: tag.end,
    id: attribute('Id') ?? '',
    hyperlink: type.endsWith('/hyperlink'),
  };
}

/**
 * Of the relationship ids `ids`, those the source part uses only as a hyperlink's `r:id`: any other use
 * (a picture's `r:link`, an OLE object's `r:id`, a VML `o:relid`) reads the target.
 */
async function hyperlinksOnly(
  signal: AbortSignal | undefined,
  entries: readonly ZipEntry[],
  relsName: string,
  ids: string[],
): Promise<Set<string>> {
  const source = sourcePartName(relsName)?.toLowerCase();
  const part = entries.find((e) => e.name.toLowerCase() === source);
  if (ids.length === 0 || part === undefined) return new Set();
  const wanted = new Set(ids);
  const misused = new Set<string>();
  for await (const event of checked(part, xmlEvents(readXmlPart(part)), signal)) {
    if (event.kind !== 'start') continue;
    for (const { name, value } of event.attributes) {
      if (!wanted.has(value)) continue;
      const asHyperlink =
        name.local === 'id' && RELATIONSHIPS.has(name.uri ?? '') && HYPERLINK_ELEMENTS.has(event.name.local);
      if (!asHyperlink) misused.add(value);
    }
  }
  return new Set(ids.filter((id) => !misused.has(id)));
}

/** Events scanned between two turns of the event loop: a 27 MB part takes under a second to scan. */
const EVENTS_PER_TURN = 20_000;

/**
 * The events, with a document type declaration or malformed markup refused as the input's fault; every
 * `EVENTS_PER_TURN` events the event loop gets a turn, so a large part does not stall other requests.
 */
async function* checked(
  entry: ZipEntry,
  events: Generator<XmlEvent>,
  signal: AbortSignal | undefined,
): AsyncGenerator<Exclude<XmlEvent, { kind: 'doctype' }>> {
  let count = 0;
  try {
    for (const event of events) {
      if (event.kind === 'doctype') {
        throw new UnprocessableInputError(
          `The document's part ${entry.name} declares a document type (<!DOCTYPE>): office documents never ` +
            'do, and its entities could name files on the server.',
        );
      }
      if (++count % EVENTS_PER_TURN === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
      }
      yield event;
    }
  } catch (error) {
    if (!(error instanceof MalformedXmlError)) throw error;
    throw new UnprocessableInputError(`The document's part ${entry.name} is not well-formed XML.`, error);
  }
}
