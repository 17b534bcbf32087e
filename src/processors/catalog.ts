/**
 * Every processor kind this binary contains, one line each (gotenberg's pkg/standard/imports.go). The
 * configuration lists their sections in this order (runtime/config.ts), the composition root creates them in
 * this order (host.ts: a kind that uses another at creation comes after it), and the job service takes
 * their lanes from here. A new kind is its folder, one line here and its formats in media/formats.ts.
 */
import { archiveModule } from './archive/index.ts';
import { audioModule } from './audio/index.ts';
import { bundleModule } from './bundle/index.ts';
import { documentModule } from './document/index.ts';
import { imageModule } from './image/index.ts';
import type { Lane } from './module.ts';
import { pdfModule } from './pdf/index.ts';
import { videoModule } from './video/index.ts';

export const PROCESSORS = [
  imageModule,
  videoModule,
  audioModule,
  pdfModule,
  documentModule,
  archiveModule,
  bundleModule,
] as const;

/** The queue lane of a job whose input is of `kind` (unknown kinds, and fetches not yet read, are standard). */
export function laneOf(kind: string | undefined): Lane {
  return PROCESSORS.find((module) => module.kind === kind)?.lane ?? 'standard';
}
