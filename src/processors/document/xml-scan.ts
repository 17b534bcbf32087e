/**
 * A linear scan of an XML part into start and end tags with their names resolved through the namespace
 * declarations in scope, for the checks that must see what LibreOffice's parser sees: a link written
 * `zz:href` under `xmlns:zz="http://www.w3.org/1999/xlink"` is an `xlink:href` to it, and a value spelled
 * with character references (`&#102;ile:`) is the same URL. Every step finds its end with indexOf, so each
 * character is looked at a bounded number of times whatever the input holds (no regular expression meets
 * the part). Comments, processing instructions and CDATA are passed over; a document type declaration is
 * reported, so the caller can refuse it (entities can name files). Malformed markup throws.
 */

export const XML_NAMESPACE = 'http://www.w3.org/XML/1998/namespace';

export interface XmlName {
  /** As written, `prefix:local` or `local`. */
  qualified: string;
  local: string;
  /** The namespace the prefix is bound to; undefined for an unprefixed attribute or an unbound prefix. */
  uri: string | undefined;
}

export interface XmlAttribute {
  name: XmlName;
  /** The value with its entity and character references replaced. */
  value: string;
}

export interface XmlStartTag {
  kind: 'start';
  name: XmlName;
  attributes: XmlAttribute[];
  /** Offsets of `<` and just after `>` in the text. */
  start: number;
  end: number;
  selfClosing: boolean;
}

export interface XmlEndTag {
  kind: 'end';
  start: number;
  end: number;
}

export interface XmlDoctype {
  kind: 'doctype';
  start: number;
}

export type XmlEvent = XmlStartTag | XmlEndTag | XmlDoctype;

export class MalformedXmlError extends Error {}

const SPACE = new Set([' ', '\t', '\r', '\n']);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The events of `xml` in document order. */
export function* xmlEvents(xml: string): Generator<XmlEvent> {
  // Per prefix, the stack of namespaces bound to it; per open element, the prefixes it declared. Looking a
  // prefix up and undoing an element's declarations cost what was declared, never the depth.
  const bindings = new Map<string, string[]>([['xml', [XML_NAMESPACE]]]);
  const declared: string[][] = [];
  const bind = (prefix: string, uri: string) => {
    const stack = bindings.get(prefix);
    if (stack === undefined) bindings.set(prefix, [uri]);
    else stack.push(uri);
  };
  const unbind = (prefixes: string[]) => {
    for (const prefix of prefixes) bindings.get(prefix)!.pop();
  };
  const resolve = (qualified: string, element: boolean): XmlName => {
    const colon = qualified.indexOf(':');
    const prefix = colon < 0 ? '' : qualified.slice(0, colon);
    const local = colon < 0 ? qualified : qualified.slice(colon + 1);
    // An unprefixed attribute is in no namespace; an unprefixed element is in the default one.
    const uri = colon < 0 && !element ? undefined : bindings.get(prefix)?.at(-1) || undefined;
    return { qualified, local, uri };
  };
  let at = xml.indexOf('<');
  while (at >= 0) {
    if (xml.startsWith('<?', at)) at = after(xml, '?>', at);
    else if (xml.startsWith('<!--', at)) at = after(xml, '-->', at);
    else if (xml.startsWith('<![CDATA[', at)) at = after(xml, ']]>', at);
    else if (xml.startsWith('<!', at)) {
      yield { kind: 'doctype', start: at };
      return;
    } else if (xml.startsWith('</', at)) {
      const end = after(xml, '>', at);
      const prefixes = declared.pop();
      if (prefixes === undefined) throw new MalformedXmlError(`an end tag without a start at ${at}`);
      unbind(prefixes);
      yield { kind: 'end', start: at, end };
      at = end;
    } else {
      const tag = readStartTag(xml, at);
      const prefixes: string[] = [];
      for (const { qualified, value } of tag.raw) {
        const prefix =
          qualified === 'xmlns' ? '' : qualified.startsWith('xmlns:') ? qualified.slice(6) : undefined;
        if (prefix === undefined) continue;
        bind(prefix, value);
        prefixes.push(prefix);
      }
      const attributes = tag.raw
        .filter(({ qualified }) => qualified !== 'xmlns' && !qualified.startsWith('xmlns:'))
        .map(({ qualified, value }) => ({ name: resolve(qualified, false), value }));
      // A repeated attribute (by name, or by namespace and local name) is an error for XML parsers; which
      // of the two a lenient reader keeps is unknown, so the scan refuses rather than guess.
      const seen = new Set(attributes.map(({ name }) => `${name.uri ?? ''} ${name.local}`));
      if (seen.size !== attributes.length || new Set(tag.raw.map((a) => a.qualified)).size !== tag.raw.length)
        throw new MalformedXmlError(`a repeated attribute at ${at}`);
      const event: XmlStartTag = {
        kind: 'start',
        name: resolve(tag.name, true),
        attributes,
        start: at,
        end: tag.end,
        selfClosing: tag.selfClosing,
      };
      if (tag.selfClosing) unbind(prefixes);
      else declared.push(prefixes);
      yield event;
      at = tag.end;
    }
    at = xml.indexOf('<', at);
  }
}

