/**
 * The SVG limits checked on the service's own thread before any SVG work: size, element count, entity
 * declarations, nesting depth, each by one linear pass over the text. Apart from svg.ts so the service
 * process never loads svgo (26 MB of RSS), which only the SVG child process (svg-child.ts) runs.
 */
import { UnprocessableInputError } from '../../../errors/catalog.ts';

export interface SvgLimits {
  svgMaxBytes: number;
  svgMaxDepth: number;
  svgMaxElements: number;
}

/**
 * Refuses an SVG that is too large, has too many elements, is too deeply nested, or declares entities
 * (expansion bombs). The element count comes first: it is one linear scan, and svgo's cost grows faster
 * than the file (430 KB took 6.4 s, 861 KB 18 s; 160,000 `<rect>` in 8.6 MB ran for over 10 minutes).
 */
export function checkSvgLimits(text: string, bytes: number, limits: SvgLimits): void {
  if (bytes > limits.svgMaxBytes) {
    throw new UnprocessableInputError(
      `The SVG is ${bytes} bytes; this server accepts SVGs of at most ${limits.svgMaxBytes} bytes.`,
    );
  }
  const elements = countElements(text);
  if (elements > limits.svgMaxElements) {
    throw new UnprocessableInputError(
      `The SVG has ${elements} elements; this server accepts at most ${limits.svgMaxElements}.`,
    );
  }
  if (/<!ENTITY/i.test(text)) {
    throw new UnprocessableInputError('SVGs that declare XML entities are not accepted.');
  }
  const depth = nestingDepth(text);
  if (depth > limits.svgMaxDepth) {
    throw new UnprocessableInputError(
      `The SVG nests elements ${depth} deep; this server accepts at most ${limits.svgMaxDepth}.`,
    );
  }
}

/** Start tags (and a few comments or CDATA sections that look like them: an upper bound), by one scan. */
export function countElements(text: string): number {
  let count = 0;
  for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
    const next = text.charCodeAt(at + 1);
    // A-Z, a-z, '_' or ':' open an element; '/', '!' and '?' do not.
    if ((next >= 65 && next <= 90) || (next >= 97 && next <= 122) || next === 95 || next === 58) count++;
  }
  return count;
}

/** Where each kind of markup that holds no element ends; a `<!` of none of these ends at its `>`. */
const SKIPPED = [
  ['<!--', '-->'],
  ['<![CDATA[', ']]>'],
  ['<?', '?>'],
  ['<!', '>'],
] as const;

/**
 * Deepest element nesting, from one forward scan of the tags (no parser recursion, no regular
 * expression: the tag pattern this replaces backtracked cubically, and 8 KB of `<a` without `>` held the
 * event loop for two minutes). Every step moves past what it read, so the scan is linear in the text.
 * Comments, CDATA, processing instructions and declarations hold no element; a quoted attribute value
 * may hold `>`. Malformed text ends the scan where a well-formed document could not go on (an unclosed
 * comment or quote): svgo's strict parser refuses such a file anyway.
 */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let at = text.indexOf('<');
  while (at !== -1) {
    const skipped = SKIPPED.find(([open]) => text.startsWith(open, at));
    if (skipped !== undefined) {
      const end = text.indexOf(skipped[1], at + skipped[0].length);
      if (end === -1) break;
      at = text.indexOf('<', end + skipped[1].length);
      continue;
    }
    const closing = text.charCodeAt(at + 1) === 47; // '/'
    if (!isNameStart(text.charCodeAt(at + (closing ? 2 : 1)))) {
      at = text.indexOf('<', at + 1);
      continue;
    }
    const end = tagEnd(text, at + 1);
    if (end === -1) break;
    if (closing) depth--;
    else if (text.charCodeAt(end - 1) !== 47) max = Math.max(max, ++depth);
    at = text.indexOf('<', end + 1);
  }
  return max;
}

/** A-Z, a-z, '_' or ':' (the characters that can open an element name). */
function isNameStart(code: number): boolean {
  return (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 58;
}

/** The index of the `>` that ends the tag whose name starts at `from`, past quoted values; -1 if none. */
function tagEnd(text: string, from: number): number {
  for (let at = from; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 62) return at; // '>'
    if (code === 34 || code === 39) {
      // '"' or "'": the value runs to the same quote.
      at = text.indexOf(code === 34 ? '"' : "'", at + 1);
      if (at === -1) return -1;
    }
  }
  return -1;
}
