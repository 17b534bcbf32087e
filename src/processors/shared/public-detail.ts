/**
 * Library and tool messages made fit for a client: they name server paths (libvips: "/srv/data/work/
 * <job>/input: bad seek to 9079"), which the public message of an error must never show.
 */

/** The text without `workDir`, absolute paths (as `<file>`), control characters or runs of space; short. */
export function publicDetail(text: string, workDir?: string): string {
  const relative = workDir === undefined || workDir === '' ? text : text.split(workDir).join('');
  return relative
    .replace(/[\p{Cc}\p{Cf}]/gu, ' ')
    .replace(/(^|[\s'"`(=:,[])(?:[A-Za-z]:)?[/\\][^\s'"`),;:\]]*/g, '$1<file>')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
}
