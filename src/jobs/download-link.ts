/**
 * The file-name segment of a temporary download link. A name of up to 200 characters is allowed
 * (media/formats.ts safeFileName), but a segment longer than 100 characters met the router's limit and
 * the link answered 414, so a long name is shortened in the link only: the download's
 * Content-Disposition and the result's descriptor keep the whole name.
 */

/** Longest percent-encoded name segment a link carries. */
export const MAX_LINK_NAME_LENGTH = 100;

/** `name` percent-encoded, shortened (before its extension) to at most MAX_LINK_NAME_LENGTH characters. */
export function linkName(name: string): string {
  const encoded = encodeURIComponent(name);
  if (encoded.length <= MAX_LINK_NAME_LENGTH) return encoded;
  const dot = name.lastIndexOf('.');
  const extension = dot > 0 && name.length - dot <= 12 ? encodeURIComponent(name.slice(dot)) : '';
  const stem = Array.from(dot > 0 && extension ? name.slice(0, dot) : name);
  let kept = '';
  for (const char of stem) {
    const next = kept + encodeURIComponent(char);
    if (next.length + extension.length > MAX_LINK_NAME_LENGTH) break;
    kept = next;
  }
  return kept + extension;
}
