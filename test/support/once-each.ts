/**
 * A processor (the image processor, handed to a bundle, document or PDF processor) whose distinct requests
 * each run once per test file: a repeat (the same input bytes, format and params) gets a copy of the first
 * run's output, or its input back when the first run kept its input. The suites that use it send the same
 * picture several times (the same photo in every office format, the originals of `keep` and `picture`), and
 * what they prove is what the outer processor does with the answer, not the image search again.
 */
import { createHash } from 'node:crypto';
import { copyFile, mkdtemp, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Processor, ProcessResult } from '../../src/processors/processor.ts';

/** `keep`: the folder (getter) first outputs are copied into, as the job's own folder goes with the job. */
export function onceEach(processor: Processor, keep: () => string): Processor {
  const runs = new Map<string, Promise<{ result: ProcessResult; kept?: string }>>();
  return {
    ...processor,
    async process(request) {
      const { input, params } = request;
      const bytes = createHash('sha256')
        .update(await readFile(input.path))
        .digest('hex');
      const key = `${bytes} ${input.format} ${JSON.stringify(params)}`;
      let run = runs.get(key);
      if (run === undefined) {
        run = processor.process(request).then(async (result) => {
          if (result.path === input.path) return { result };
          const kept = join(await mkdtemp(join(keep(), 'once-')), basename(result.path));
          await copyFile(result.path, kept);
          return { result, kept };
        });
        runs.set(key, run);
        return (await run).result;
      }
      const { result, kept } = await run;
      if (kept === undefined) return { ...result, path: input.path };
      const path = join(request.workDir, basename(kept));
      await copyFile(kept, path);
      return { ...result, path };
    },
  };
}
