/**
 * Text read from an image's EXIF and XMP, which the uploader writes: plain forward scans, never a
 * backtracking regular expression (`/\0+$/` was quadratic on a long run of NULs followed by another
 * character, and the XMP element patterns on many unclosed start tags).
 */

/** `text` without the NULs that pad its end (EXIF strings are NUL-terminated, often NUL-padded). */
export function withoutTrailingNuls(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0) end--;
  return text.slice(0, end);
}

/** A-Z, a-z, 0-9 or '_': what a regular expression's `\b` counts as a word character. */
function isWordCharacter(code: number): boolean {
  return (
    (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code === 95
  );
}

/**
 * The text between the first `<name ...>` that has a `>` and the next `</name>` after it (what
 * `/<name\b[^>]*>([\s\S]*?)<\/name>/` finds), or undefined. Each search starts past the last one.
 */
export function elementText(xml: string, name: string): string | undefined {
  const open = `<${name}`;
  for (let at = xml.indexOf(open); at !== -1; at = xml.indexOf(open, at + 1)) {
    if (isWordCharacter(xml.charCodeAt(at + open.length))) continue; // a longer name
    const contentStart = xml.indexOf('>', at + open.length) + 1;
    if (contentStart === 0) return undefined;
    const end = xml.indexOf(`</${name}>`, contentStart);
    return end === -1 ? undefined : xml.slice(contentStart, end);
  }
  return undefined;
}
