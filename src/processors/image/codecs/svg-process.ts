/**
 * Runs SVG work in a killable child process (svg-child.ts) through the shared tool runner: svgo and
 * librsvg cannot be interrupted in-process, and an 8.6 MB SVG once froze every request of the service
 * for over ten minutes. The child reads and writes files in the job's work directory, under the job's
 * deadline and a memory limit.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Metadata } from 'sharp';
import { UnprocessableInputError } from '../../../errors/catalog.ts';
import { nodeChildEnvironment } from '../../shared/node-child.ts';
import { runTool, type ToolRun } from '../../shared/run-tool.ts';
import type { FilterLoad } from './svg-filters.ts';

const CHILD = fileURLToPath(new URL('./svg-child.ts', import.meta.url));

/**
 * What the child reads of the project inside the sandbox, read-only: the source it imports, the packages
 * (sharp and its libvips), svgo bundled at set-up (dist/vendor, the `#svgo` import) and package.json (the
 * module type and that import). Never the project folder whole: the default data directory lies inside it.
 */
const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const CHILD_FILES = ['src', 'node_modules', join('dist', 'vendor'), 'package.json'].map((name) =>
  join(ROOT, name),
);

/**
 * Node needs about 0.8 GiB of RLIMIT_DATA just to start (V8 reserves its heap and code ranges); svgo on
 * the largest accepted SVG stays under 1 GiB of heap; a 50 MP render is 200 MB per RGBA surface and
 * filters keep a few.
 */
const MEMORY_BYTES = 3 * 1024 ** 3;
const HEAP_MB = 1536;

async function runChild(args: string[], run: ToolRun): Promise<Record<string, unknown>> {
  const { stdout } = await runTool(
    process.execPath,
    [`--max-old-space-size=${HEAP_MB}`, CHILD, ...args],
    run,
    {
      label: 'The SVG processor',
      captureStdout: true,
      limits: { memoryBytes: MEMORY_BYTES },
      programFiles: CHILD_FILES,
      env: nodeChildEnvironment(CHILD_FILES),
    },
  );
  const reply = JSON.parse(stdout) as Record<string, unknown>;
  if (typeof reply.error === 'string') throw new UnprocessableInputError(reply.error);
  return reply;
}

export interface SanitisedSvgFile {
  /** sharp's header of the sanitised SVG (intrinsic size at 72 dpi). */
  meta: Metadata;
  filters: FilterLoad;
}

/** Sanitises and (unless `optimise` is false) optimises `input` into `output`. */
export async function sanitiseSvgFile(
  input: string,
  output: string,
  optimise: boolean,
  run: ToolRun,
): Promise<SanitisedSvgFile> {
  const reply = await runChild(['sanitise', input, output, optimise ? '1' : '0'], run);
  return reply as unknown as SanitisedSvgFile;
}

/** Draws `input` to a PNG at `density` dpi; librsvg refuses more than `maxPixels`. */
export async function renderSvgFile(
  input: string,
  output: string,
  density: number,
  maxPixels: number,
  run: ToolRun,
): Promise<void> {
  await runChild(['render', input, output, String(density), String(maxPixels)], run);
}