/** The offset just after the first `marker` from `from`. */
function after(xml: string, marker: string, from: number): number {
  const found = xml.indexOf(marker, from + 1);
  if (found < 0) throw new MalformedXmlError(`an unterminated construct at ${from}`);
  return found + marker.length;
}

interface RawTag {
  name: string;
  raw: { qualified: string; value: string }[];
  end: number;
  selfClosing: boolean;
}

function readStartTag(xml: string, start: number): RawTag {
  let at = start + 1;
  const nameEnd = nameEndAt(xml, at);
  if (nameEnd === at) throw new MalformedXmlError(`a tag without a name at ${start}`);
  const tag: RawTag = { name: xml.slice(at, nameEnd), raw: [], end: 0, selfClosing: false };
  at = nameEnd;
  for (;;) {
    while (SPACE.has(xml[at] ?? '')) at++;
    if (at >= xml.length) throw new MalformedXmlError(`an unterminated tag at ${start}`);
    if (xml[at] === '>') return { ...tag, end: at + 1 };
    if (xml.startsWith('/>', at)) return { ...tag, end: at + 2, selfClosing: true };
    const attributeEnd = nameEndAt(xml, at);
    if (attributeEnd === at) throw new MalformedXmlError(`a stray character in the tag at ${start}`);
    const qualified = xml.slice(at, attributeEnd);
    at = attributeEnd;
    while (SPACE.has(xml[at] ?? '')) at++;
    if (xml[at] !== '=') throw new MalformedXmlError(`an attribute without a value at ${start}`);
    at++;
    while (SPACE.has(xml[at] ?? '')) at++;
    const quote = xml[at];
    if (quote !== '"' && quote !== "'") throw new MalformedXmlError(`an unquoted value at ${start}`);
    const close = xml.indexOf(quote, at + 1);
    if (close < 0) throw new MalformedXmlError(`an unterminated value at ${start}`);
    tag.raw.push({ qualified, value: decodeReferences(xml.slice(at + 1, close)) });
    at = close + 1;
  }
}

/** The end of a name starting at `at`: the first space, `=`, `>`, `/` or quote. */
function nameEndAt(xml: string, at: number): number {
  let end = at;
  while (end < xml.length) {
    const c = xml[end]!;
    if (SPACE.has(c) || c === '=' || c === '>' || c === '/' || c === '"' || c === "'" || c === '<') break;
    end++;
  }
  return end;
}

/** Entity and character references replaced, as an XML parser reports an attribute's value. */
export function decodeReferences(raw: string): string {
  if (!raw.includes('&')) return raw;
  let out = '';
  let at = 0;
  for (let amp = raw.indexOf('&'); amp >= 0; amp = raw.indexOf('&', at)) {
    const semi = raw.indexOf(';', amp);
    if (semi < 0) throw new MalformedXmlError('an unterminated reference in a value');
    out += raw.slice(at, amp);
    const name = raw.slice(amp + 1, semi);
    let replaced: string | undefined = ENTITIES[name];
    if (name.startsWith('#')) {
      const code = name[1] === 'x' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      replaced =
        Number.isInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
    }
    if (replaced === undefined) throw new MalformedXmlError(`an unknown reference &${name}; in a value`);
    out += replaced;
    at = semi + 1;
  }
  return out + raw.slice(at);
}
