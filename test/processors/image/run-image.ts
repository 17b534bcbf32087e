/** Runs the image processor on a real file the way the job runner does: detected input, private work dir. */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { detectFile } from '../../../src/media/detect.ts';
import { createImageProcessor } from '../../../src/processors/image/image-processor.ts';
import type { ProcessResult } from '../../../src/processors/processor.ts';

/**
 * Tests judge outputs, not speed: the time budget is far above the 2 min default so a machine busy with
 * other work (load 20 on 2 cores was seen) cannot fail a quality test. limits.test.ts tests the budget.
 */
export const TEST_TIME_BUDGET_MS = 30 * 60_000;

export const processor = createImageProcessor({
  timeBudgetMs: TEST_TIME_BUDGET_MS,
  timeFloorMs: TEST_TIME_BUDGET_MS,
});

const workDirs: string[] = [];

export async function runImage(
  path: string,
  params: Record<string, unknown> = {},
  options: { wantMetadata?: boolean; signal?: AbortSignal } = {},
): Promise<ProcessResult & { inputSize: number; outputSize: number; ms: number }> {
  const detected = await detectFile(path);
  if (detected === undefined) throw new Error(`test input not detected: ${path}`);
  const workDir = await mkdtemp(join(tmpdir(), 'presso-image-'));
  workDirs.push(workDir);
  const inputSize = (await stat(path)).size;
  const started = performance.now();
  const result = await processor.process({
    input: { ...detected, path, name: basename(path), size: inputSize },
    params,
    workDir,
    signal: options.signal ?? new AbortController().signal,
    wantMetadata: options.wantMetadata ?? false,
  });
  const ms = Math.round(performance.now() - started);
  return { ...result, inputSize, outputSize: (await stat(result.path)).size, ms };
}

export async function removeWorkDirs(): Promise<void> {
  await Promise.all(workDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}
