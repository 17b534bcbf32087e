/**
 * The test tiers, in one place. Every test file is in one of three:
 * - heavy: it runs LibreOffice, ffmpeg/ffprobe or Chromium, or starts a second Presso process (`presso serve`,
 *   the CLI). Listed below (HEAVY). They are slow and take the CPU from each other, so `npm test` runs them
 *   last, PRESSO_TEST_HEAVY_JOBS at once.
 * - server: it starts a real Presso over HTTPS in its own process (test/support/presso.ts: `startTestPresso`,
 *   `spawnPresso`, `createAccountCli`). Found by reading the file, so no list can drift.
 * - fast: the rest: unit, contract and `inject` tests (test/support/http-app.ts). `npm run test:fast`.
 *
 * The heavy list is checked by running it: test/run/probe.ts writes down every heavy tool a test file starts,
 * and test/run/run-tests.ts fails any run in which a file not listed here started one, naming the file and the
 * tool.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type Tier = 'fast' | 'server' | 'heavy';

/** Folders and files of the heavy tier (a folder ends with `/`), by what they run. */
export const HEAVY: readonly string[] = [
  // LibreOffice
  'test/processors/document/',
  // ffmpeg
  'test/processors/audio/',
  'test/processors/ffmpeg/',
  'test/processors/video/',
  // Chromium
  'test/dashboard/',
  'test/processors/bundle/',
  // a second Presso process
  'test/scaled/',
  'test/cli/',
  'test/api/failed-start.test.ts',
  'test/api/full-disk.test.ts',
  'test/api/restart.test.ts',
  'test/architecture/idle-modules.test.ts',
  'test/errors/cli-usage.test.ts',
];

/** A call that starts a real Presso (test/support/presso.ts) in the test file's own text. */
const STARTS_A_SERVER = /\b(?:startTestPresso|spawnPresso|createAccountCli)\(/;

/**
 * The heavy tools, by program name (not `libreoffice`: the sandbox binds /etc/libreoffice for every tool);
 * a Presso child is `src/cli/main.ts` (or bin/presso) on a command line.
 */
const HEAVY_PROGRAMS = new Map([
  ['soffice', 'LibreOffice'],
  ['soffice.bin', 'LibreOffice'],
  ['ffmpeg', 'ffmpeg'],
  ['ffprobe', 'ffmpeg'],
  ['chromium', 'Chromium'],
  ['chrome', 'Chromium'],
  ['headless_shell', 'Chromium'],
]);

const root = resolve(import.meta.dirname, '..', '..');

export function isHeavy(file: string): boolean {
  const path = file.replace(/^\.\//, '');
  return HEAVY.some((entry) => (entry.endsWith('/') ? path.startsWith(entry) : path === entry));
}

/** The tier of a test file (a path from the repository's root). */
export function tierOf(file: string): Tier {
  if (isHeavy(file)) return 'heavy';
  return STARTS_A_SERVER.test(readFileSync(resolve(root, file), 'utf8')) ? 'server' : 'fast';
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
