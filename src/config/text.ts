/**
 * `text` without its trailing `/`s, by a loop: `text.replace(/\/+$/, '')` is quadratic on a long run of
 * slashes followed by another character (a connector endpoint is the caller's text).
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 47) end--;
  return text.slice(0, end);
}
