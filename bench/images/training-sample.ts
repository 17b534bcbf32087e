/**
 * The start predictor's training images (bench/images/fit-start.ts), from the corpus that scripts/corpus.sh
 * unpacks from scripts/corpus/train-images.txt into .corpus/train. None of these packages is in the
 * benchmark's list (bench-images.txt), so the predictor is never fitted on an image it is measured on.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export function trainingSample(corpusDir: string, quick: boolean): string[] {
  const dir = join(corpusDir, 'usr/share/backgrounds');
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort()
    .map((f) => join(dir, f));
  return quick ? files.slice(0, 4) : files;
}
