/** The processors this process runs, looked up by the kind detected from the input's content. */
import type { FileKind } from '../media/formats.ts';
import type { Processor } from './processor.ts';

export class ProcessorRegistry {
  readonly #byKind = new Map<FileKind, Processor>();

  constructor(processors: Processor[]) {
    for (const processor of processors) {
      if (this.#byKind.has(processor.kind)) throw new Error(`two processors for kind ${processor.kind}`);
      this.#byKind.set(processor.kind, processor);
    }
  }

  forKind(kind: FileKind): Processor | undefined {
    return this.#byKind.get(kind);
  }

  all(): Processor[] {
    return [...this.#byKind.values()];
  }
}
