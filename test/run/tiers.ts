/**
 * The test tiers, in one place. Every test file is in one of three:
 * - heavy: it runs LibreOffice, ffmpeg/ffprobe or Chromium, starts a second Presso process (`presso serve`,
 *   the CLI), or needs more than FAST_CPU_MS of CPU (the quality searches). Listed below (HEAVY). They are slow
 *   and take the CPU from each other, so `npm test` runs at most PRESSO_TEST_HEAVY_JOBS of them at once.
 * - server: it starts a real Presso over HTTPS in its own process (test/support/presso.ts: `startTestPresso`,
 *   `spawnPresso`, `createAccountCli`). Found by reading the file, so no list can drift.
 * - fast: the rest: unit, contract and `inject` tests (test/support/http-app.ts). `npm run test:fast`.
 *
 * The heavy list is checked by running it: test/run/probe.ts writes down every heavy tool a test file starts
 * and each file's CPU time; test/run/run-tests.ts fails any run in which a file not listed here started a heavy
 * tool, naming the file and the tool, and warns about a fast file that used more than FAST_CPU_MS.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export type Tier = 'fast' | 'server' | 'heavy';

/** Folders and files of the heavy tier (a folder ends with `/`), by what they run. */
export const HEAVY: readonly string[] = [
  // LibreOffice
  'test/processors/document/',
  'test/bench/cpu-meter.test.ts',
  'test/http/document-upload.test.ts',
  'test/security/office-link-content.test.ts',
  'test/security/office-links.test.ts',
  // ffmpeg (canary: LibreOffice too)
  'test/bench/media-pairing.test.ts',
  'test/processors/audio/',
  'test/processors/ffmpeg/',
  'test/processors/video/',
  'test/processors/shared/time-budget.test.ts',
  'test/http/media.test.ts',
  'test/security/canary.test.ts',
  'test/security/fair-share.test.ts',
  'test/security/hostile-media.test.ts',
  'test/security/sandbox.test.ts',
  'test/client/cli.test.ts',
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
  'test/security/job-secrets.test.ts',
  'test/security/redos.test.ts',
  // CPU: more than FAST_CPU_MS of work (quality searches: many encodes, each scored by the metric)
  'test/processors/image/compression.test.ts',
  'test/processors/image/determinism.test.ts',
  'test/processors/image/encode-child.test.ts',
  'test/processors/image/formats-in.test.ts',
  'test/processors/image/formats-out.test.ts',
  'test/processors/image/formats.test.ts',
  'test/processors/image/geometry.test.ts',
  'test/processors/image/guarantee.test.ts',
  'test/processors/image/limits.test.ts',
  'test/processors/image/memory-release.test.ts',
  'test/processors/image/metadata.test.ts',
  'test/processors/image/png-levels.test.ts',
  'test/processors/image/proxy-search.test.ts',
  'test/processors/image/prepared-reference.test.ts',
  'test/processors/image/quality.test.ts',
  'test/processors/image/search-references.test.ts',
  'test/processors/image/svg-isolation.test.ts', // 4.5 CPU-s with its sandboxed SVG children counted
  'test/processors/image/ssimulacra2-native.test.ts',
  'test/processors/pdf/contract.test.ts',
  'test/processors/pdf/embedded-image-inputs.test.ts',
  'test/processors/pdf/hostile.test.ts',
  'test/processors/pdf/pdf.test.ts',
  'test/processors/archive/archive.test.ts',
  'test/security/archive-links.test.ts',
  'test/security/regex-source.test.ts', // recheck's ReDoS analysis of every pattern of src/: 4.5-4.9 CPU-s
  'test/stores/stores.test.ts',
  // CPU: real encodes of every format, archives at every level, three store emulators (4.1-5.9 CPU-s each
  // measured on a quiet machine; the fast tier's sum must stay under a minute on two cores)
  'test/http/archive-upload.test.ts',
  'test/http/bundle-upload.test.ts',
  'test/http/connectors.test.ts',
  'test/processors/image/contract.test.ts',
  'test/processors/image/png-colour.test.ts',
  'test/security/connector-endpoints-restart.test.ts',
];

/**
 * The CPU time (its tools included) above which a file belongs to the heavy tier, as measured on a quiet
 * 2-core machine: the fast tier is at most about 100 s of CPU in all, under a minute on two cores. The runner
 * warns about a fast file over it (a warning: CPU time differs between machines, the tools do not).
 */
export const FAST_CPU_MS = 4000;

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
