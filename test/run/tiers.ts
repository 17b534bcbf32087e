/**
 * The test tiers, in one place. A test file is heavy if it runs LibreOffice, ffmpeg/ffprobe or Chromium, or
 * starts a second Presso process (`presso serve`, the CLI): those are slow, and they take the CPU from each
 * other. Everything else (unit, contract, `inject` and in-process server tests) is the fast tier,
 * `npm run test:fast`. `npm test` runs both, the heavy files with a concurrency of their own.
 *
 * The rule is checked by running it: test/run/probe.ts writes down every heavy tool a test file starts, and
 * test/run/run-tests.ts fails any run in which a fast-tier file started one, naming the file and the tool.
 */

/** Folders and files of the heavy tier (a folder ends with `/`). */
export const HEAVY: readonly string[] = [];

/** The heavy tools, by program name; a Presso child is `src/cli/main.ts` on a node command line. */
const HEAVY_PROGRAMS = new Map([
  ['soffice', 'LibreOffice'],
  ['soffice.bin', 'LibreOffice'],
  ['libreoffice', 'LibreOffice'],
  ['ffmpeg', 'ffmpeg'],
  ['ffprobe', 'ffmpeg'],
  ['chromium', 'Chromium'],
  ['chrome', 'Chromium'],
  ['headless_shell', 'Chromium'],
]);

export function isHeavy(file: string): boolean {
  const path = file.replace(/^\.\//, '');
  return HEAVY.some((entry) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry));
}

/** The heavy tool a command line runs (any word of it: the tool runner puts prlimit and bwrap first). */
export function heavyToolOf(words: readonly string[]): string | undefined {
  for (const word of words) {
    const name = word.slice(word.lastIndexOf('/') + 1);
    const tool = HEAVY_PROGRAMS.get(name);
    if (tool !== undefined) return tool;
    if (word.endsWith('src/cli/main.ts') || word.endsWith('bin/presso')) return 'a second Presso process';
  }
  return undefined;
}
