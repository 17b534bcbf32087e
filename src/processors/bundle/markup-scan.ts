/**
 * Finds CSS `url(...)` references and HTML `<img>` tags in a site's files by forward scans that never read
 * a character twice over: the regular expressions they replace backtracked on an uploaded page
 * (`url\(\s*(["']?)([^"')]+)\1\s*\)` cubically on many `url(` without `)`, `<img\b[^>]*>` quadratically on
 * many `<img` without `>`). Each finds exactly what its pattern found, so the rewritten files do not change.
 */

/** What JavaScript's `\s` matches (WhiteSpace and LineTerminator, the set `trim()` removes). */
const isSpace = (text: string, at: number) => at < text.length && text[at]!.trim() === '';

/** ASCII letters compared without case, as a non-Unicode `i` pattern compares them. */
const isLetter = (text: string, at: number, lower: string) =>
  (text.charCodeAt(at) | 0x20) === lower.charCodeAt(0);

const isWordCharacter = (code: number) =>
  (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95;

/**
 * Remembers the last run it scanned: a query that starts inside that run gets its end without reading it
 * again, so queries from increasing positions read each character at most once.
 */
function cachedScan(text: string, stops: (at: number) => boolean): (from: number) => number {
  let lastFrom = 0;
  let lastEnd = -1;
  return (from) => {
    if (from >= lastFrom && from <= lastEnd) return lastEnd;
    let at = from;
    while (at < text.length && !stops(at)) at++;
    lastFrom = from;
    lastEnd = at;
    return at;
  };
}

interface CssUrlScans {
  leadingSpaces: (from: number) => number;
  trailingSpaces: (from: number) => number;
  valueEnd: (from: number) => number;
}

export type CssUrlReplacer = (all: string, quote: string, url: string) => string;

/** `css.replace(/url\(\s*(["']?)([^"')]+)\1\s*\)/gi, replace)`, in linear time. */
export function replaceCssUrls(css: string, replace: CssUrlReplacer): string {
  // One scan per kind of run: the spaces after `url(`, the URL, the spaces before `)` each come at
  // increasing positions, which a shared cache would not see.
  const scans: CssUrlScans = {
    leadingSpaces: cachedScan(css, (at) => !isSpace(css, at)),
    trailingSpaces: cachedScan(css, (at) => !isSpace(css, at)),
    valueEnd: cachedScan(css, (at) => {
      const c = css[at];
      return c === '"' || c === "'" || c === ')';
    }),
  };
  let out = '';
  let copied = 0;
  for (let open = css.indexOf('('); open !== -1; ) {
    const start = open - 3;
    const named =
      start >= 0 &&
      isLetter(css, start, 'u') &&
      isLetter(css, start + 1, 'r') &&
      isLetter(css, start + 2, 'l');
    const found = named && start >= copied ? cssUrlAt(css, open + 1, scans) : undefined;
    if (found === undefined) {
      open = css.indexOf('(', open + 1);
      continue;
    }
    out += css.slice(copied, start) + replace(css.slice(start, found.end), found.quote, found.url);
    copied = found.end;
    open = css.indexOf('(', found.end);
  }
  return out + css.slice(copied);
}

/** The reference whose `url(` ends just before `from`, or undefined where the pattern fails there. */
function cssUrlAt(
  css: string,
  from: number,
  scans: CssUrlScans,
): { quote: string; url: string; end: number } | undefined {
  const afterSpaces = scans.leadingSpaces(from);
  const quote = css[afterSpaces] === '"' || css[afterSpaces] === "'" ? css[afterSpaces]! : '';
  const valueStart = afterSpaces + quote.length;
  const stop = scans.valueEnd(valueStart);
  if (quote !== '') {
    if (stop === valueStart || css[stop] !== quote) return undefined;
    const close = scans.trailingSpaces(stop + 1);
    return css[close] === ')' ? { quote, url: css.slice(valueStart, stop), end: close + 1 } : undefined;
  }
  if (css[stop] !== ')') return undefined;
  if (stop > valueStart) return { quote, url: css.slice(valueStart, stop), end: stop + 1 };
  // `url(  )`: the pattern gives its last space back to the URL, which must not be empty.
  return afterSpaces > from ? { quote, url: css.slice(stop - 1, stop), end: stop + 1 } : undefined;
}

/** Each `<img ...>` tag of `html` with its offset: what `/<img\b[^>]*>/gi` matches, in linear time. */
export function* imgTags(html: string): Generator<{ tag: string; offset: number }> {
  for (let at = html.indexOf('<'); at !== -1; ) {
    const named =
      isLetter(html, at + 1, 'i') &&
      isLetter(html, at + 2, 'm') &&
      isLetter(html, at + 3, 'g') &&
      !isWordCharacter(html.charCodeAt(at + 4));
    if (!named) {
      at = html.indexOf('<', at + 1);
      continue;
    }
    const close = html.indexOf('>', at + 4);
    if (close === -1) return; // no later `<img` has a `>` either
    yield { tag: html.slice(at, close + 1), offset: at };
    at = html.indexOf('<', close + 1);
  }
}

/** Whether `text` ends with a `<picture ...>` start tag and spaces: `/<picture\b[^>]*>\s*$/i`. */
export function endsWithPictureTag(text: string): boolean {
  const trimmed = text.trimEnd();
  if (!trimmed.endsWith('>')) return false;
  // The tag's name must come after the `>` before this one.
  for (let at = trimmed.indexOf('<', trimmed.lastIndexOf('>', trimmed.length - 2) + 1); at !== -1; ) {
    const named =
      [...'picture'].every((letter, i) => isLetter(trimmed, at + 1 + i, letter)) &&
      !isWordCharacter(trimmed.charCodeAt(at + 8));
    if (named) return true;
    at = trimmed.indexOf('<', at + 1);
  }
  return false;
}
